"""`arena demo` (what `make demo` runs) serves the web app and prints its address."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_demo_prints_the_web_address_while_it_runs(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite"
    argv = [sys.executable, "-m", "arena_cli.main", "demo", "--db", str(db)]
    argv += ["--player", "random", "--player", "other=random", "--move-time", "0.05"]
    process = subprocess.Popen(
        [*argv, "--linger", "30"], stdout=subprocess.PIPE, text=True, cwd=ROOT, env=os.environ
    )
    assert process.stdout is not None
    try:
        first = process.stdout.readline()
        found = re.match(r"web app: (http://127\.0\.0\.1:\d+)", first)
        assert found, first
        with urllib.request.urlopen(found.group(1) + "/api/server", timeout=10) as response:
            assert response.status == 200
        output = first
        while "up for 30 more seconds" not in output:
            line = process.stdout.readline()
            assert line, output
            output += line
        with urllib.request.urlopen(found.group(1) + "/api/tournaments", timeout=10) as response:
            assert b'"matches":2' in response.read()
    finally:
        process.kill()
        process.wait()
    # the demo's server (and its records writer) went with it
    deadline = time.monotonic() + 15
    while _processes_using(db) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _processes_using(db)


def _processes_using(db: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        with contextlib.suppress(OSError):
            if entry.name.isdigit() and str(db).encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
    return found
