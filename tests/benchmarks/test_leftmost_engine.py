"""The leftmost-column engine of the proof benchmark passes the engine door's own check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARENA = str(Path(sys.executable).parent / "arena")


def test_the_leftmost_engine_passes_the_check_and_plays_the_leftmost_column() -> None:
    script = ROOT / "benchmarks" / "leftmost_engine.py"
    spec = f"engine:cmd={sys.executable},args={script},protocol=text"
    check = subprocess.run(
        [ARENA, "engines", "check", spec, "--game", "connect4"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    session = "arena 1\nnewgame connect4 width=7,height=6,k=4\nposition startpos moves"
    session += " 1" * 6 + "\ngo movetime 100\nquit\n"
    answer = subprocess.run(
        [sys.executable, str(script)], input=session, capture_output=True, text=True, timeout=30
    )
    assert answer.stdout.splitlines()[-1] == "bestmove 2"
