"""The text protocol against the example C engine (examples/text_engine.c) and by the line."""

from __future__ import annotations

from games import make_game
from player.agent import MoveInfo, SearchLimit, play_local_game
from player.baselines import MinimaxAgent
from player.engines.agent import EngineAgent
from player.engines.text import move_info, parse_info
from player.spec import make_agent


def info_of(line: str) -> MoveInfo | None:
    fields: dict[str, object] = {}
    parse_info(line.split(), fields)
    return move_info(fields)


def test_info_lines_keep_score_depth_visits_and_pv() -> None:
    assert info_of("info depth 12 seldepth 20 score 0.625 nodes 35210 time 95 pv d3 e6 f4") == (
        MoveInfo(eval=0.625, depth=12, visits=35210, pv=("d3", "e6", "f4"))
    )
    assert info_of("info visits 10 nodes 99") == MoveInfo(visits=10)  # visits beat nodes
    assert info_of("info string thinking hard") is None
    # out of range or not a number: dropped, not fatal; an unknown key ends the line
    assert info_of("info score 1.5 depth -1 visits x") is None
    assert info_of("info depth 3 currmove e4 score 0.9") == MoveInfo(depth=3)


def test_the_example_engine_plays_whole_games_on_both_seats(engines: dict[str, str]) -> None:
    game = make_game("tictactoe", {})
    agent = make_agent(f"engine:cmd={engines['text_engine']}")
    assert isinstance(agent, EngineAgent)
    try:
        for seat in (0, 1):
            players = [MinimaxAgent(depth=9), MinimaxAgent(depth=9)]
            players[seat] = agent  # type: ignore[call-overload]
            result = play_local_game(game, players, SearchLimit(time=1))
            assert len(result.moves) >= 5  # legal moves to the end (play_local_game checks)
        assert agent.session is not None and agent.session.engine_name == "text-example"
        assert agent.session.about == {"name": "text-example", "author": "MCTS Arena"}
        info = agent.move_info()
        assert (
            info is not None and info.depth == 1 and info.eval in (0.5, 1.0) and len(info.pv) == 1
        )
    finally:
        agent.close()
