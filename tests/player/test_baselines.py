"""The baseline agents: random, greedy (one ply) and minimax (alpha-beta)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from games import Game, make_game
from player.agent import Agent, SearchLimit, play_local_game
from player.baselines import GreedyAgent, MinimaxAgent, RandomAgent, winning_moves
from player.spec import make_agent

LIMIT = SearchLimit(time=1.0)


def position(game: Game[Any, Any], *moves: str) -> Any:
    state = game.initial_state()
    for text in moves:
        state = game.play(state, game.parse_move(text))
    return state


def started(agent: Agent, game: Game[Any, Any], seat: int) -> Agent:
    agent.start(game, seat)
    return agent


def test_random_is_legal_and_seeded() -> None:
    game = make_game("connect4")
    state = position(game, "a", "a", "a", "a", "a", "a")  # column a is full
    first = started(RandomAgent(seed=3), game, 0)
    second = started(RandomAgent(seed=3), game, 0)
    picks = [first.choose(state, LIMIT) for _ in range(50)]
    assert picks == [second.choose(state, LIMIT) for _ in range(50)]
    assert set(picks) <= set(game.legal_moves(state)) and len(set(picks)) > 3


def test_winning_moves() -> None:
    game = make_game("tictactoe")
    state = position(game, "a1", "a2", "b1", "b2")
    assert [game.format_move(m) for m in winning_moves(game, state)] == ["c1"]
    after = game.apply(state, game.parse_move("c3"))
    assert winning_moves(game, after) == [game.parse_move("c2")]


def test_greedy_takes_a_win_and_blocks_a_threat() -> None:
    game = make_game("tictactoe")
    win = position(game, "a1", "a2", "b1", "b2")
    for seed in range(10):
        assert game.format_move(started(GreedyAgent(seed=seed), game, 0).choose(win, LIMIT)) == "c1"
    threat = position(game, "a1", "b2", "b1")
    for seed in range(10):
        agent = started(GreedyAgent(seed=seed), game, 1)
        assert game.format_move(agent.choose(threat, LIMIT)) == "c1"


def test_greedy_in_connect4_blocks_and_beats_random() -> None:
    game = make_game("connect4")
    threat = position(game, "a", "g", "b", "g", "c")  # X threatens d1
    assert started(GreedyAgent(seed=1), game, 1).choose(threat, LIMIT) == game.parse_move("d")
    score = 0.0
    for index in range(6):
        greedy, rand = GreedyAgent(seed=index), RandomAgent(seed=100 + index)
        seat = index % 2
        record = play_local_game(game, [greedy, rand] if seat == 0 else [rand, greedy])
        score += record.outcome.scores[seat]
    assert score >= 5


def test_minimax_finds_the_fork_and_blocks() -> None:
    game = make_game("tictactoe")
    fork = position(game, "a2", "b2", "b1", "c2")
    assert game.format_move(started(MinimaxAgent(seed=1), game, 0).choose(fork, LIMIT)) == "a1"
    threat = position(game, "a1", "b2", "b1")
    assert game.format_move(started(MinimaxAgent(seed=1), game, 1).choose(threat, LIMIT)) == "c1"


def test_minimax_takes_an_immediate_win() -> None:
    game = make_game("tictactoe")
    # X wins at once on c1; anything else lets O win on c2.
    state = position(game, "a1", "a2", "b1", "b2", "c3", "a3")
    moves = {
        game.format_move(started(MinimaxAgent(seed=s), game, 0).choose(state, LIMIT))
        for s in range(8)
    }
    assert moves == {"c1"}


def test_minimax_draws_itself_and_never_loses_to_random() -> None:
    game = make_game("tictactoe")
    for index in range(4):
        record = play_local_game(game, [MinimaxAgent(seed=index), MinimaxAgent(seed=index + 50)])
        assert record.outcome.winner is None
    for index in range(10):
        seat = index % 2
        agents: list[Agent] = [MinimaxAgent(seed=index), RandomAgent(seed=index)]
        record = play_local_game(game, agents if seat == 0 else agents[::-1])
        assert record.outcome.scores[seat] >= 0.5


def test_minimax_respects_its_time_limit() -> None:
    game = make_game("connect4")
    agent = started(make_agent("minimax:depth=40,time=0.1,seed=1"), game, 0)
    assert isinstance(agent, MinimaxAgent)
    begin = time.perf_counter()
    move = agent.choose(game.initial_state(), SearchLimit(time=5.0))
    assert time.perf_counter() - begin < 0.3
    assert move in game.legal_moves(game.initial_state())
    assert 1 <= agent.last_depth < 40


def test_minimax_depth_limit_without_time() -> None:
    game = make_game("connect4")
    agent = MinimaxAgent(depth=2, seed=1)
    agent.start(game, 0)
    agent.choose(game.initial_state(), SearchLimit(iterations=1))
    assert agent.last_depth == 2
    # X has three in a row at the bottom: depth 2 sees the win.
    state = position(game, "a", "a", "b", "b", "c", "c")
    assert agent.choose(state, SearchLimit(iterations=1)) == game.parse_move("d")


def test_minimax_rejects_more_than_two_seats() -> None:
    from tests.player.test_mcts import RaceTo10

    with pytest.raises(ValueError, match="two-seat games only"):
        MinimaxAgent().start(RaceTo10(), 0)


def test_agents_require_start() -> None:
    with pytest.raises(RuntimeError, match=r"start\(\) must be called"):
        RandomAgent().choose((0, 0, 0, -1), LIMIT)


def test_seed_match_makes_agents_reproducible() -> None:
    from games import make_game
    from player.agent import SearchLimit
    from player.spec import make_agent

    game = make_game("connect4")
    state = game.initial_state()
    for spec in ["random", "greedy:seed=3", "mcts:time=none,iterations=300"]:
        moves = []
        for _ in range(2):
            agent = make_agent(spec)
            agent.seed_match(12345)
            agent.start(game, 0)
            moves.append([agent.choose(state, SearchLimit(iterations=300)) for _ in range(3)])
            agent.close()
        assert moves[0] == moves[1], spec
