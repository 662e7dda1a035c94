"""Go's speed on one core: our rules API's moves/s and random playouts/s on 9×9 and
19×19, against OpenSpiel's `go` measured in the same run.

Why these rows: the MCTS player's strength is its simulations per second, and
Go is where playouts are longest (a 19×19 random game is 400–1,000 moves).
Three figures per board size, each timed in alternating slices with its
OpenSpiel counterpart so a burst of load on a shared machine hits both alike:

* ``rules moves/s``: a random game through the checked-free rules API, one
  `legal_moves` and one `apply` per move (what the generic search and the
  server pay), against OpenSpiel's ``legal_actions`` + ``apply_action``
  driven from Python the same way;
* ``playouts/s``: whole games from the empty board with `Go.playout`, the
  light playout the search uses (random points, never filling its own eye),
  against OpenSpiel's state played out with uniformly random legal actions
  from Python (its C++ rules, no eye rule, so its games are longer: the
  moves/s column says how fast each is per move);
* ``playout moves/s``: the plies of those playouts per second.

OpenSpiel's game is loaded with our move cap (``max_game_length = 3·N²``)
and our komi. Our side is pure Python (there is no compiled Go kernel yet);
OpenSpiel's rules are C++ called through pybind11. The process pins itself
to one core when the OS allows.

    python -m benchmarks.go_speed [--seconds 4] [--size 9 --size 19] [--seed 1] [--no-pin]

Needs the `reference` extra (``pip install -e '.[reference]'``) for the
OpenSpiel columns; without it they print as ``-``.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from games.go import Go, default_komi

#: one timed unit of work: returns the plies it played
Work = Callable[[random.Random], int]


def pin_one_core() -> str:
    """Pin this process to one core it may use; a description of where it runs."""
    if not hasattr(os, "sched_setaffinity"):
        return "unpinned"
    allowed = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {allowed[0]})
    return f"pinned to core {allowed[0]} of {len(allowed)} allowed"


def ours_rules(game: Go) -> Work:
    def work(rng: random.Random) -> int:
        state = game.initial_state()
        plies = 0
        while True:
            moves = game.legal_moves(state)
            if not moves:
                return plies
            state = game.apply(state, moves[int(rng.random() * len(moves))])
            plies += 1

    return work


def ours_playout(game: Go) -> Work:
    start = game.initial_state()

    def work(rng: random.Random) -> int:
        return game.playout(start, rng)[2]

    return work


def openspiel_game(size: int, komi: float) -> Any | None:
    try:
        import pyspiel  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    params = {"board_size": size, "komi": komi, "max_game_length": 3 * size * size}
    return pyspiel.load_game("go", params)


def openspiel_playout(spiel: Any) -> Work:
    """Uniformly random legal actions to the end (OpenSpiel's rules in C++)."""

    def work(rng: random.Random) -> int:
        state = spiel.new_initial_state()
        plies = 0
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[int(rng.random() * len(actions))])
            plies += 1
        return plies

    return work


def timed(works: dict[str, Work], seconds: float, seed: int, slices: int = 4) -> dict[str, Any]:
    """Per work: (units/s, plies/s), the works timed in alternating slices."""
    totals = {key: [0, 0, 0.0] for key in works}
    rngs = {key: random.Random(seed) for key in works}
    clock = time.perf_counter
    for _ in range(slices):
        for key, work in works.items():
            count = plies = 0
            start = now = clock()
            deadline = start + seconds / slices
            while now < deadline:
                plies += work(rngs[key])
                count += 1
                now = clock()
            totals[key][0] += count
            totals[key][1] += plies
            totals[key][2] += now - start
    return {key: (c / t, p / t) for key, (c, p, t) in totals.items()}


def _cell(value: float | None) -> str:
    return "-" if value is None else f"{value:,.0f}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="seconds per figure")
    parser.add_argument(
        "--size", type=int, action="append", help="board sizes (repeatable; default 9 and 19)"
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the random games")
    parser.add_argument(
        "--no-pin", action="store_true", help="leave the process on every core it may use"
    )
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error(f"--seconds must be positive, not {args.seconds}")
    sizes: list[int] = args.size or [9, 19]
    for size in sizes:
        if not 5 <= size <= 19:
            parser.error(f"--size must be 5..19, not {size}")
    where = "unpinned" if args.no_pin else pin_one_core()
    print(
        f"go on one core ({where}), {args.seconds:g}s per figure,"
        f" {platform.python_implementation()} {platform.python_version()}"
    )
    print(f"{'board':<6} {'figure':<22} {'ours':>10} {'openspiel':>10}")
    for size in sizes:
        komi = default_komi(size)
        game = Go(size=size, komi=komi)
        works: dict[str, Work] = {"rules": ours_rules(game), "playout": ours_playout(game)}
        spiel = openspiel_game(size, komi)
        if spiel is not None:
            works["openspiel"] = openspiel_playout(spiel)
        rates = timed(works, args.seconds, args.seed)
        theirs = rates.get("openspiel")
        rows = (
            ("rules API moves/s", rates["rules"][1], None if theirs is None else theirs[1]),
            ("playouts/s", rates["playout"][0], None if theirs is None else theirs[0]),
            ("playout moves/s", rates["playout"][1], None if theirs is None else theirs[1]),
            ("plies per playout", rates["playout"][1] / rates["playout"][0],
             None if theirs is None else theirs[1] / theirs[0]),
        )  # fmt: skip
        for label, ours, other in rows:
            board = f"{size}x{size}"
            print(f"{board:<6} {label:<22} {_cell(ours):>10} {_cell(other):>10}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
