"""Play a short match between two agent specs, in-process, and print A's score with a 95% interval.

Both agents get the same fixed time per move (``--time``, which replaces the
specs' own budgets); seats alternate game by game so each plays both sides
equally; no network is involved. The interval is the normal approximation
over per-game scores (1, 1/2, 0), also shown as an Elo difference. Use it to
check that a feature helps at equal time, e.g.::

    python -m benchmarks.strength "mcts:reuse=true" "mcts:reuse=false" --game connect4
    python -m benchmarks.strength "mcts:solver=true" "mcts:solver=false" --games 40

A spec without ``seed=`` gets one derived from ``--seed``, so runs repeat
(up to timing: a time budget makes the searches' lengths vary).
"""

from __future__ import annotations

import argparse
import logging
import math
import platform
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from games import available_games, make_game, parse_options
from player.agent import Agent, SearchLimit, play_local_game
from player.mcts import MCTSAgent
from player.spec import make_agent, parse_agent_spec


@dataclass
class Side:
    """One contestant: its agent and running totals."""

    spec: str
    agent: Agent
    scores: list[float] = field(default_factory=list)
    moves: int = 0
    iterations: int = 0
    root_visits: int = 0


def seeded(spec: str, seed: int) -> str:
    """`spec` with ``seed=SEED`` added when it has none."""
    _, options = parse_agent_spec(spec)
    if "seed" in options:
        return spec
    return f"{spec}{',' if ':' in spec else ':'}seed={seed}"


def interval(scores: Sequence[float]) -> tuple[float, float, float]:
    """Mean score and its 95% normal-approximation interval, clamped to [0, 1]."""
    mean = statistics.fmean(scores)
    if len(scores) < 2:
        return mean, 0.0, 1.0
    half = 1.96 * statistics.stdev(scores) / math.sqrt(len(scores))
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def elo(score: float) -> float:
    """Elo difference implied by an expected score (±inf at 0 and 1)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("spec_a", help="agent spec A, e.g. 'mcts:reuse=true'")
    parser.add_argument("spec_b", help="agent spec B, e.g. 'mcts:reuse=false'")
    parser.add_argument("--game", default="connect4", choices=sorted(available_games()))
    parser.add_argument("--options", default="", help="game options, key=value,...")
    parser.add_argument("--games", type=int, default=20, help="games to play (default 20)")
    parser.add_argument("--time", type=float, default=0.1, help="seconds per move (default 0.1)")
    parser.add_argument("--seed", type=int, default=1, help="base seed for specs without one")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error(f"--games must be >= 1, not {args.games}")
    if args.time <= 0:
        parser.error(f"--time must be positive, not {args.time}")
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    try:
        game = make_game(args.game, parse_options(args.options))
        sides = [
            Side(args.spec_a, make_agent(seeded(args.spec_a, args.seed))),
            Side(args.spec_b, make_agent(seeded(args.spec_b, args.seed + 1))),
        ]
    except ValueError as exc:
        parser.error(str(exc))
    limit = SearchLimit(time=args.time)
    print(
        f"{game.describe()}: A={args.spec_a!r} vs B={args.spec_b!r}, {args.games} games,"
        f" {args.time:g}s/move, {platform.python_implementation()} {platform.python_version()}"
    )
    begin = time.perf_counter()
    try:
        for index in range(args.games):
            order = sides if index % 2 == 0 else sides[::-1]

            def count(seat: int, state: Any, move: Any, order: list[Side] = order) -> None:
                side = order[seat]
                side.moves += 1
                if isinstance(side.agent, MCTSAgent) and side.agent.last_report is not None:
                    side.iterations += side.agent.last_report.iterations
                    side.root_visits += side.agent.last_report.root_visits

            record = play_local_game(game, [s.agent for s in order], limit, on_move=count)
            for seat, side in enumerate(order):
                side.scores.append(record.outcome.scores[seat])
            a_seat = order.index(sides[0])
            print(
                f"game {index + 1:>3}: A as {game.seat_names[a_seat]:<6} {record.outcome.result():>7}"
                f" in {len(record.moves):>3} plies   A {sum(sides[0].scores):g}"
                f" - {sum(sides[1].scores):g} B",
                flush=True,
            )
    finally:
        for side in sides:
            side.agent.close()
    a = sides[0].scores
    mean, low, high = interval(a)
    wins, draws = sum(s == 1.0 for s in a), sum(s == 0.5 for s in a)
    print(
        f"A scores {sum(a):g}/{len(a)} = {mean:.1%} (95% interval {low:.1%} .. {high:.1%});"
        f" +{wins} ={draws} -{len(a) - wins - draws}"
    )
    print(
        f"Elo difference A-B: {elo(mean):+.0f} (95% interval {elo(low):+.0f} .. {elo(high):+.0f})"
    )
    for label, side in zip("AB", sides, strict=True):
        if side.iterations:
            moves = max(side.moves, 1)
            print(
                f"{label}: {side.iterations / moves:,.0f} iterations per move,"
                f" {side.root_visits / moves:,.0f} root visits (incl. reused)"
            )
    print(f"{time.perf_counter() - begin:.0f}s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
