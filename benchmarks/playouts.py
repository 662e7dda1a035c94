"""Random playouts per second from the initial position, for every registered game.

For each game it times the game's own `playout` (the fast path the MCTS uses
for rollouts) and, as the baseline measured in the same run, the generic
`Game.playout` from `games.base` (one `outcome`, `legal_moves` and `apply`
per move), called as ``Game.playout(game, state, rng)`` to bypass the
override, so the speed-up of each fast playout shows. Each figure is the
number of whole games played from the start in a fixed time (the two timed
in alternating slices), in this one process; the last column checks the fast
figure against the project's target.

    python -m benchmarks.playouts [--seconds 2] [--game reversi] [--seed 1]
"""

from __future__ import annotations

import argparse
import platform
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from games import Game, available_games, make_game

#: fast random playouts per second from the start, per game
TARGETS: dict[str, int] = {
    "connect4": 60_000,
    "tictactoe": 100_000,
    "ultimate": 10_000,
    "reversi": 1_500,
    "gomoku": 1_000,
}

Playout = Callable[[Any, random.Random], Any]


def run_for(playout: Playout, state: Any, seconds: float, rng: random.Random) -> tuple[int, float]:
    """Run `playout(state, rng)` back to back for about `seconds`: (playouts, elapsed)."""
    clock = time.perf_counter
    count = 0
    start = now = clock()
    deadline = start + seconds
    while now < deadline:
        playout(state, rng)
        count += 1
        now = clock()
    return count, now - start


def measure(name: str, seconds: float, seed: int, slices: int = 4) -> tuple[float, float]:
    """(fast, generic) playouts per second for game `name` with default options.

    The two are timed in alternating slices, `seconds` in all for each, so a
    burst of load from other processes on the machine hits both alike.
    """
    game: Game[Any, Any] = make_game(name)
    state = game.initial_state()

    def generic(state: Any, rng: random.Random) -> Any:
        return Game.playout(game, state, rng)

    totals = {"fast": [0, 0.0], "generic": [0, 0.0]}
    rngs = {"fast": random.Random(seed), "generic": random.Random(seed)}
    playouts: dict[str, Playout] = {"fast": game.playout, "generic": generic}
    for _ in range(slices):
        for key, playout in playouts.items():
            count, elapsed = run_for(playout, state, seconds / slices, rngs[key])
            totals[key][0] += count
            totals[key][1] += elapsed
    return (
        totals["fast"][0] / totals["fast"][1],
        totals["generic"][0] / totals["generic"][1],
    )


def verdict(name: str, rate: float) -> str:
    target = TARGETS.get(name)
    if target is None:
        return "no target"
    return f">= {target:,}: {'PASS' if rate >= target else 'MISS'}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=2.0, help="seconds per measurement (default 2)"
    )
    parser.add_argument(
        "--game",
        action="append",
        choices=sorted(available_games()),
        help="measure only this game (repeatable; default: every registered game)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the random playouts")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error(f"--seconds must be positive, not {args.seconds}")
    names: list[str] = args.game or sorted(available_games())

    print(
        f"random playouts/s from the start, {args.seconds:g}s per figure,"
        f" {platform.python_implementation()} {platform.python_version()}"
    )
    print(f"{'game':<10} {'fast':>10} {'generic':>10} {'speed-up':>9}  target")
    for name in names:
        fast, generic = measure(name, args.seconds, args.seed)
        print(
            f"{name:<10} {fast:>10,.0f} {generic:>10,.0f} {fast / generic:>8.1f}x"
            f"  {verdict(name, fast)}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
