"""`arena tournament` as a user runs it (issue 26, items 2, 3 and 5).

The progress bar knows how many games there are; result files that cannot
be written are refused before any game when that can be known, and
otherwise fail with one line, exit 1 and the games kept; a pool another
director owns is explained, with a command that works.
"""

from __future__ import annotations

import re
from pathlib import Path

import pexpect

from tests.arena_cli.cli import clean_env, terminal

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_the_progress_bar_knows_its_total(tmp_path: Path) -> None:
    """3 players, 2 games a pair: 6 games, shown as n/6 from the start to the end."""
    env = clean_env(TERM="xterm")
    child = terminal(
        "tournament", "connect4", "-p", "random", "-p", "greedy", "-p", "random",
        env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    try:
        child.expect(pexpect.EOF)
        shown = ANSI.sub("", child.before or "")
    finally:
        child.close()
    assert child.exitstatus == 0, shown
    assert "0/6" in shown and "6/6" in shown, shown
    assert "/?" not in shown, shown
    assert "(round-robin, finished)" in shown
