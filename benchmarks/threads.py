"""Simulations per second against threads: the compiled search with ``workers`` = 1, 2,
4, 8, … from each game's start position, each row against one thread in the same run.

Why: ``workers=N`` grows one tree with N threads (issue 41, "cores that pay").
Whether they pay depends on the game: a wide, deep tree (Go, gomoku,
ultimate) spreads the threads out, while a shallow one where almost every
visit goes down one line (connect four's pure MCTS) makes them meet on the
same nodes. This prints, for each game, the simulations per second of a
fresh search of ``--seconds`` at each thread count (median of ``--repeat``
runs, the counts interleaved so that a burst of load hits them alike) and
the speedup over one thread. With ``--separate``, each count above one also
gets the simulations per second of as many one-thread searches of separate
trees at once: what the machine itself allows those threads, with nothing
shared between them.

    python -m benchmarks.threads [--seconds 1] [--repeat 3] [--max-threads N]
                                 [--separate] [--game go --game connect4 ...]

The thread counts are the powers of two up to ``--max-threads`` (default:
the cores this process may use) and that count itself. The figures mean
something only on idle cores: say on which machine they were taken.
"""

from __future__ import annotations

import argparse
import logging
import os
import platform
import statistics
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import structlog

from games import make_game
from player.agent import SearchLimit
from player.mcts.agent import MCTSAgent
from player.mcts.search_options import SearchOptions

#: (row label, game name, game options, search options beyond the defaults)
GAMES: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "go": ("go", {"size": 9, "komi": 7.0}, {}),
    "gomoku": ("gomoku", {}, {}),
    "ultimate": ("ultimate", {}, {}),
    # pure MCTS: no exact root search sharing the time (issue 41's 4.6× row)
    "connect4": ("connect4", {}, {"exact": 0.0}),
}


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def thread_counts(most: int) -> list[int]:
    """1, 2, 4, … up to `most`, and `most` itself."""
    counts = [1]
    while counts[-1] * 2 <= most:
        counts.append(counts[-1] * 2)
    if counts[-1] != most:
        counts.append(most)
    return counts


def rate(agent: MCTSAgent, label: str, seconds: float) -> float:
    """Simulations per second of one fresh search of `seconds` from the start position."""
    name, options, _ = GAMES[label]
    game = make_game(name, options)
    agent.finish(None)  # drop the previous tree
    agent.start(game, 0)
    begin = time.perf_counter()
    agent.choose(game.initial_state(), SearchLimit(time=seconds))
    elapsed = time.perf_counter() - begin
    report = agent.last_report
    assert report is not None
    return report.iterations / elapsed


def apart(agents: Sequence[MCTSAgent], label: str, seconds: float) -> float:
    """The summed simulations per second of `agents` (one thread each, each its own tree)
    searching at the same time, each in a thread of its own (a search's error is raised)."""
    with ThreadPoolExecutor(len(agents)) as pool:
        return sum(pool.map(lambda agent: rate(agent, label, seconds), agents))


def measure(
    label: str, counts: Sequence[int], seconds: float, repeat: int, separate: bool = False
) -> tuple[dict[int, float], dict[int, float]]:
    """The median simulations/s of game `label` at each thread count, one tree, and with
    `separate` at each count above one, as many separate trees (else no entries)."""
    extra = GAMES[label][2]

    def agent(n: int, seed: int = 1) -> MCTSAgent:
        return MCTSAgent(SearchOptions(time=seconds, workers=n, seed=seed, engine="fast", **extra))

    agents = {n: agent(n) for n in counts}
    teams = {n: [agent(1, 1 + k) for k in range(n)] for n in counts if separate and n > 1}
    runs: dict[int, list[float]] = {n: [] for n in counts}
    apart_runs: dict[int, list[float]] = {n: [] for n in teams}
    everyone = [*agents.values(), *(a for team in teams.values() for a in team)]
    try:
        for each in everyone:  # compile and start the threads before timing
            rate(each, label, min(seconds, 0.2))
        for _ in range(repeat):
            for n, one in agents.items():
                runs[n].append(rate(one, label, seconds))
                if n in teams:
                    apart_runs[n].append(apart(teams[n], label, seconds))
    finally:
        for each in everyone:
            each.close()
    median = statistics.median
    return (
        {n: median(values) for n, values in runs.items()},
        {n: median(values) for n, values in apart_runs.items()},
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per search (default 1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median; default 3)")
    parser.add_argument(
        "--max-threads", type=int, default=cores(), help="most threads (default: the cores)"
    )
    parser.add_argument(
        "--separate",
        action="store_true",
        help="also as many one-thread searches of separate trees at once (the machine's share)",
    )
    parser.add_argument(
        "--game", action="append", choices=sorted(GAMES), help="a game's row (repeatable; all)"
    )
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.repeat < 1 or args.max_threads < 1:
        parser.error("--seconds, --repeat and --max-threads must be positive")
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    counts = thread_counts(args.max_threads)
    print(
        f"threads: {platform.machine()}, {cores()} cores available, {os.getloadavg()[0]:.1f} load,"
        f" {args.seconds:g} s a search, median of {args.repeat}"
    )
    separate = [n for n in counts if args.separate and n > 1]
    header = f"{'game':<10}" + "".join(f" {f'{n} thr/s':>12} {'×':>5}" for n in counts)
    header += "".join(f" {f'{n} trees/s':>12} {'×':>5}" for n in separate)
    print(header)
    for label in args.game or list(GAMES):
        figures, trees = measure(label, counts, args.seconds, args.repeat, args.separate)
        base = figures[counts[0]]
        line = f"{label:<10}"
        for n in counts:
            line += f" {figures[n]:>12,.0f} {figures[n] / base:>4.1f}×"
        for n in separate:
            line += f" {trees[n]:>12,.0f} {trees[n] / base:>4.1f}×"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
