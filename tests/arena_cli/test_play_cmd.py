"""`arena play`: time controls from the flags, what a waiting player is told, honest labels."""

from __future__ import annotations

import pytest

from arena_cli.main import build_parser
from arena_cli.play_run import PlaySettings, resolve
from arena_cli.play_vs import opponent_command, seeking_text
from protocol.messages import Clock, OpenSeek, Seeking
from tests.arena_cli.cli import run


def settings(*argv: str) -> PlaySettings:
    return resolve(build_parser("play").parse_args(["play", *argv]))


def test_time_controls_from_the_flags() -> None:
    assert settings("connect4", "human").config.clock == Clock(300.0, 3.0)  # people: 5+3
    assert settings("connect4", "human", "--move-time", "30").config.clock is None
    assert settings("connect4", "mcts").config.clock is None  # engines: the server's default
    assert settings("connect4", "mcts", "--tc", "1+0.5").config.clock == Clock(60.0, 0.5)
    flexible = settings("connect4", "mcts", "--tc", "any").config
    assert flexible.any_time and flexible.clock is None


def test_the_vs_opponent_plays_the_same_time_control() -> None:
    chosen = settings("connect4", "human", "--vs", "mcts:time=1", "-o", "width=8")
    assert chosen.embedded and chosen.vs == "mcts:time=1"
    command = opponent_command(chosen, "127.0.0.1", 5555)
    assert command[command.index("--tc") + 1] == "5+3"
    assert command[command.index("--port") + 1] == "5555"
    assert "-o" in command and "width=8" in command
    remote = settings("connect4", "human", "--vs", "random", "--port", "4243")
    assert not remote.embedded  # a given server: the opponent plays there


def test_a_waiting_human_is_told_what_is_sought_and_how_to_get_an_opponent() -> None:
    chosen = settings("connect4", "human", "--port", "4300")
    options = {"width": 7, "height": 6, "k": 4}
    waiting = OpenSeek("connect4", options, 1.0, None, 2)
    message = Seeking("connect4", options, 1.0, clock=Clock(300.0, 3.0), others=[waiting])
    text = seeking_text(chosen, message, "127.0.0.1", 4300)
    assert "waiting for an opponent: connect4 at a 5+3 clock on 127.0.0.1:4300" in text
    assert "also waiting here, not paired with you: connect4" in text and "2 players" in text
    assert "(to play them, start again with --move-time 1)" in text
    assert "arena play connect4 mcts --tc any --host 127.0.0.1 --port 4300" in text
    assert "--vs mcts:time=1" in text


def test_a_capped_think_time_is_said_with_both_figures() -> None:
    done = run("play", "tictactoe", "mcts:time=5", "--vs", "random", "--move-time", "0.3")
    assert done.returncode == 0, done.stderr
    assert "think_time_capped" in done.stderr and '"requested": 5.0' in done.stderr
    assert "thought 0.25s a move on average (asked 5s, capped)" in done.stdout


def test_an_opponent_that_dies_is_one_clear_line() -> None:
    done = run("play", "connect4", "random", "--vs", "faulty:crash_after=1", "--tc", "0.2+0")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "ExceptionGroup" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("arena play: the opponent faulty:crash_after=1 exited (code 3)")


@pytest.mark.slow
def test_engines_on_a_short_clock_never_lose_on_time() -> None:
    done = run(
        "play", "connect4", "mcts", "--vs", "mcts", "--tc", "0.1+0", "--games", "2", timeout=120
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "played 2 matches" in done.stdout
    assert "timeout" not in done.stdout, done.stdout  # 6 s each, shared out move by move
