"""The Markdown tables of README.md and docs/*.md render as one table each.

A blank line inside a table ends it: the rows after it show as a paragraph of
pipes (issue 45, item 15: docs/TOURNAMENTS.md's adjudication table was cut
so). A row after a blank line must start a new table (a header, then its
`|---|` line), never continue the last one.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SEPARATOR = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")


def cut_rows(text: str) -> list[int]:
    """Line numbers (1-based) of table rows that a blank line cut from their table."""
    lines = text.split("\n")
    cut, fenced = [], False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fenced = not fenced
        if fenced or i < 2 or not line.startswith("|") or lines[i - 1].strip():
            continue
        starts_a_table = i + 1 < len(lines) and SEPARATOR.match(lines[i + 1])
        if lines[i - 2].startswith("|") and not starts_a_table:
            cut.append(i + 1)
    return cut


def test_the_check_finds_a_cut_table() -> None:
    table = "| a | b |\n|---|---|\n| 1 | 2 |\n\n| 3 | 4 |\n\n| c | d |\n|---|---|\n| 5 | 6 |\n"
    assert cut_rows(table) == [5]


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_no_table_is_cut_by_a_blank_line(path: Path) -> None:
    assert cut_rows(path.read_text()) == [], f"{path.name}: a blank line cuts a table there"
