"""`GtpFront` and `arena gtp`: an arena agent as a GTP engine.

Scripted sessions hold the protocol (answers, ids, errors, implied passes, undo,
time); real subprocesses hold the command: our own `arena engines check`
seats it through the engine kind, and gtp-rhino plays it with nothing but GTP
between them.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from games import make_game
from player.agent import SearchLimit
from player.engines.mapping import board_mapping
from player.spec import make_agent
from player.stdio.gtp import GtpFront
from tests.player.stdio.referee import GtpProcess, referee

ARENA = str(Path(sys.executable).parent / "arena")


def front(spec: str = "random:seed=1", game: str = "reversi", **options: str) -> GtpFront:
    return GtpFront(make_agent(spec), game, dict(options), version="9.9")


def test_answers_ids_errors_and_comments_as_gtp_says() -> None:
    gtp = front()
    assert gtp.handle("protocol_version") == "= 2\n\n"
    assert gtp.handle("7 name") == "=7 MCTS Arena random:seed=1\n\n"
    assert gtp.handle("  # a comment only") is None
    assert gtp.handle("") is None
    assert gtp.handle("3 frobnicate") == "?3 unknown command\n\n"
    assert gtp.handle("known_command genmove") == "= true\n\n"
    assert gtp.handle("known_command frobnicate") == "= false\n\n"
    assert "genmove\n" in (gtp.handle("list_commands") or "")
    assert gtp.handle("version\t# tab and comment") == "= 9.9\n\n"
    assert gtp.handle("quit") == "=\n\n" and gtp.done


def test_moves_are_checked_and_a_colour_out_of_turn_is_a_pass_where_the_game_has_one() -> None:
    gtp = front()
    assert gtp.handle("play black z9") == "? invalid coordinate\n\n"
    assert gtp.handle("play black a1") == "? illegal move\n\n"
    assert gtp.handle("play purple d3") == "? invalid color\n\n"
    assert gtp.handle("play black d3") == "=\n\n"
    # black again: reversi's implied pass is only for a side with no move
    assert (gtp.handle("play black c4") or "").startswith("? illegal move")
    assert len(gtp.moves) == 1
    answer = gtp.handle("genmove white") or ""
    assert answer.startswith("= ") and len(gtp.moves) == 2
    assert gtp.handle("undo") == "=\n\n" and len(gtp.moves) == 1
    assert gtp.handle("clear_board") == "=\n\n" and gtp.moves == []
    assert gtp.handle("undo") == "? cannot undo\n\n"
    ttt = front(game="tictactoe")
    assert ttt.handle("play white b2") == "? illegal move: it is not that colour's turn\n\n"


def test_boardsize_and_komi_change_the_game() -> None:
    gtp = front(game="gomoku")
    assert gtp.handle("boardsize 9") == "=\n\n"
    assert gtp.game.options["width"] == 9 and gtp.game.options["height"] == 9
    assert gtp.handle("boardsize 1") == "? unacceptable size\n\n"
    assert gtp.handle("boardsize x") == "? syntax error: 'x' is not a number\n\n"
    assert gtp.handle("komi 6.5") == "=\n\n"  # no komi in gomoku: accepted, ignored
    assert gtp.handle("play black e5") == "=\n\n"
    assert "X" in (gtp.handle("showboard") or "")


def test_the_agent_is_told_every_move_once_and_started_for_its_colour() -> None:
    gtp = front("mcts:iterations=200,seed=3", game="tictactoe")
    mapping = board_mapping(gtp.game, "gtp")
    assert gtp.handle("play black b2") == "=\n\n"
    first = (gtp.handle("genmove white") or "").split()[1]
    assert gtp.agent.seat == 1 and gtp.agent.history == [mapping.parse_vertex("b2")]
    assert gtp.handle("play black a1") == "=\n\n"
    gtp.handle("genmove white")
    assert gtp.agent.history == gtp.moves[:3]
    assert gtp.agent.history[1] == mapping.parse_vertex(first)
    assert gtp.handle("undo") == gtp.handle("undo") == "=\n\n"
    assert gtp.handle("play black c1") == "=\n\n"
    assert (gtp.handle("genmove white") or "").startswith("= ")  # given the game again
    assert len(gtp.moves) == 4 and gtp.agent.history == gtp.moves[:3]


def test_the_budget_is_the_agents_own_or_the_controllers_clock() -> None:
    timed = front("mcts:time=2")
    assert timed._limit(0) == SearchLimit(time=2.0)
    timed.handle("time_settings 0 1 1")  # one second a move (the arena's engine kind)
    assert timed._limit(0) == SearchLimit(time=0.9)
    free = front("mcts:time=none,iterations=100")
    assert free._limit(0) == SearchLimit(iterations=100)
    clock = front("random")
    assert clock._limit(1) == SearchLimit(time=1.0)
    clock.handle("time_settings 300 0 0")
    clock.handle("time_left white 60 0")
    assert clock._limit(1).time == pytest.approx(60 / 30 - 0.1)
    clock.handle("time_settings 60 30 5")  # Canadian: 30 s for 5 stones after the main time
    clock.handle("time_left black 20 3")
    assert clock._limit(0).time == pytest.approx(20 / 3 - 0.1)
    assert clock.handle("time_left black x 0") == "? syntax error: 'x' is not a number\n\n"


def test_arena_gtp_passes_the_engine_check_through_the_engine_kind() -> None:
    spec = f"engine:cmd={ARENA},args=gtp mcts:time=0.05 --game reversi,protocol=gtp"
    check = subprocess.run(
        [ARENA, "engines", "check", spec, "--game", "reversi", "--move-time", "0.5"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.rstrip().endswith("passed")


def test_a_bad_spec_or_game_is_one_line_and_exit_2() -> None:
    for argv in (["gtp", "mcts:time=x", "--game", "reversi"], ["gtp", "mcts", "--game", "nope"]):
        shown = subprocess.run([ARENA, *argv], capture_output=True, text=True, timeout=60)
        assert shown.returncode == 2 and shown.stdout == ""
        assert shown.stderr.startswith("arena gtp: ") and shown.stderr.count("\n") == 1


def test_gtp_rhino_plays_arena_gtp_over_gtp_alone(rhino: str) -> None:
    game = make_game("reversi")
    mapping = board_mapping(game, "gtp")
    ours = GtpProcess([ARENA, "gtp", "mcts:time=0.05", "--game", "reversi"])
    theirs = GtpProcess([rhino, "-l", "1"])
    try:
        for engines in ((ours, theirs), (theirs, ours)):
            for engine in engines:
                assert engine.ask("clear_board")[0]
            moves, resigned = referee(
                game, engines, mapping.vertex, mapping.parse_vertex, implied_passes=True
            )
            assert resigned is not None or len(moves) >= 58
    finally:
        ours.close()
        theirs.close()
    assert ours.process.returncode == 0


@pytest.mark.parametrize(
    "example",
    [
        "arena gtp mcts:time=1 --game reversi",
        "arena gtp mcts --game gomoku -o width=15 -o height=15",
    ],
)
def test_the_help_examples_answer_a_session(example: str) -> None:
    session = "protocol_version\ngenmove black\nquit\n"
    shown = subprocess.run(
        [ARENA, *example.split()[1:]], input=session, capture_output=True, text=True, timeout=120
    )
    assert shown.returncode == 0, shown.stderr
    answers = shown.stdout.split("\n\n")
    assert answers[0] == "= 2" and answers[1].startswith("= ") and answers[2] == "="


def test_gnu_go_plays_arena_gtp_at_go_over_gtp_alone(gnugo: str) -> None:
    game = make_game("go", {"size": 9})
    mapping = board_mapping(game, "gtp")
    ours = GtpProcess([ARENA, "gtp", "mcts:iterations=60", "--game", "go"])
    theirs = GtpProcess([gnugo, "--mode", "gtp", "--level", "0", "--chinese-rules",
                         "--positional-superko", "--capture-all-dead"])  # fmt: skip
    setup = ("boardsize 9", "komi 7", "clear_board")
    try:
        for engines in ((ours, theirs), (theirs, ours)):
            moves, resigned = referee(game, engines, mapping.vertex, mapping.parse_vertex, setup)
            state = game.initial_state()
            for move in moves:
                state = game.apply(state, move)
            outcome = game.outcome(state)
            assert resigned is not None or outcome is not None
            if outcome is not None:  # both count the board as it stands, by area
                ok, ours_says = ours.ask("final_score")
                winner = outcome.winner
                assert ok and ours_says.startswith("0" if winner is None else "BW"[winner] + "+")
    finally:
        ours.close()
        theirs.close()
    assert ours.process.returncode == 0
