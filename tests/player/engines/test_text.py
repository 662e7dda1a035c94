"""The text protocol against the example C engine (examples/text_engine.c) and by the line."""

from __future__ import annotations

import threading
import time

from games import make_game
from player.agent import MoveInfo, SearchLimit, play_local_game
from player.baselines import MinimaxAgent
from player.engines.agent import EngineAgent
from player.engines.config import EngineConfig
from player.engines.gomocup import GomocupSession
from player.engines.process import EngineProcess
from player.engines.session import Session, Turn, movers_of
from player.engines.text import TextSession, move_info, parse_info
from player.spec import make_agent
from tests.player.engines.helpers import record_sends


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


def test_the_clocks_reach_the_engine_in_its_protocols_terms(engines: dict[str, str]) -> None:
    def sent_by(session_type: type[Session], program: str, game_name: str) -> list[str]:
        game = make_game(game_name, {})
        config = EngineConfig(program=program, args=(), protocol=session_type.protocol)
        process = EngineProcess(config.argv, label="clocks")
        session = session_type(process, config, threading.Event())
        sent = record_sends(process)
        try:
            session.handshake()
            session.new_game(game, 1)
            moves = [next(iter(game.legal_moves(game.initial_state())))]
            movers, state = movers_of(game, moves)
            now = time.monotonic()
            clocks = ((300.0, 298.5), 3.0)
            turn = Turn(game, tuple(moves), movers, 1, state, 14.2, now + 15, now + 20, clocks)
            assert session.think(turn).move in game.legal_moves(state)
        finally:
            process.close(session.quit_line)
        return sent

    text = sent_by(TextSession, engines["text_engine"], "tictactoe")
    assert text[-2:] == ["go movetime 14200 p1time 300000 p2time 298500 inc 3000", "quit"]
    gomocup = sent_by(GomocupSession, engines["pattern_gomoku"], "gomoku")
    assert gomocup[-5:] == [
        "INFO timeout_turn 14200",
        "INFO timeout_match 300000",
        "INFO time_left 298500",
        "TURN 0,0",
        "END",
    ]
