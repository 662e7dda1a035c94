"""Go's speed on one core: our rules API, our compiled kernel's light playouts and our
compiled MCTS on 9×9 and 19×19, against OpenSpiel's `go` measured in the same run.

Why these rows: the MCTS player's strength is its simulations per second, and
Go is where playouts are longest (a 19×19 random game is 400–1,000 moves).
Each figure is timed in alternating slices with the others of its board, so a
burst of load on a shared machine hits them alike:

* ``rules API moves/s``: a random game through the rules API, one
  `legal_moves` and one `apply` per move (what the generic search and the
  server pay), against OpenSpiel's ``legal_actions`` + ``apply_action``
  driven from Python the same way;
* ``rules playouts/s``: whole games from the empty board with `Go.playout`,
  the rules' own light playout (random points, never filling its own eye),
  against OpenSpiel's state played out with uniformly random legal actions
  from Python (its C++ rules, no eye rule, so its games are longer: the
  moves/s row says how fast each is per move);
* ``kernel playouts/s`` and ``kernel playout moves/s``: the compiled kernel's
  light playouts (player/mcts/fast/go: the same eye rule, simple ko), whole
  games from the empty board, many per call; OpenSpiel has no compiled
  playout to call on its own, so its column is empty;
* ``heavy playouts/s`` and ``heavy plies/playout``: the same with the heavy
  policy (`go.policy.heavy`: captures, escapes, learned 3×3 patterns, no
  self-atari), the one the default player (``rollout=smart``) plays;
* ``heavy+ladders playouts/s``: the heavy policy reading ladders (option
  ``go_ladders``: `go.ladder`), the same games;
* ``mcts simulations/s``: one thread of our compiled search from the empty
  board (a fresh tree of `mcts_simulations` simulations, each a descent and a
  kernel playout) against OpenSpiel's C++ ``MCTSBot`` with its C++
  ``RandomRolloutEvaluator`` (one random rollout per simulation, no eye rule)
  searching as many: the C++-side figure OpenSpiel offers; ``mcts+ladders``
  the same search of ours reading ladders in its playouts and prior (the
  default player's knowledge, option ``go_ladders``; the rows above read none).

OpenSpiel's game is loaded with our move cap (``max_game_length = 3·N²``)
and our komi. The process pins itself to one core when the OS allows.

    python -m benchmarks.go_speed [--seconds 4] [--size 9 --size 19] [--seed 1] [--no-pin]

Needs the `reference` extra (``pip install -e '.[reference]'``) for the
OpenSpiel columns, and numba for ours (the kernel rows); without them they
print as ``-``.
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
from player.mcts.fast.core.codes import Rollout

#: one timed piece of work: returns the units it did (games, simulations) and the plies played
Work = Callable[[random.Random], tuple[int, int]]


def mcts_simulations(size: int) -> int:
    """The simulations of one search of the ``mcts simulations/s`` row (2,000 on 9×9)."""
    return max(100, 162_000 // (size * size))


def pin_one_core() -> str:
    """Pin this process to one core it may use; a description of where it runs."""
    if not hasattr(os, "sched_setaffinity"):
        return "unpinned"
    allowed = sorted(os.sched_getaffinity(0))
    os.sched_setaffinity(0, {allowed[0]})
    return f"pinned to core {allowed[0]} of {len(allowed)} allowed"


def ours_rules(game: Go) -> Work:
    def work(rng: random.Random) -> tuple[int, int]:
        state = game.initial_state()
        plies = 0
        while True:
            moves = game.legal_moves(state)
            if not moves:
                return 1, plies
            state = game.apply(state, moves[int(rng.random() * len(moves))])
            plies += 1

    return work


def ours_playout(game: Go) -> Work:
    start = game.initial_state()

    def work(rng: random.Random) -> tuple[int, int]:
        return 1, game.playout(start, rng)[2]

    return work


def kernel_playout(game: Go, policy: int = 0, ladders: bool = False) -> Work | None:
    """The compiled kernel's playouts (`policy`: a `codes.Rollout`, light by default;
    reading ladders if `ladders`) from the empty board, a batch per call."""
    try:
        import numpy as np

        from player.mcts.fast.adapters import adapter_for
        from player.mcts.fast.core.rng import new_rng
        from player.mcts.fast.go import kernel
        from player.mcts.fast.go.config import LADDERS
    except ImportError:  # no numba
        return None
    adapter = adapter_for(game)
    assert adapter is not None
    cfg = adapter.cfg.copy()
    cfg[LADDERS] = int(ladders)
    row = np.array(adapter.encode_state(game.initial_state()), dtype=np.int64)
    batch = max(1, 8_000 // game.cells)
    # compiled (or loaded) before the clock
    kernel.playouts(cfg, row, new_rng(0), policy, 1)

    def work(rng: random.Random) -> tuple[int, int]:
        plies = kernel.playouts(cfg, row, new_rng(rng.getrandbits(63)), policy, batch)
        return batch, int(plies)

    return work


#: RAVE's equivalence parameter of the benchmark's RAVE row (`rave` option)
RAVE = 1000.0


def ours_mcts(game: Go, simulations: int, rave: float = 0.0, ladders: bool = False) -> Work | None:
    """Our compiled search, one thread, a fresh tree of `simulations` from the empty board
    (with RAVE's AMAF statistics when `rave` > 0; reading ladders if `ladders`)."""
    try:
        from player.agent import SearchLimit
        from player.mcts.fast.adapters import adapter_for
        from player.mcts.fast.core.engine import FastSearch
        from player.mcts.fast.go.options import GoOptions
        from player.mcts.search_options import SearchOptions
    except ImportError:  # no numba
        return None
    adapter = adapter_for(game)
    assert adapter is not None
    options = SearchOptions(memory=256, rave=rave)
    search = FastSearch(game, adapter, options, seed=0, knowledge=GoOptions(go_ladders=ladders))
    start = game.initial_state()
    limit = SearchLimit(iterations=simulations)
    search.search(start, SearchLimit(iterations=16))  # compiled (or loaded) before the clock

    def work(rng: random.Random) -> tuple[int, int]:
        search.reset()
        return search.search(start, limit).iterations, 0

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

    def work(rng: random.Random) -> tuple[int, int]:
        state = spiel.new_initial_state()
        plies = 0
        while not state.is_terminal():
            actions = state.legal_actions()
            state.apply_action(actions[int(rng.random() * len(actions))])
            plies += 1
        return 1, plies

    return work


def openspiel_mcts(spiel: Any, simulations: int, seed: int) -> Work:
    """OpenSpiel's C++ MCTS (`MCTSBot`, UCT c = 1.4) with its C++ random rollouts, one
    rollout per simulation, a fresh tree of `simulations` from the empty board."""
    import pyspiel  # type: ignore[import-not-found, unused-ignore]

    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.MCTSBot(spiel, evaluator, 1.4, simulations, 1_000, False, seed, False)
    start = spiel.new_initial_state()

    def work(rng: random.Random) -> tuple[int, int]:
        bot.step(start)
        return simulations, 0

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
                units, played = work(rngs[key])
                count += units
                plies += played
                now = clock()
            totals[key][0] += count
            totals[key][1] += plies
            totals[key][2] += now - start
    return {key: (c / t, p / t) for key, (c, p, t) in totals.items()}


def _rate(rates: dict[str, Any], key: str, index: int) -> float | None:
    """Units/s (`index` 0) or plies/s (1) of work `key`, if it ran."""
    found = rates.get(key)
    return None if found is None else float(found[index])


def _per_unit(rates: dict[str, Any], key: str) -> float | None:
    """Plies per unit of work `key` (per playout), if it ran."""
    found = rates.get(key)
    return None if found is None else float(found[1] / found[0])


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
    print(f"{'board':<6} {'figure':<24} {'ours':>10} {'openspiel':>10}")
    for size in sizes:
        komi = default_komi(size)
        game = Go(size=size, komi=komi)
        works: dict[str, Work] = {"rules": ours_rules(game), "playout": ours_playout(game)}
        simulations = mcts_simulations(size)
        for key, work in (
            ("kernel", kernel_playout(game)),
            ("heavy", kernel_playout(game, Rollout.HEAVY.value)),
            ("heavy ladders", kernel_playout(game, Rollout.HEAVY.value, ladders=True)),
            ("mcts", ours_mcts(game, simulations)),
            ("mcts ladders", ours_mcts(game, simulations, ladders=True)),
            ("mcts rave", ours_mcts(game, simulations, RAVE)),
        ):
            if work is not None:
                works[key] = work
        spiel = openspiel_game(size, komi)
        if spiel is not None:
            works["openspiel"] = openspiel_playout(spiel)
            works["openspiel mcts"] = openspiel_mcts(spiel, simulations, args.seed)
        rates = timed(works, args.seconds, args.seed)
        rows = (
            ("rules API moves/s", _rate(rates, "rules", 1), _rate(rates, "openspiel", 1)),
            ("rules playouts/s", _rate(rates, "playout", 0), _rate(rates, "openspiel", 0)),
            ("rules playout moves/s", _rate(rates, "playout", 1), _rate(rates, "openspiel", 1)),
            ("plies per playout", _per_unit(rates, "playout"), _per_unit(rates, "openspiel")),
            ("kernel playouts/s", _rate(rates, "kernel", 0), None),
            ("kernel playout moves/s", _rate(rates, "kernel", 1), None),
            ("kernel plies/playout", _per_unit(rates, "kernel"), None),
            ("heavy playouts/s", _rate(rates, "heavy", 0), None),
            ("heavy plies/playout", _per_unit(rates, "heavy"), None),
            ("heavy+ladders playouts/s", _rate(rates, "heavy ladders", 0), None),
            ("heavy+ladders plies/p.", _per_unit(rates, "heavy ladders"), None),
            ("mcts simulations/s", _rate(rates, "mcts", 0), _rate(rates, "openspiel mcts", 0)),
            ("mcts+rave simulations/s", _rate(rates, "mcts rave", 0), None),
            ("mcts+ladders sims/s", _rate(rates, "mcts ladders", 0), None),
        )
        for label, ours, other in rows:
            board = f"{size}x{size}"
            print(f"{board:<6} {label:<24} {_cell(ours):>10} {_cell(other):>10}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
