"""The human agent with scripted standard input."""

from __future__ import annotations

import io
import threading
from typing import Any, TextIO, cast

import pytest

from games import Outcome, Termination, make_game
from player.agent import SearchLimit
from player.client import ResignMatch
from player.human import HumanAgent
from player.spec import make_agent

TTT = make_game("tictactoe")


def play(*moves: str) -> Any:
    state = TTT.initial_state()
    for text in moves:
        state = TTT.play(state, TTT.parse_move(text))
    return state


def human(lines: str, **kwargs: Any) -> tuple[HumanAgent, io.StringIO]:
    out = io.StringIO()
    agent = HumanAgent(stdin=io.StringIO(lines), stdout=out, **kwargs)
    return agent, out


class BlockedInput:
    """An input stream nobody types into (until `released` is set)."""

    def __init__(self) -> None:
        self.released = threading.Event()

    def readline(self) -> str:
        self.released.wait(10)
        return ""


def test_reprompts_on_bad_notation_and_illegal_moves() -> None:
    agent, out = human("\nz9\na1\nb2\n")
    agent.start(TTT, 1)
    state = play("a1")
    move = agent.choose(state, SearchLimit(time=30.0))
    assert move == TTT.parse_move("b2")
    text = out.getvalue()
    assert TTT.render(state) in text  # the board was shown
    assert "you play O ===" in text
    assert "invalid move: 'z9' is off the board" in text
    assert "illegal move: 'a1' is not legal in this position" in text
    assert text.count("move> ") == 4  # blank line, z9, a1, b2: the turn was never lost
    assert "s left] move> " in text  # the prompt shows the time left


def test_help_and_moves_list_the_legal_moves() -> None:
    agent, out = human("help\nmoves\nboard\nc3\n")
    agent.start(TTT, 0)
    state = play("a1", "b2")
    assert agent.choose(state, SearchLimit(time=30.0)) == TTT.parse_move("c3")
    text = out.getvalue()
    assert "resign   give up this match" in text
    assert "legal moves: " + " ".join(TTT.format_move(m) for m in TTT.legal_moves(state)) in text
    assert text.count(TTT.render(state)) == 2  # shown, then again on 'board'


def test_observe_shows_every_move_the_board_and_whose_turn() -> None:
    agent, out = human("c3\n")
    agent.start(TTT, 0)
    before = play("a1")
    after = TTT.apply(before, TTT.parse_move("b2"))
    agent.observe(before, TTT.parse_move("b2"), after)
    text = out.getvalue()
    assert "O played b2" in text
    assert TTT.render(after) in text
    assert "X (you) to move" in text
    # the next prompt mentions the last move and does not print the same board twice
    agent.choose(after, SearchLimit(time=30.0))
    assert out.getvalue().count(TTT.render(after)) == 1
    assert "last move: O played b2" in out.getvalue()


def test_resign_and_quit_raise_resign_match() -> None:
    agent, _ = human("resign\nquit\n")
    agent.start(TTT, 0)
    with pytest.raises(ResignMatch) as resigned:
        agent.choose(TTT.initial_state(), SearchLimit(time=30.0))
    assert not resigned.value.stop
    with pytest.raises(ResignMatch) as quit_:
        agent.choose(TTT.initial_state(), SearchLimit(time=30.0))
    assert quit_.value.stop


def test_end_of_input_resigns_and_stops() -> None:
    agent, _ = human("")
    agent.start(TTT, 0)
    with pytest.raises(ResignMatch, match="standard input closed") as closed:
        agent.choose(TTT.initial_state(), SearchLimit(time=30.0))
    assert closed.value.stop
    with pytest.raises(ResignMatch):  # and stays closed
        agent.choose(TTT.initial_state(), SearchLimit(time=30.0))


def test_gives_up_after_the_time_limit_and_grace() -> None:
    stream = BlockedInput()
    out = io.StringIO()
    agent = HumanAgent(stdin=cast(TextIO, stream), stdout=out, grace=0.0)
    agent.start(TTT, 0)
    try:
        with pytest.raises(ResignMatch, match="out of time"):
            agent.choose(TTT.initial_state(), SearchLimit(time=0.05))
    finally:
        stream.released.set()
    assert "time is up" in out.getvalue()


def test_finish_tells_the_result() -> None:
    agent, out = human("")
    agent.start(TTT, 1)
    agent.finish(Outcome.win(1, 2, Termination.LINE))
    agent.finish(Outcome.draw(2, Termination.BOARD_FULL))
    agent.finish(None)
    text = out.getvalue()
    assert "game over: you win (0-1, line)" in text
    assert "game over: draw (1/2-1/2, board_full)" in text
    assert "result unknown" in text


def test_registered_as_human_with_hints() -> None:
    agent = make_agent("human:hints=true")
    assert isinstance(agent, HumanAgent) and agent.hints and agent.name == "human:hints=true"
    with pytest.raises(ValueError, match="unknown option 'x' for agent 'human'"):
        make_agent("human:x=1")


def test_hints_list_the_moves_at_each_prompt() -> None:
    agent, out = human("b2\n", hints=True)
    agent.start(TTT, 0)
    agent.choose(TTT.initial_state(), SearchLimit(time=30.0))
    assert "legal moves: a3 b3 c3 a2 b2 c2 a1 b1 c1" in out.getvalue()


def test_negative_grace_is_rejected() -> None:
    with pytest.raises(ValueError, match="grace must be >= 0"):
        HumanAgent(grace=-1)
