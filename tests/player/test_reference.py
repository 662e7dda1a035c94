"""The ``openspiel`` reference agent (skipped without the optional ``reference`` extra)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("pyspiel")

from games import make_game
from games.base import Game
from player.agent import SearchLimit, play_local_game
from player.reference import OpenSpielAgent, bridge_for, legal_actions_agree
from player.spec import available_agents, make_agent

GAMES = ["connect4", "tictactoe", "reversi", "ultimate", "gomoku"]


def _random_games(game: Game[Any, Any], rng: random.Random, count: int) -> list[list[Any]]:
    """The moves of `count` games of uniformly random legal moves to their end."""
    games = []
    for _ in range(count):
        state, moves = game.initial_state(), []
        while game.outcome(state) is None:
            move = rng.choice(list(game.legal_moves(state)))
            moves.append(move)
            state = game.apply(state, move)
        games.append(moves)
    return games


@pytest.mark.parametrize("name", GAMES)
def test_random_games_keep_both_rule_sets_in_step(name: str) -> None:
    game = make_game(name)
    for moves in _random_games(game, random.Random(5), 10):
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


@pytest.mark.parametrize("size", [5, 9])
def test_go_random_games_keep_both_rule_sets_in_step(size: int) -> None:
    game = make_game("go", {"size": size, "komi": 7})
    for moves in _random_games(game, random.Random(size), 4):
        assert legal_actions_agree(game, moves)


def test_go_plays_a_whole_game_at_its_komi() -> None:
    game = make_game("go", {"size": 5, "komi": 0.5})
    agent = make_agent("openspiel:time=0.005,seed=3")
    assert isinstance(agent, OpenSpielAgent)
    record = play_local_game(game, [make_agent("random:seed=4"), agent], SearchLimit(time=0.005))
    assert record.outcome is not None and agent.history == list(record.moves)
    assert agent.spiel_game.get_parameters()["komi"] == 0.5


@dataclass
class _Child:
    action: int
    explore_count: int


@dataclass
class _Root:
    children: list[_Child]

    def best_child(self) -> _Child:
        return max(self.children, key=lambda child: child.explore_count)


def test_go_never_chooses_a_move_our_superko_refuses() -> None:
    game = make_game("go", {"size": 5})
    agent = OpenSpielAgent(time=0.01)
    agent.start(game, 0)
    state = game.initial_state()
    # OpenSpiel's favourite is A1 (action 0); say our rules refuse it: the next best stands
    root = _Root([_Child(0, 90), _Child(1, 5), _Child(24, 7)])
    ours = [move for move in game.legal_moves(state) if game.format_move(move) != "A1"]
    assert (
        game.format_move(agent.bridge.move([agent._best_legal(root, ours, state, [])], state))
        == "E5"
    )
