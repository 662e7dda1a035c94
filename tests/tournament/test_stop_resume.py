"""Stopping a tournament with a signal and resuming it: real subprocesses, real signals.

SIGTERM and SIGINT end `arena tournament` within 2 s with one line that gives
the exact resume command, exit code 143 / 130; `--list` shows the tournament
as stopped with its games done; the printed command finishes it, the SPRT's
state carried over (its pairs are counted from the stored games). Symmetric
hypotheses between identical players keep the test from deciding early, and
connect four games last long enough for the signal to land mid-tournament.
SIGINT runs in `make test-slow` (the round-robin Ctrl-C test in
tests/arena_cli/test_tournament_cmd.py covers it by default).
"""

from __future__ import annotations

import json
import shlex
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena_cli.main import main

ARENA = [sys.executable, "-m", "arena_cli.main"]


def count_results(db: Path) -> int:
    try:
        with sqlite3.connect(db) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM tournament_games").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def listed(db: Path) -> list[dict[str, Any]]:
    result = subprocess.run(
        [*ARENA, "tournament", "--list", "--json", "--db", str(db)],
        capture_output=True,
        text=True,
        check=True,
    )
    rows: list[dict[str, Any]] = json.loads(result.stdout)
    return rows


@pytest.mark.parametrize(
    ("how", "code"),
    [
        pytest.param(signal.SIGTERM, 143, id="sigterm"),
        pytest.param(signal.SIGINT, 130, id="sigint", marks=pytest.mark.slow),
    ],
)
def test_a_stopped_sprt_says_how_to_resume_and_resumes(
    tmp_path: Path, how: signal.Signals, code: int
) -> None:
    db = tmp_path / "arena.sqlite"
    out = tmp_path / "results.json"
    command = [
        *ARENA, "tournament", "connect4", "-p", "mcts:time=0.03", "-p", "mcts:time=0.03",
        "--sprt", "elo0=-10,elo1=10", "--max-pairs", "3", "--random-openings", "2",
        "--move-time", "1",
        "--db", str(db), "--out", str(out), "--no-progress",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 60
        while count_results(db) < 1:
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the tournament made no progress"
            time.sleep(0.05)
        assert listed(db)[0]["status"] == "running"
        signalled = time.monotonic()
        process.send_signal(how)
        stdout, stderr = process.communicate(timeout=10)
        elapsed = time.monotonic() - signalled
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == code, (elapsed, stdout, stderr)
    assert elapsed < 2.0, f"{elapsed:.2f}s to stop"
    assert "Traceback" not in stdout + stderr
    last = stdout.strip().splitlines()[-1]
    assert last.startswith(f"stopped by {how.name}: ")
    resume = last.split("resume with: ", 1)[1]
    words = shlex.split(resume)
    assert words[:3] == ["arena", "tournament", "--resume"]
    assert words[words.index("--db") + 1] == str(db)
    assert words[words.index("--out") + 1] == str(out)
    (row,) = listed(db)
    done = count_results(db)
    assert row["status"] == "stopped" and row["done"] == done and row["total"] == 6
    assert row["id"] == words[3] and row["format"] == "sprt"
    # the printed command, run as printed (minus the program name), finishes it
    assert main(words[1:]) == 0
    document = json.loads(out.read_text())
    sprt = document["sprt"]
    games = document["games"]
    pairs = len(games) // 2
    assert sorted(g["index"] for g in games) == list(range(2 * pairs))
    assert sum(sprt["pentanomial"].values()) == pairs
    assert sprt["decision"] != "continue" or pairs == 3
    assert listed(db)[0]["status"] == "finished"
