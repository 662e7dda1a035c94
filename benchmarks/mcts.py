"""MCTS iterations per second from the initial position, per game, against a classic baseline.

For each game it measures, in this run and from the same start position
(random rollouts, C = 1.4, every search from a fresh tree):

- ``classic``: a deliberately plain "blog-style" UCT written here (a `Node`
  with a parent pointer and children/untried lists, UCB1 via ``math.log`` and
  ``sorted`` at each step, moves re-applied from the root on every
  iteration, rollouts with the generic `Game.playout` from `games.base`,
  bypassing the game's fast one) — the baseline;
- ``mcts``: the `mcts` agent's Python engine (``engine=python``) in one
  process (the figure the targets are for), and the tree nodes it added per
  second (iterations that end on a proven or terminal node add none);
- ``fast``: the compiled engine (``engine=fast``, same C, random rollouts, no
  exact root search: ``exact=0``)
  for the games that have a kernel;
- ``C++``: OpenSpiel's C++ ``MCTSBot`` (uct_c = 2, one random rollout per
  leaf, solver on) when ``open_spiel`` is installed (the ``reference``
  extra), and ``fast``'s ratio to it;
- ``workers=2``: the Python engine with root parallelism over two processes,
  and its ratio to one process (target >= 1.8x; needs two idle cores).

Each figure is the median of ``--repeat`` runs of ``--seconds``, the
variants alternating so that load from other processes hits them alike.

    python -m benchmarks.mcts [--seconds 1] [--repeat 3] [--game connect4] [--no-workers]
"""

from __future__ import annotations

import argparse
import logging
import math
import platform
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

import structlog

from games import Game, available_games, make_game
from player.agent import SearchLimit
from player.mcts import MCTSAgent
from player.mcts.options import SearchOptions

#: MCTS iterations per second from the start, one CPython process
TARGETS: dict[str, int] = {
    "connect4": 30_000,
    "tictactoe": 50_000,
    "ultimate": 8_000,
    "reversi": 1_200,
}
WORKERS_TARGET = 1.8


class ClassicNode:
    """The node of the classic implementation: parent pointer, lists, win counts."""

    def __init__(
        self, game: Game[Any, Any], state: Any, move: Any = None, parent: ClassicNode | None = None
    ):
        self.state: Any = state
        self.move = move
        self.parent = parent
        self.children: list[ClassicNode] = []
        self.wins = 0.0
        self.visits = 0
        self.untried = list(game.legal_moves(state))
        self.player_just_moved = None if parent is None else game.to_move(parent.state)

    def select_child(self, c: float) -> ClassicNode:
        return sorted(
            self.children,
            key=lambda ch: ch.wins / ch.visits + c * math.sqrt(math.log(self.visits) / ch.visits),
        )[-1]

    def add_child(self, game: Game[Any, Any], move: Any, state: Any) -> ClassicNode:
        node = ClassicNode(game, state, move, self)
        self.untried.remove(move)
        self.children.append(node)
        return node

    def update(self, result: float) -> None:
        self.visits += 1
        self.wins += result


def classic_uct(game: Game[Any, Any], seconds: float, seed: int, c: float = 1.4) -> int:
    """Iterations of the classic UCT in `seconds` from the initial position."""
    rng = random.Random(seed)
    root_state = game.initial_state()
    root = ClassicNode(game, root_state)
    iterations = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        node = root
        state = root_state
        while not node.untried and node.children:  # select
            node = node.select_child(c)
            state = game.apply(state, node.move)
        if node.untried:  # expand
            move = rng.choice(node.untried)
            state = game.apply(state, move)
            node = node.add_child(game, move, state)
        state = Game.playout(game, state, rng)  # the generic rollout
        outcome = game.outcome(state)
        up: ClassicNode | None = node
        while up is not None:  # backpropagate
            if up.player_just_moved is None or outcome is None:
                up.update(0.5)
            else:
                up.update(outcome.scores[up.player_just_moved])
            up = up.parent
        iterations += 1
    return iterations


def ours(game: Game[Any, Any], agent: MCTSAgent, seconds: float) -> tuple[float, float, int]:
    """(iterations/s, new nodes/s, searches merged) of one `choose` from the start, fresh tree."""
    agent.finish(None)  # drop the previous tree (in the workers too)
    begin = time.perf_counter()
    agent.choose(game.initial_state(), SearchLimit(time=seconds))
    elapsed = time.perf_counter() - begin
    report = agent.last_report
    assert report is not None
    return report.iterations / elapsed, report.new_nodes / elapsed, report.searches


def openspiel_rate(game: Game[Any, Any], seconds: float, seed: int) -> float | None:
    """Simulations/s of OpenSpiel's C++ MCTSBot from the start (None: not installed)."""
    try:
        import pyspiel

        from player.reference import bridge_for
    except ImportError:
        return None
    try:
        bridge = bridge_for(game)
    except ValueError:
        return None
    spiel_game = pyspiel.load_game(bridge.name)
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.MCTSBot(
        spiel_game, evaluator, 2.0, (1 << 31) - 1, 1000, True, seed, False,
        pyspiel.ChildSelectionPolicy.UCT, seconds,
    )  # fmt: skip
    begin = time.perf_counter()
    root = bot.mcts_search(spiel_game.new_initial_state())
    return float(root.explore_count) / (time.perf_counter() - begin)


def measure(name: str, seconds: float, repeat: int, workers: bool) -> dict[str, float]:
    """Median figures for game `name`: classic, mcts, nodes, fast, C++ and workers=2."""
    game = make_game(name)
    one = MCTSAgent(SearchOptions(time=seconds, c=1.4, seed=1, engine="python"))
    one.start(game, 0)
    # the search alone: no share of the time for connect four's exact root search
    fast = MCTSAgent(
        SearchOptions(time=seconds, c=1.4, seed=1, engine="fast", rollout="random", exact=0.0)
    )
    fast.start(game, 0)
    has_kernel = type(fast.search_tree) is not type(one.search_tree)
    two = (
        MCTSAgent(SearchOptions(time=seconds, c=1.4, workers=2, seed=1, engine="python"))
        if workers
        else None
    )
    runs: dict[str, list[float]] = {
        "classic": [],
        "mcts": [],
        "nodes": [],
        "fast": [],
        "cpp": [],
        "workers": [],
        "late": [],
    }
    try:
        if two is not None:
            two.start(game, 0)
            ours(game, two, min(seconds, 0.2))  # warm-up: the worker has started
        for index in range(repeat):
            runs["classic"].append(classic_uct(game, seconds, seed=index) / seconds)
            rate, nodes, _ = ours(game, one, seconds)
            runs["mcts"].append(rate)
            runs["nodes"].append(nodes)
            if has_kernel:
                runs["fast"].append(ours(game, fast, seconds)[0])
            cpp = openspiel_rate(game, seconds, seed=index + 1)
            if cpp is not None:
                runs["cpp"].append(cpp)
            if two is not None:
                rate, _, searches = ours(game, two, seconds)
                runs["workers"].append(rate)
                runs["late"].append(float(searches < 2))
    finally:
        one.close()
        fast.close()
        if two is not None:
            two.close()
    figures = {key: statistics.median(values) for key, values in runs.items() if values}
    if runs["late"]:
        figures["late"] = sum(runs["late"])
    return figures


def verdict(name: str, rate: float) -> str:
    target = TARGETS.get(name)
    if target is None:
        return "no target"
    return f">= {target:,}: {'PASS' if rate >= target else 'MISS'}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per search (default 1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median; default 3)")
    parser.add_argument(
        "--game",
        action="append",
        choices=sorted(available_games()),
        help="measure only this game (repeatable; default: every registered game)",
    )
    parser.add_argument("--no-workers", action="store_true", help="skip the workers=2 figures")
    args = parser.parse_args(argv)
    if args.seconds <= 0:
        parser.error(f"--seconds must be positive, not {args.seconds}")
    if args.repeat < 1:
        parser.error(f"--repeat must be >= 1, not {args.repeat}")
    names: list[str] = args.game or sorted(available_games())
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))

    print(
        f"MCTS iterations/s from the start, C=1.4, random rollouts, {args.seconds:g}s per search,"
        f" median of {args.repeat}, {platform.python_implementation()} {platform.python_version()}"
    )
    header = f"{'game':<10} {'classic':>8} {'mcts':>9} {'speed-up':>8} {'nodes/s':>9}"
    header += f" {'fast':>10} {'C++':>9} {'fast/C++':>8}"
    if not args.no_workers:
        header += f" {'workers=2':>10} {'ratio':>6}"
    print(header + "  target (one process)")
    for name in names:
        figures = measure(name, args.seconds, args.repeat, not args.no_workers)
        line = (
            f"{name:<10} {figures['classic']:>8,.0f} {figures['mcts']:>9,.0f}"
            f" {figures['mcts'] / figures['classic']:>7.1f}x {figures['nodes']:>9,.0f}"
        )
        fast_rate, cpp_rate = figures.get("fast"), figures.get("cpp")
        line += f" {fast_rate:>10,.0f}" if fast_rate else f" {'-':>10}"
        line += f" {cpp_rate:>9,.0f}" if cpp_rate else f" {'-':>9}"
        line += f" {fast_rate / cpp_rate:>7.1f}x" if fast_rate and cpp_rate else f" {'-':>8}"
        if "workers" in figures:
            ratio = figures["workers"] / figures["mcts"]
            mark = "" if ratio >= WORKERS_TARGET else "*"
            line += f" {figures['workers']:>10,.0f} {ratio:>5.2f}x{mark}"
            if figures["late"]:
                line += f" ({figures['late']:.0f} late)"
        print(f"{line}  {verdict(name, figures['mcts'])}", flush=True)
    if not args.no_workers:
        print(
            f"* below the {WORKERS_TARGET}x workers=2 target (needs two idle cores);"
            " 'late': runs where the worker's answer missed the deadline and was left out"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
