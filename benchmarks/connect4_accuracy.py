"""How often a player keeps connect four's game-theoretic result, on positions scored by a solver.

Two sets of positions, generated from ``--seed`` (reproducible, the same for
every player): the opening (plies 6-9) and the middle game (plies 10-32).
Each position comes from uniformly random legal moves from the empty board
(a ply drawn uniformly in the set's range; lines that end the game early are
drawn again), so nothing in the generation knows any player. A position is
kept only when it is not decided trivially: the side to move has no
immediate win, the opponent no immediate threat to block, and at least one
legal move loses the position's value (win to draw or loss, draw to loss),
as scored by an exact solver: BitBully (`benchmarks.c4solver.reference`, from
PyPI, with its opening databases: an opening position in a millisecond) when it
is installed, else our own `benchmarks.c4solver` (seconds to minutes for an
opening position); ``--reference`` chooses. The two agree
(tests/benchmarks/test_c4solver.py). Duplicates are dropped.

Each player then gets every position afresh (a new agent: no tree, no table
kept from another position) and ``--time`` seconds; a move is correct when
it keeps the value. Accuracy per set with a 95% Wilson interval::

    python -m benchmarks.connect4_accuracy --seed 1 --positions 200 --time 0.2
    python -m benchmarks.connect4_accuracy --player mcts --baseline mcts:exact=0

The default baseline is our player with this round's techniques off
(``exact=0``: plain UCT with MCTS-Solver and win/block rollouts), measured in
the same run so before and after are comparable.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from benchmarks.c4solver import Solver
from benchmarks.c4solver.reference import BitBullySolver, available
from games.connect4 import Connect4
from player.agent import SearchLimit
from player.spec import make_agent

#: the two sets: name, lowest and highest ply (moves already played)
SETS = (("opening", 6, 9), ("middle", 10, 32))
Z95 = 1.959964


@dataclass(frozen=True, slots=True)
class Position:
    """A position (the moves from the empty board), its value and the moves that keep it."""

    moves: tuple[int, ...]
    value: int
    good: frozenset[int]
    legal: int


def trivial(game: Connect4, state: tuple[int, int, int, int]) -> bool:
    """Whether the side to move can win at once or must block an immediate threat."""
    passed = (state[0], state[1], state[2] + 1, state[3])  # the opponent to move, same discs
    for position in (state, passed):
        mover = game.to_move(position)
        if any(game.apply(position, m)[3] == mover for m in game.legal_moves(position)):
            return True
    return False


def generate(
    rng: random.Random,
    low: int,
    high: int,
    count: int,
    values: Callable[[Sequence[int]], list[int | None]],
) -> list[Position]:
    """`count` distinct non-trivial positions of plies `low`..`high`, scored by `values`."""
    game = Connect4()
    found: list[Position] = []
    seen: set[tuple[int, int, int, int]] = set()
    while len(found) < count:
        target = rng.randint(low, high)
        state = game.initial_state()
        moves: list[int] = []
        while len(moves) < target and not game.is_terminal(state):
            move = rng.choice(game.legal_moves(state))
            moves.append(move)
            state = game.apply(state, move)
        if len(moves) < target or game.is_terminal(state) or state in seen:
            continue
        seen.add(state)
        if trivial(game, state):
            continue
        scores = values(moves)
        legal = [v for v in scores if v is not None]
        value = max(legal)
        good = frozenset(c for c, v in enumerate(scores) if v == value)
        if len(good) < len(legal):
            found.append(Position(tuple(moves), value, good, len(legal)))
    return found


class Reference(Protocol):
    """An exact solver: each column's value for the side to move (None: full)."""

    def values(self, moves: Sequence[int]) -> list[int | None]: ...


class CachedValues:
    """The solver's answers, kept in a JSON file between runs (a solved opening takes seconds).

    The file maps a line of moves (column digits 1..7) to the solver's answer;
    it is only a cache: deleting it changes nothing but the time a run takes.
    """

    def __init__(self, solver: Reference, path: Path | None) -> None:
        self.solver = solver
        self.path = path
        self.known: dict[str, list[int | None]] = {}
        if path is not None and path.exists():
            self.known = json.loads(path.read_text())

    def __call__(self, moves: Sequence[int]) -> list[int | None]:
        line = "".join(str(m + 1) for m in moves)
        if line not in self.known:
            self.known[line] = self.solver.values(moves)
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                partial = self.path.with_suffix(f".{os.getpid()}")
                partial.write_text(json.dumps(self.known))
                partial.replace(self.path)
        return self.known[line]


def default_cache() -> Path:
    """Where the solver's answers are kept: ``$XDG_CACHE_HOME/mcts-arena`` (``~/.cache``)."""
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "mcts-arena" / "connect4-values.json"


def wilson(hits: int, total: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion."""
    if total == 0:
        return 0.0, 1.0
    p = hits / total
    denominator = 1 + Z95**2 / total
    centre = (p + Z95**2 / (2 * total)) / denominator
    spread = Z95 * math.sqrt(p * (1 - p) / total + Z95**2 / (4 * total**2)) / denominator
    return max(0.0, centre - spread), min(1.0, centre + spread)


def paired(gains: Sequence[int]) -> str:
    """The mean of per-position differences (1, 0, -1) with its 95% normal interval."""
    n = len(gains)
    mean = sum(gains) / n
    spread = math.sqrt(sum((g - mean) ** 2 for g in gains) / max(1, n - 1) / n)
    return (
        f"{mean:+.3f} (95%: {mean - Z95 * spread:+.3f} to {mean + Z95 * spread:+.3f}),"
        f" {gains.count(1)} positions only the player got right, {gains.count(-1)} only"
        " the baseline"
    )


@dataclass
class Tally:
    """One player's results on one set."""

    hits: int = 0
    total: int = 0
    think: float = 0.0
    worst: float = 0.0

    def line(self) -> str:
        low, high = wilson(self.hits, self.total)
        rate = self.hits / self.total if self.total else 0.0
        mean = self.think / self.total if self.total else 0.0
        return (
            f"{self.hits}/{self.total} = {rate:.3f} (95%: {low:.3f}-{high:.3f}),"
            f" think mean {mean:.3f} s, max {self.worst:.3f} s"
        )


def play(spec: str, position: Position, seconds: float) -> tuple[int, float]:
    """The move `spec` chooses in `position` within `seconds`, and the time it took."""
    game = Connect4()
    state = game.initial_state()
    for move in position.moves:
        state = game.apply(state, move)
    agent = make_agent(spec)
    try:
        agent.start(game, game.to_move(state))
        agent.sync(state, list(position.moves))
        begin = time.perf_counter()
        move = agent.choose(state, SearchLimit(time=seconds))
        return int(move), time.perf_counter() - begin
    finally:
        agent.close()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=1, help="the positions' seed")
    parser.add_argument("--positions", type=int, default=200, help="positions per set")
    parser.add_argument("--time", type=float, default=0.2, help="seconds per move")
    parser.add_argument("--player", default="mcts", help="the agent spec measured")
    parser.add_argument(
        "--baseline", default="mcts:exact=0", help="the spec it is compared with ('' = none)"
    )
    parser.add_argument(
        "--sets", default="opening,middle", help="which sets (comma-separated: opening, middle)"
    )
    parser.add_argument(
        "--cache", default=str(default_cache()), help="file of solved positions ('' = none)"
    )
    parser.add_argument(
        "--reference",
        choices=("auto", "bitbully", "c"),
        default="auto",
        help="the exact solver that scores the positions (auto: bitbully when installed, else c)",
    )
    args = parser.parse_args(argv)
    specs = [args.player] + ([args.baseline] if args.baseline else [])
    wanted = set(args.sets.split(","))
    reference = args.reference
    if reference == "auto":
        reference = "bitbully" if available() else "c"
    print(
        f"seed {args.seed}, {args.positions} positions per set, {args.time} s a move,"
        f" positions scored by {reference}"
    )
    with ExitStack() as stack:
        solver: Reference
        if reference == "bitbully":
            solver = BitBullySolver()
        else:
            solver = stack.enter_context(Solver())
        values = CachedValues(solver, Path(args.cache) if args.cache else None)
        for index, (name, low, high) in enumerate(SETS):
            if name not in wanted:
                continue
            rng = random.Random(f"{args.seed}:{index}")
            began = time.perf_counter()
            positions = generate(rng, low, high, args.positions, values)
            wins = sum(p.value > 0 for p in positions)
            draws = sum(p.value == 0 for p in positions)
            print(
                f"\n{name} (plies {low}-{high}): {len(positions)} positions"
                f" ({wins} won, {draws} drawn, {len(positions) - wins - draws} lost for the"
                f" side to move), scored in {time.perf_counter() - began:.1f} s",
                flush=True,
            )
            tallies = {spec: Tally() for spec in specs}
            gains: list[int] = []  # per position: player right - baseline right
            for position in positions:
                right = []
                for spec in specs:
                    move, spent = play(spec, position, args.time)
                    tally = tallies[spec]
                    tally.total += 1
                    tally.hits += move in position.good
                    tally.think += spent
                    tally.worst = max(tally.worst, spent)
                    right.append(int(move in position.good))
                if len(right) == 2:
                    gains.append(right[0] - right[1])
            for spec, tally in tallies.items():
                print(f"  {spec:24} {tally.line()}", flush=True)
            if gains:
                print(f"  {'difference':24} {paired(gains)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
