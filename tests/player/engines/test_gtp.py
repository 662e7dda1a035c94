"""GTP against real programs: Debian's gtp-rhino (Othello) and a small C engine for m,n,k boards."""

from __future__ import annotations

import random
import threading
import time
from typing import Any

import pytest

from games import make_game
from games.base import Game
from player.agent import SearchLimit
from player.engines.agent import EngineAgent
from player.engines.config import EngineConfig
from player.engines.gtp import GtpSession
from player.engines.process import EngineProcess
from player.engines.session import Turn, movers_of
from player.errors import ResignMatch
from player.spec import make_agent
from tests.player.engines.helpers import record_sends


def session_for(program: str, *args: str) -> GtpSession:
    config = EngineConfig(program=program, args=args, protocol="gtp")
    process = EngineProcess(config.argv, label="gtp")
    session = GtpSession(process, config, threading.Event())
    session.handshake()
    return session


def turn(game: Game[Any, Any], moves: list[Any], seconds: float = 1.0) -> Turn:
    movers, state = movers_of(game, moves)
    now = time.monotonic()
    return Turn(
        game, tuple(moves), movers, game.to_move(state), state, seconds, now + seconds, now + 10
    )


def board_rows(shown: str, size: int) -> list[list[str]]:
    """The rows of a showboard answer: the lines that start with a row number."""
    rows = []
    for line in shown.splitlines():
        words = line.split()
        if words and words[0].isdigit() and len(words) >= size + 1:
            rows.append([word.upper() for word in words[1 : size + 1]])
    return rows


def reversi_rows(state: Any, size: int) -> list[list[str]]:
    black, white = state[0], state[1]
    return [
        [
            "X" if black >> (r * size + c) & 1 else "O" if white >> (r * size + c) & 1 else "."
            for c in range(size)
        ]
        for r in range(size)
    ]


def test_reversi_squares_and_passes_agree_with_gtp_rhinos_board(rhino: str) -> None:
    game = make_game("reversi", {})
    session = session_for(rhino, "-l", "1")
    try:
        assert session.engine_name == "GTP GRhino" and "genmove" in session.commands
        session.new_game(game, 0)
        rng = random.Random(7)
        moves: list[Any] = []
        state = game.initial_state()
        passes = 0
        while game.outcome(state) is None:
            legal = list(game.legal_moves(state))
            if rng.random() < 0.5:  # rhino chooses, through genmove
                answer = session.think(turn(game, moves))
                move = answer.move
                assert move in legal, (answer.text, [game.format_move(m) for m in legal])
            else:  # we choose: sent with `play` before rhino's next genmove
                move = rng.choice(legal)
            passes += move == -1
            moves.append(move)
            state = game.play(state, move)
            if len(moves) % 7 == 0 or game.outcome(state) is not None:
                session.sync(moves, movers_of(game, moves)[0])  # rhino's board up to date
                shown = session.expect("showboard")
                assert board_rows(shown, 8) == reversi_rows(state, 8), shown
    finally:
        session.process.close(session.quit_line)
    assert len(moves) > 50


def test_gtp_timing_commands_reach_the_engine(rhino: str) -> None:
    game = make_game("reversi", {})
    session = session_for(rhino, "-l", "1")
    sent = record_sends(session.process)
    try:
        session.new_game(game, 1)
        first = session.think(turn(game, [game.parse_move("d3")], seconds=2.5))
        assert first.move in game.legal_moves(
            game.play(game.initial_state(), game.parse_move("d3"))
        )
    finally:
        session.process.close(session.quit_line)
    assert sent[:5] == [
        "boardsize 8",
        "clear_board",
        "komi 0",
        "play black d3",
        "time_settings 0 2 1",
    ]
    assert sent[5] == "genmove white"


def mnk_rows(game: Game[Any, Any], state: Any) -> list[list[str]]:
    """Our m,n,k board as showboard prints it: top row first, X for seat 0."""
    width, height = game.options["width"], game.options["height"]
    return [
        ["X" if state[0] >> (r * width + c) & 1 else "O" if state[1] >> (r * width + c) & 1 else "."
         for c in range(width)]
        for r in range(height)
    ]  # fmt: skip


def test_gomoku_vertices_follow_gos_convention(engines: dict[str, str]) -> None:
    game = make_game("gomoku", {})
    session = session_for(engines["gtp_mnk"])
    try:
        assert session.engine_name == "gtp-mnk"
        session.new_game(game, 0)
        rng = random.Random(3)
        moves: list[Any] = []
        state = game.initial_state()
        while game.outcome(state) is None and len(moves) < 40:
            if len(moves) % 3 == 2:
                move = session.think(turn(game, moves)).move
            else:
                move = rng.choice(list(game.legal_moves(state)))
            assert move in game.legal_moves(state)
            moves.append(move)
            state = game.play(state, move)
        session.sync(moves, movers_of(game, moves)[0])
        assert board_rows(session.expect("showboard"), 15) == mnk_rows(game, state)
        # Go's columns skip I: our ninth column ('i') is GTP's J
        assert session.mapping is not None
        assert session.mapping.vertex(game.parse_move("i1")) == "J1"
        assert session.mapping.vertex(game.parse_move("h15")) == "H15"
    finally:
        session.process.close(session.quit_line)


def test_gtp_garbage_and_illegal_answers_are_faults(engines: dict[str, str]) -> None:
    game = make_game("tictactoe", {})
    for flag, reason in (
        ("--garbage-at", r"engine answered 'genmove black' with 'banana', not '= …' or '\? …'"),
        ("--illegal-at", r"engine played an illegal move: '[A-C][1-3]'"),
    ):
        agent = make_agent(f"engine:cmd={engines['gtp_mnk']},args=-k 3 {flag} 2,protocol=gtp")
        assert isinstance(agent, EngineAgent)
        agent.start(game, 0)
        state = game.initial_state()
        agent.sync(state, ())
        try:
            first = agent.choose(state, SearchLimit(time=1))
            after = game.play(state, first)
            agent.observe(state, first, after)
            reply = next(iter(game.legal_moves(after)))
            state = game.play(after, reply)
            agent.observe(after, reply, state)
            with pytest.raises(ResignMatch, match=reason):
                agent.choose(state, SearchLimit(time=1))
        finally:
            agent.close()


def go_rows(game: Game[Any, Any], state: Any) -> list[list[str]]:
    """Our Go board as GNU Go's showboard prints it: top row first, X for Black."""
    return [list(row) for row in game.encode_state(state)["board"]]


def test_go_vertices_passes_and_komi_agree_with_gnu_gos_board(gnugo: str) -> None:
    game = make_game("go", {"size": 9, "komi": 6.5})
    session = session_for(gnugo, "--mode", "gtp", "--level", "0")
    sent = record_sends(session.process)
    try:
        assert session.engine_name == "GNU Go" and "genmove" in session.commands
        session.new_game(game, 1)
        assert sent[:3] == ["boardsize 9", "clear_board", "komi 6.5"]
        assert session.expect("get_komi") == "6.5"
        rng = random.Random(11)
        moves: list[Any] = []
        state = game.initial_state()
        passes = 0
        while game.outcome(state) is None and len(moves) < 60:
            if len(moves) % 2 == 1:  # GNU Go chooses White's moves
                answer = session.think(turn(game, moves))
                move = answer.move
                assert move in game.legal_moves(state), answer.text
            else:  # Black: random, a pass one move in five
                legal = list(game.legal_moves(state))
                move = -1 if rng.random() < 0.2 else rng.choice(legal)
            passes += move == -1
            moves.append(move)
            state = game.play(state, move)
            session.sync(moves, movers_of(game, moves)[0])
            shown = session.expect("showboard")  # '+' on star points, '(X)' the last stone
            plain = shown.replace("+", ".").replace("(", " ").replace(")", " ")
            assert board_rows(plain, 9) == go_rows(game, state), shown
        # our passes went to GNU Go as moves: its move history holds them
        history = session.expect("move_history").lower().split()
        assert history.count("pass") == passes > 0
        assert "play black pass" in sent
        assert session.mapping is not None and session.mapping.parse_vertex("PASS") == -1
        assert session.mapping.vertex(game.parse_move("J9")) == "J9"
    finally:
        session.process.close(session.quit_line)
