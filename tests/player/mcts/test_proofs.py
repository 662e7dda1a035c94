"""A proven root plays a move that keeps its proof, with tree reuse on and off.

The property: once the player reports its root proven won, it wins the game;
proven drawn, it does not lose. Played by the ``mcts`` agent against a
scripted opponent (the first legal move, as a trivial engine plays the
leftmost column) in every built-in game, on both seats. Such an opponent
hands over forced wins, which is how a reused root proven won with no child
carrying the proof once let connect four's player throw a won game away.
"""

from __future__ import annotations

from typing import Any

import pytest

from games import Game, make_game
from player.agent import Agent, SearchLimit, play_local_game
from player.mcts import MCTSAgent
from player.spec import make_agent

ITERATIONS = {"tictactoe": 300, "connect4": 3000, "gomoku": 400, "reversi": 300, "ultimate": 500}


class FirstLegal(Agent):
    """Always the first legal move (the leftmost free column in connect four)."""

    name = "first-legal"

    def choose(self, state: Any, limit: SearchLimit) -> Any:
        assert self.game is not None
        return self.game.legal_moves(state)[0]


def play(game: Game[Any, Any], spec: str, seat: int) -> tuple[float, list[tuple[float, Any, bool]]]:
    """Our score and, per move of ours, (root proof, move, whether the move kept it)."""
    agent = make_agent(spec)
    assert isinstance(agent, MCTSAgent)
    claims: list[tuple[float, Any, bool]] = []

    def on_move(mover: int, state: Any, move: Any) -> None:
        report = agent.last_report
        if mover != seat or report is None or report.move != move:
            return
        if report.root_proven is not None and report.root_proven > 0.0:
            kept = any(s.move == move and s.proven == report.root_proven for s in report.stats)
            claims.append((report.root_proven, move, kept))

    agents: list[Agent] = [FirstLegal(), FirstLegal()]
    agents[seat] = agent
    try:
        result = play_local_game(game, agents, on_move=on_move)
    finally:
        agent.close()
    return result.outcome.scores[seat], claims


@pytest.mark.parametrize("reuse", ["true", "false"])
@pytest.mark.parametrize("name", sorted(ITERATIONS))
def test_a_proven_root_keeps_its_proof(name: str, reuse: str) -> None:
    game = make_game(name)
    proofs = 0
    for seed in range(3):
        for seat in (0, 1):
            spec = f"mcts:time=none,iterations={ITERATIONS[name]},reuse={reuse},seed={seed}"
            score, claims = play(game, spec, seat)
            for proven, move, kept in claims:
                assert kept, f"{name} seed {seed} seat {seat}: {move!r} is not the proof's move"
                assert score >= proven, f"{name} seed {seed} seat {seat}: proven {proven}"
            proofs += len(claims)
    assert proofs > 0  # the property was put to the test


def test_the_python_engine_keeps_its_proofs_too() -> None:
    game = make_game("connect4")
    for seed in range(3):
        for seat in (0, 1):
            spec = f"mcts:engine=python,time=none,iterations=2000,seed={seed}"
            score, claims = play(game, spec, seat)
            assert claims and all(kept for _, _, kept in claims)
            assert score == 1.0


def test_the_reported_game_is_won() -> None:
    """Connect four, the player first: after 3 0 4 0 2 0 the reused root is proven won
    with no child carrying the proof. It used to play column 3 and lose."""
    game = make_game("connect4")
    score, claims = play(game, "mcts:time=none,iterations=3000,seed=0", 0)
    assert score == 1.0
    assert len(claims) >= 2 and all(kept for _, _, kept in claims)
