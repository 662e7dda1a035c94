"""The documents a user reads hold together: links lead somewhere, the versions agree."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted(
    [*ROOT.glob("*.md"), *ROOT.glob("docs/**/*.md"), *ROOT.glob("benchmarks/**/*.md")]
)
#: [text](target) and [text]: target, outside code
LINK = re.compile(r"\]\(([^)\s]+)\)|^\[[^\]]+\]:\s*(\S+)", re.M)


def relative_links(text: str) -> list[str]:
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    text = re.sub(r"`[^`\n]*`", "", text)
    found = []
    for match in LINK.finditer(text):
        target = match.group(1) or match.group(2)
        if not re.match(r"[a-z][a-z0-9+.-]*:", target) and not target.startswith("#"):
            found.append(target.split("#", 1)[0])
    return found


def test_every_relative_link_leads_to_a_file() -> None:
    assert len(DOCUMENTS) > 5
    broken = []
    for document in DOCUMENTS:
        for target in relative_links(document.read_text()):
            if not (document.parent / target).exists():
                broken.append(f"{document.relative_to(ROOT)}: {target}")
    assert not broken, broken


def test_the_changelog_latest_release_is_the_version_arena_prints() -> None:
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\]", (ROOT / "CHANGELOG.md").read_text(), re.M)
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert releases and releases[0] == declared
    shown = subprocess.run(
        [sys.executable, "-m", "arena_cli.main", "--version"], capture_output=True, text=True
    )
    assert shown.stdout.split()[-1] == declared


def test_the_license_is_the_one_declared() -> None:
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
