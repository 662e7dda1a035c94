"""`GomocupFront` and `arena gomocup`: an arena agent as a Gomocup brain.

Scripted sessions hold the protocol (OK, moves, BOARD, TAKEBACK, INFO, the
ERROR and UNKNOWN replies); real subprocesses hold the command: our own
`arena engines check` seats it through the engine kind, our engine client
plays a whole game against it, and a small independent manager written here
drives it with BOARD and TAKEBACK over its pipes alone.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from games import make_game
from player.agent import SearchLimit, play_local_game
from player.engines.agent import EngineAgent
from player.engines.config import build_config
from player.engines.mapping import board_mapping
from player.spec import make_agent
from player.stdio.gomocup import GomocupFront

ARENA = str(Path(sys.executable).parent / "arena")


def front(spec: str = "random:seed=1", **options: str) -> GomocupFront:
    return GomocupFront(make_agent(spec), "gomoku", dict(options), version="9.9")


def test_a_game_is_started_asked_and_ended_as_piskvork_does() -> None:
    brain = front()
    assert brain.handle("START 15") == "OK\n"
    assert brain.handle("INFO timeout_turn 500") is None
    assert brain.handle("INFO rule 0") is None
    assert brain.handle("info weird_key 7") is None  # an unknown INFO key is ignored
    assert (
        brain.handle("ABOUT")
        == 'name="MCTS Arena random:seed=1", version="9.9", author="MCTS Arena"\n'
    )
    first = brain.handle("BEGIN") or ""
    assert brain.mapping is not None and brain.match is not None
    assert brain.match.moves == [brain.mapping.parse_xy(first.strip())]
    reply = brain.handle("TURN 0,0") or ""
    assert len(brain.match.moves) == 3 and reply.strip() == brain.mapping.xy(brain.match.moves[2])
    assert brain.handle("TAKEBACK " + reply.strip()) == "OK\n"
    assert brain.handle("TAKEBACK 0,0") == "OK\n" and len(brain.match.moves) == 1
    assert brain.handle("RESTART") == "OK\n" and brain.match.moves == []
    assert brain.handle("END") is None and brain.done


def test_board_sets_the_position_and_the_side_with_fewer_stones_moves() -> None:
    brain = front()
    brain.handle("RECTSTART 20,15")
    assert brain.match is not None and brain.match.game.options["width"] == 20
    for line in ("BOARD", "10,7,2", "11,7,1", "10,8,2"):
        assert brain.handle(line) is None
    reply = (brain.handle("DONE") or "").strip()
    assert brain.mapping is not None
    # theirs first (they have more), ours between, then our answer
    assert [brain.mapping.xy(m) for m in brain.match.moves[:3]] == ["10,7", "11,7", "10,8"]
    assert brain.match.moves[3] == brain.mapping.parse_xy(reply)


def test_bad_input_is_one_error_line_never_a_traceback() -> None:
    brain = front()
    assert brain.handle("BEGIN") == "ERROR no board: START first\n"
    assert brain.handle("START x") == "ERROR START takes the board's size, e.g. START 15\n"
    assert (brain.handle("START 2") or "").startswith("ERROR unsupported board 2x2: ")
    assert brain.handle("YXHASH") == "UNKNOWN command 'YXHASH' is not known\n"
    brain.handle("START 15")
    assert brain.handle("TURN 15,0") == "ERROR '15,0' is off the 15x15 board\n"
    assert brain.handle("TURN 3") == "ERROR '3' is not a move x,y\n"
    brain.handle("TURN 3,3")
    assert (brain.handle("TURN 3,3") or "").startswith("ERROR illegal move")
    assert brain.handle("TAKEBACK 9,9") == "ERROR 9,9 is not the last move\n"
    assert brain.handle("BOARD") is None
    assert brain.handle("1,1,7") == "ERROR field 7 is not 1 (ours), 2 (theirs) or 3\n"
    assert brain.handle("BOARD") is None and brain.handle("1,1,1") is None
    assert brain.handle("2,2,1") is None
    assert brain.handle("DONE") == "ERROR 2 stones of ours and 0 of theirs: not our turn\n"
    assert brain.handle("INFO timeout_turn soon") is None  # INFO is never answered


def test_the_budget_is_the_turn_time_or_a_share_of_the_match_left() -> None:
    brain = front("random")
    assert brain._limit() == SearchLimit(time=1.0)
    brain.handle("INFO timeout_turn 2000")
    assert brain._limit().time == pytest.approx(1.9)
    brain.handle("INFO timeout_match 60000")
    brain.handle("INFO time_left 30000")
    assert brain._limit().time == pytest.approx(30 / 30 - 0.1)
    brain.handle("INFO timeout_turn 0")  # as fast as possible
    assert brain._limit().time == pytest.approx(0.05)
    timed = front("mcts:time=0.2")
    timed.handle("INFO timeout_turn 5000")
    assert timed._limit() == SearchLimit(time=0.2)


def test_arena_gomocup_passes_the_engine_check_through_the_engine_kind() -> None:
    spec = f"engine:cmd={ARENA},args=gomocup mcts:time=0.05,protocol=gomocup"
    check = subprocess.run(
        [ARENA, "engines", "check", spec, "--game", "gomoku", "--move-time", "0.5"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.rstrip().endswith("passed")


def test_our_engine_client_plays_a_whole_game_against_it() -> None:
    game = make_game("gomoku", {"width": 9, "height": 9})
    spec = f"cmd={ARENA},args=gomocup mcts:iterations=300,protocol=gomocup"
    engine = EngineAgent(build_config(dict(part.split("=", 1) for part in spec.split(","))))
    opponent = make_agent("random:seed=4")
    try:
        for agents in ((engine, opponent), (opponent, engine)):
            played = play_local_game(game, agents, SearchLimit(time=2.0))
            assert played.outcome is not None and len(played.moves) >= 9
    finally:
        engine.close()
    assert engine.last_process is not None and not engine.last_process.running


def test_an_independent_manager_plays_it_with_board_and_takeback() -> None:
    """A manager written here (not our client): BOARD each move, a TAKEBACK, then TURN."""
    game = make_game("gomoku", {"width": 10, "height": 10})
    mapping = board_mapping(game, "gomocup")
    brain = subprocess.Popen(
        [ARENA, "gomocup", "mcts:iterations=200", "--game", "gomoku"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
    )  # fmt: skip
    assert brain.stdin is not None and brain.stdout is not None

    def say(*lines: str) -> str:
        assert brain.stdin is not None and brain.stdout is not None
        brain.stdin.write("".join(line + "\n" for line in lines))
        brain.stdin.flush()
        return brain.stdout.readline().strip()

    try:
        assert say("START 10") == "OK"
        state, moves = game.initial_state(), list[Any]()
        while game.outcome(state) is None:
            if game.to_move(state) == 0:  # its stones are the first seat's
                if len(moves) == 2:  # TURN, both moves taken back, then another TURN
                    first = say(f"TURN {mapping.xy(moves[1])}")
                    assert say(f"TAKEBACK {first}") == "OK"
                    assert say(f"TAKEBACK {mapping.xy(moves[1])}") == "OK"
                    taken = moves.pop()
                    state = game.play(game.initial_state(), moves[0])
                    ours = next(m for m in game.legal_moves(state) if m != taken)
                    answer = say(f"TURN {mapping.xy(ours)}")
                    moves.append(ours)
                    state = game.play(state, ours)
                else:
                    stones = [
                        f"{mapping.xy(m)},{1 if i % 2 == 0 else 2}" for i, m in enumerate(moves)
                    ]
                    answer = say("BOARD", *stones, "DONE")
                move = mapping.parse_xy(answer)
            else:
                move = sorted(game.legal_moves(state))[0]
            state = game.play(state, move)
            moves.append(move)
        assert say("END") == ""
        assert brain.wait(timeout=10) == 0
    finally:
        if brain.poll() is None:
            brain.kill()
            brain.wait()


def test_a_bad_spec_or_game_is_one_line_and_exit_2() -> None:
    for argv in (["gomocup", "mcts:time=x"], ["gomocup", "mcts", "--game", "connect4"]):
        shown = subprocess.run([ARENA, *argv], capture_output=True, text=True, timeout=60)
        assert shown.returncode == 2 and shown.stdout == ""
        assert shown.stderr.startswith("arena gomocup: ") and shown.stderr.count("\n") == 1


HELP_EXAMPLES = (
    "arena gomocup mcts:time=1",
    "arena gomocup mcts --game tictactoe -o width=20 -o height=20 -o k=5",
)


@pytest.mark.parametrize("example", HELP_EXAMPLES)
def test_the_help_examples_answer_a_session(example: str) -> None:
    """Each `arena gomocup --help` example, as piskvork starts a game and asks the first move."""
    shown = subprocess.run(
        [ARENA, *example.split()[1:]],
        input="START 20\nINFO timeout_turn 300\nBEGIN\nEND\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shown.returncode == 0, shown.stderr
    ok, move = shown.stdout.splitlines()
    x, y = (int(part) for part in move.split(","))
    assert ok == "OK" and 0 <= x < 20 and 0 <= y < 20
