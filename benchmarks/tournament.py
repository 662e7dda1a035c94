"""Tournament scheduling overhead with instant agents.

Runs a real `arena tournament` (embedded server, one `arena play` process per
player instance, all over loopback TCP) among 4 `random` players and reads the
records back. It prints the wall time, games and moves per second, and the
scheduler's gap: how long a game's players waited between the end of their
previous game and the start of the next one. The baseline, measured in the same
run, is `benchmarks.server` at the same number of concurrent matches: scripted
clients that answer instantly, with no scheduler and no agent.

    python -m benchmarks.tournament [--game connect4] [--games-per-pair 6] [--concurrency 2]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import structlog
import trio

from arena_cli import tournament_cmd
from benchmarks.server import measure_arena
from store import SqliteDatabase


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--games-per-pair", type=int, default=6, help="4 players: 6 pairs")
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    db = str(Path(tempfile.mkdtemp(prefix="arena-bench-")) / "bench.sqlite")
    argv = [
        args.game,
        *[item for i in range(4) for item in ("--player", f"r{i}=random:seed={i}")],
        "--games-per-pair", str(args.games_per_pair),
        "--concurrency", str(args.concurrency),
        "--instances", str(args.concurrency),
        "--move-time", "5",
        "--db", db,
        "--no-progress",
    ]  # fmt: skip
    sub = argparse.ArgumentParser()
    tournament_cmd.add_arguments(sub)
    start = time.perf_counter()
    code = tournament_cmd.run(sub.parse_args(argv))
    wall = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"tournament failed with exit code {code}")
    store = SqliteDatabase(db)
    records = [r for r in store.list_matches(10_000) if r.tournament]
    records.sort(key=lambda r: r.started_at)
    moves = sum(r.plies for r in records)
    first_start = records[0].started_at
    last_end = max(r.ended_at or 0.0 for r in records)
    span = last_end - first_start
    busy = sum((r.ended_at or r.started_at) - r.started_at for r in records)
    # per player: gap between the end of one game and the start of its next
    gaps: list[float] = []
    last_end_of: dict[str, float] = {}
    for record in records:
        for name in record.players:
            if name in last_end_of:
                gaps.append(max(0.0, record.started_at - last_end_of[name]))
        for name in record.players:
            last_end_of[name] = record.ended_at or record.started_at
    baseline, *_ = trio.run(measure_arena, args.concurrency, 3.0, args.game)
    print(
        f"tournament benchmark: {args.game}, 4 random players, {len(records)} games,"
        f" concurrency {args.concurrency}"
    )
    print(f"  wall time (incl. process start-up)    {wall:8.2f} s")
    print(f"  first game start -> last game end      {span:8.2f} s")
    print(f"  games/s                                {len(records) / span:8.2f}")
    print(f"  moves/s (tournament, real agents)      {moves / span:8,.0f}")
    print(f"  moves/s (server benchmark, same load)  {baseline:8,.0f}")
    print(f"  match time / (span x concurrency)      {busy / (span * args.concurrency):8.1%}")
    if gaps:
        print(
            f"  scheduler gap between a player's games: median {1e3 * statistics.median(gaps):.1f} ms,"
            f" max {1e3 * max(gaps):.1f} ms"
        )


if __name__ == "__main__":
    main()
