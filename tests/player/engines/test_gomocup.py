"""The Gomocup protocol against a pattern-scoring C engine (tests/engines/pattern_gomoku.c)."""

from __future__ import annotations

import threading
import time

import pytest

from games import make_game
from player.agent import SearchLimit, play_local_game
from player.baselines import RandomAgent
from player.engines.agent import EngineAgent
from player.engines.config import EngineConfig
from player.engines.gomocup import GomocupSession
from player.engines.process import EngineProcess
from player.engines.session import Turn, movers_of
from player.errors import AgentError
from player.spec import make_agent
from tests.player.engines.helpers import record_sends

GOMOKU = make_game("gomoku", {})


def pattern(engines: dict[str, str], *extra: str) -> EngineAgent:
    agent = make_agent(
        f"engine:cmd={engines['pattern_gomoku']},protocol=gomocup" + "".join(f",{e}" for e in extra)
    )
    assert isinstance(agent, EngineAgent)
    return agent


def test_it_beats_random_on_both_seats_in_one_process(engines: dict[str, str]) -> None:
    agent = pattern(engines)
    try:
        pids = []
        for seat in (0, 1):
            players = [RandomAgent(seed=seat), RandomAgent(seed=seat)]
            players[seat] = agent  # type: ignore[call-overload]
            result = play_local_game(GOMOKU, players, SearchLimit(time=0.5))
            assert result.outcome.winner == seat
            assert agent.session is not None
            pids.append(agent.session.process.pid)
            assert agent.session.engine_name == "pattern"
    finally:
        agent.close()
    assert pids[0] == pids[1]  # RESTART between games, no new process


def test_a_board_out_of_step_is_sent_whole(engines: dict[str, str]) -> None:
    config = EngineConfig(program=engines["pattern_gomoku"], args=(), protocol="gomocup")
    process = EngineProcess(config.argv, label="pattern")
    session = GomocupSession(process, config, threading.Event())
    sent = record_sends(process)
    try:
        session.handshake()
        session.new_game(GOMOKU, 1)
        # black has an open four on row 8 (h8 i8 j8 k8 with g8 and l8 free): white must block
        moves = [GOMOKU.parse_move(square) for square in ("h8", "a1", "i8", "a2", "j8", "a3", "k8")]
        movers, state = movers_of(GOMOKU, moves)
        now = time.monotonic()
        answer = session.think(Turn(GOMOKU, tuple(moves), movers, 1, state, 1.0, now + 1, now + 5))
    finally:
        process.close(session.quit_line)
    assert sent[:2] == ["START 15", "ABOUT"]
    board = sent[sent.index("BOARD") : sent.index("DONE") + 1]
    assert board[1:3] == ["7,7,2", "0,14,1"]  # h8 is the opponent's; a1 (bottom left) its own
    assert len(board) == 9
    assert GOMOKU.format_move(answer.move) in ("g8", "l8")


def test_gomocup_refuses_a_game_it_cannot_play(engines: dict[str, str]) -> None:
    agent = pattern(engines)
    with pytest.raises(AgentError, match=r"protocol gomocup cannot play connect4"):
        agent.start(make_game("connect4", {}), 0)
    with pytest.raises(AgentError, match=r"it plays five in a row"):
        agent.start(make_game("tictactoe", {}), 0)
    agent.close()


def test_prepare_starts_the_brain_and_the_first_game_needs_no_restart(
    engines: dict[str, str],
) -> None:
    agent = pattern(engines)
    try:
        agent.prepare(GOMOKU)  # what the runtime does before it seeks
        session = agent.session
        assert session is not None and session.engine_name == "pattern"
        sent = record_sends(session.process)
        agent.prepare(GOMOKU)  # ready: nothing more
        assert sent == []
        for seat in (0, 1):
            players = [RandomAgent(seed=seat), RandomAgent(seed=seat)]
            players[seat] = agent  # type: ignore[call-overload]
            play_local_game(GOMOKU, players, SearchLimit(time=0.5))
        assert agent.session is session
        assert not any(line.startswith(("START", "ABOUT")) for line in sent)
        assert [line for line in sent if line == "RESTART"] == ["RESTART"]  # the second game
    finally:
        agent.close()
