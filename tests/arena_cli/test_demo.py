"""`arena demo` ends by itself and says so of its web app (issue 26, item 10).

Its web app lives as long as the demo: the demo says it when it prints the
address, and at the end how to serve the games again. `make demo` runs
`arena demo` with its defaults (test_readme_sections.py, slow); here a small
one with the same code path.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.arena_cli.cli import ROOT, clean_env, run

VENV_BIN = os.path.dirname(sys.executable)


def _path_without_venv() -> str:
    """$PATH as a fresh shell has it: without the virtualenv's bin (not activated)."""
    entries = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(e for e in entries if os.path.abspath(e) != VENV_BIN and e)


def test_the_demo_says_its_web_app_stops_with_it_and_how_to_watch_again(
    tmp_path: Path,
) -> None:
    db = tmp_path / "demo.sqlite"
    done = run(
        "demo", "--player", "random", "--player", "greedy", "--move-time", "0.1",
        "--db", str(db), cwd=tmp_path, timeout=120,
        env=clean_env(PATH=os.pathsep.join([VENV_BIN, _path_without_venv()])),
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


def test_the_demo_prints_commands_that_work_in_a_fresh_shell(tmp_path: Path) -> None:
    """`make demo` runs .venv/bin/arena unactivated: its hints must not say a bare `arena`."""
    if not os.access(os.path.join(VENV_BIN, "arena"), os.X_OK):
        pytest.skip("no arena script beside this interpreter")
    fresh = clean_env(PATH=_path_without_venv())
    db = tmp_path / "demo.sqlite"
    done = subprocess.run(
        [os.path.join(VENV_BIN, "arena"), "demo", "--web", "off", "--player", "random",
         "--player", "greedy", "--move-time", "0.05", "--db", str(db)],
        capture_output=True, text=True, env=fresh, cwd=ROOT, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    hint = re.search(r"\(try: (.+ matches --db \S+)\)$", done.stdout, re.MULTILINE)
    assert hint, done.stdout
    assert hint.group(1) == f".venv/bin/arena matches --db {db}"  # relative to the checkout
    serve = done.stdout.splitlines()[-1]
    assert serve.startswith(f"  .venv/bin/arena serve --db {db} --web 8080"), serve
    # what a user does next: paste it into a shell where `arena` is not on $PATH
    shell = subprocess.run(
        ["bash", "-c", hint.group(1)], capture_output=True, text=True, env=fresh, cwd=ROOT,
        timeout=60,
    )  # fmt: skip
    assert shell.returncode == 0, shell.stderr
    assert shell.stdout.startswith(f"Matches in {db}")
    assert len(re.findall(r"^│ (m[0-9a-z]{13}) ", shell.stdout, re.MULTILINE)) == 2  # both games
    assert "command not found" not in shell.stderr
