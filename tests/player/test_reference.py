"""The ``openspiel`` reference agent (skipped without the optional ``reference`` extra)."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("pyspiel")

from games import make_game
from player.agent import SearchLimit, play_local_game
from player.reference import OpenSpielAgent, bridge_for, legal_actions_agree
from player.spec import available_agents, make_agent

GAMES = ["connect4", "tictactoe", "reversi", "ultimate", "gomoku"]


@pytest.mark.parametrize("name", GAMES)
def test_random_games_keep_both_rule_sets_in_step(name: str) -> None:
    game = make_game(name)
    rng = random.Random(5)
    for _ in range(10):
        state, moves = game.initial_state(), []
        while game.outcome(state) is None:
            move = rng.choice(list(game.legal_moves(state)))
            moves.append(move)
            state = game.apply(state, move)
        assert legal_actions_agree(game, moves)


@pytest.mark.parametrize("name", GAMES)
def test_plays_legal_moves_from_the_history(name: str) -> None:
    game = make_game(name)
    agent = make_agent("openspiel:time=0.01,seed=3")
    assert isinstance(agent, OpenSpielAgent)
    record = play_local_game(game, [agent, make_agent("random:seed=4")], SearchLimit(time=0.01))
    assert record.outcome is not None and agent.history == list(record.moves)
    assert agent.last_simulations >= 0


def test_is_an_entry_point_kind_and_refuses_games_openspiel_lacks() -> None:
    assert "openspiel" in available_agents()
    with pytest.raises(ValueError, match="no counterpart"):
        bridge_for(make_game("gomoku", {"width": 9, "height": 9}))
    with pytest.raises(ValueError, match="no counterpart"):
        bridge_for(make_game("tictactoe", {"width": 4}))
