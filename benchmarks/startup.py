"""Start-up time of `arena` commands, before and after lazy imports, next to `python -c pass`.

Each command is run as a fresh process (what a user waits for) `--repeat`
times, alternating between the two trees, and the median wall time is
reported. "after" is this working tree; "before" is the source of
`--before` (a git revision, default the last commit before lazy start-up)
extracted with `git archive` into a temporary directory and put first on
PYTHONPATH, run by the same interpreter and packages. Targets (issue 13):
`arena --help` <= 0.15 s, `arena matches` <= 0.25 s.

    python -m benchmarks.startup [--repeat 7] [--before REV]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the commit before `arena` imported only the command it runs
BEFORE = "64c90b8896cc24d4a3c26288c6af977fb50b38e2"
PACKAGES = ("arena_cli", "games", "player", "protocol", "records", "server", "tournament")
TARGETS = {"arena --help": 0.15, "arena matches": 0.25}


def commands(db: str) -> dict[str, list[str]]:
    arena = [sys.executable, "-m", "arena_cli.main"]
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "arena --help": [*arena, "--help"],
        "arena play --help": [*arena, "play", "--help"],
        "arena matches": [*arena, "matches", "--db", db],
        "arena games": [*arena, "games"],
    }


def extract(revision: str, into: Path) -> None:
    """The packages of `revision` under `into` (git archive, no checkout)."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", revision, *PACKAGES],
        cwd=ROOT,
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def make_db(path: Path) -> None:
    """A records database with a few matches (what `arena matches` reads)."""
    from store.matches import MatchRecord
    from store.sqlite import SqliteDatabase

    store = SqliteDatabase(str(path))
    try:
        for index in range(20):
            record = MatchRecord(
                id=f"m{index:04d}",
                game="tictactoe",
                options={},
                move_time=1.0,
                lag_margin=0.2,
                players=["alice", "bob"],
                status="finished",
                scores=[1.0, 0.0],
                winner=0,
                termination="line",
                reason="X wins (line)",
                points=None,
                plies=5,
                started_at=time.time(),
                ended_at=time.time(),
                tournament=None,
            )
            store.import_match(record, [])
    finally:
        store.close()


def timed(command: list[str], env: dict[str, str], cwd: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, env=env, cwd=cwd, capture_output=True, check=False)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--before", default=BEFORE, help="git revision of the 'before' tree")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="arena-startup-") as tmp:
        work = Path(tmp)
        old = work / "before"
        old.mkdir()
        extract(args.before, old)
        db = work / "records.sqlite"
        make_db(db)
        base = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
        trees = {
            "before": ({**base, "PYTHONPATH": str(old)}, work),
            "after": ({**base, "PYTHONPATH": str(ROOT)}, work),
        }
        rows: list[tuple[str, float, float]] = []
        for name, command in commands(str(db)).items():
            times: dict[str, list[float]] = {"before": [], "after": []}
            for _ in range(args.repeat):
                for tree, (env, cwd) in trees.items():
                    times[tree].append(timed(command, env, cwd))
            medians = statistics.median(times["before"]), statistics.median(times["after"])
            rows.append((name, *medians))
    print(f"arena start-up, median of {args.repeat} runs each ({platform.python_version()},")
    print(f"{os.cpu_count()} CPUs); before = {args.before[:10]}, after = this tree\n")
    print(f"{'command':20} {'before':>8} {'after':>8}  target")
    for name, before, after in rows:
        target = TARGETS.get(name)
        verdict = (
            "" if target is None else f"<= {target:.2f}s {'ok' if after <= target else 'MISSED'}"
        )
        print(f"{name:20} {before:7.3f}s {after:7.3f}s  {verdict}")


if __name__ == "__main__":
    main()
