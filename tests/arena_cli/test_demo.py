"""`arena demo` ends by itself and says so of its web app (issue 26, item 10).

Its web app lives as long as the demo: the demo says it when it prints the
address, and at the end how to serve the games again. `make demo` runs
`arena demo` with its defaults (test_readme_sections.py, slow); here a small
one with the same code path.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.arena_cli.cli import run


def test_the_demo_says_its_web_app_stops_with_it_and_how_to_watch_again(
    tmp_path: Path,
) -> None:
    db = tmp_path / "demo.sqlite"
    done = run(
        "demo", "--player", "random", "--player", "greedy", "--move-time", "0.1",
        "--db", str(db), cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    url = re.fullmatch(
        r"web app: (http://127\.0\.0\.1:\d+)  \(open it to watch the games live\)", lines[0]
    )
    assert url, done.stdout
    assert lines[1] == (
        "  it stops when the demo ends (with it; --linger SECONDS keeps it up longer);"
        " the command printed at the end serves the games again"
    )
    assert "(round-robin, finished)" in done.stdout
    assert lines[-2] == "the web app has stopped with the demo; to watch the games again, run:"
    assert lines[-1] == f"  arena serve --db {db} --web 8080   (then open http://127.0.0.1:8080)"
    with pytest.raises(urllib.error.URLError):  # as it said: gone
        urllib.request.urlopen(url.group(1), timeout=5)
