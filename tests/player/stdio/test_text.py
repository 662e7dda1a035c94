"""`TextFront` and `arena text`: an arena agent as an engine of our text protocol.

Scripted sessions hold the protocol (the handshake, newgame, position, go and
its info line, the ``info string error`` replies); real subprocesses hold the
command: our own `arena engines check` seats it through the engine kind, our
engine client plays whole games against it, and a small independent driver
written here plays it over its pipes alone.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from games import make_game
from player.agent import SearchLimit, play_local_game
from player.engines.agent import EngineAgent
from player.engines.config import build_config
from player.spec import make_agent
from player.stdio.text import TextFront

ARENA = str(Path(sys.executable).parent / "arena")


def front(spec: str = "random:seed=1", game: str | None = None) -> TextFront:
    return TextFront(make_agent(spec), game, {}, version="9.9")


def test_the_handshake_a_game_and_a_move_as_the_protocol_says() -> None:
    text = front("mcts:iterations=100,seed=2")
    assert (
        text.handle("arena 1")
        == "id name MCTS Arena mcts:iterations=100,seed=2\nid author MCTS Arena\narenaok\n"
    )
    assert text.handle("isready") == "readyok\n"
    assert text.handle("setoption name Hash value 64") is None
    assert text.handle("newgame connect4 width=7,height=6,k=4") is None
    assert text.handle("position startpos moves 4 4") is None
    lines = (text.handle("go movetime 500 p1time 60000 p2time 60000 inc 0") or "").splitlines()
    assert lines[0].startswith("info depth ") and " visits 100 " in lines[0]
    assert lines[-1].startswith("bestmove ") and len(lines) == 2
    assert text.match is not None and len(text.match.moves) == 3
    assert text.handle("stop") is None  # not thinking: ignored
    assert text.handle("frobnicate now") is None  # unknown: ignored, no answer
    assert text.handle("quit") is None and text.done


def test_bad_input_is_one_info_string_error_line() -> None:
    text = front()
    assert (
        text.handle("arena 2")
        == "info string error: this engine speaks version 1 of the protocol\n"
    )
    assert text.handle("go movetime 100") == "info string error: no game: newgame first\n"
    assert (text.handle("newgame nope") or "").startswith("info string error: unknown game 'nope'")
    assert text.handle("newgame tictactoe") is None
    assert text.handle("position startpos moves b2 b2") == (
        "info string error: not a position of tictactoe:"
        " move 'b2' is illegal in this position (O to move)\n"
    )
    assert text.handle("go movetime 100") == (
        "info string error: no position to play: the last one was refused\n"
    )
    assert text.handle("position begin") == (
        "info string error: position takes 'startpos' or 'startpos moves M1 M2 …'\n"
    )
    assert text.handle("position startpos moves a1 a2 b1 b2 c1") is None
    assert (
        text.handle("go movetime 100") == "info string error: the game is over: no move to play\n"
    )
    assert text.handle("position startpos") is None
    assert text.handle("go movetime soon") == (
        "info string error: go: movetime 'soon' is not a number of milliseconds\n"
    )


def test_a_newgame_for_another_game_exits_as_the_protocol_says_it_refuses() -> None:
    only = front(game="tictactoe")
    assert only.handle("newgame tictactoe") is None
    assert only.handle("newgame connect4") == (
        "info string error: this engine plays tictactoe only, not connect4\n"
    )
    assert only.done and only.refused is not None


def test_the_budget_is_movetime_or_a_share_of_the_movers_clock() -> None:
    text = front("random")
    assert text._limit([], 0) == SearchLimit(time=1.0)
    assert text._limit(["movetime", "950"], 0).time == 0.85
    limit = text._limit(["p1time", "60000", "p2time", "30000", "inc", "1000"], 1)
    assert limit.time is not None and abs(limit.time - (30 / 30 + 1 - 0.1)) < 1e-9


def test_arena_text_passes_the_engine_check_through_the_engine_kind() -> None:
    spec = f"engine:cmd={ARENA},args=text mcts:time=0.05 --game connect4,protocol=text"
    check = subprocess.run(
        [ARENA, "engines", "check", spec, "--game", "connect4", "--move-time", "0.5"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr
    assert check.stdout.rstrip().endswith("passed")


def test_our_engine_client_plays_whole_games_of_two_games_against_it() -> None:
    engine = EngineAgent(
        build_config({"cmd": ARENA, "args": "text mcts:iterations=200", "protocol": "text"})
    )
    opponent = make_agent("random:seed=5")
    try:
        for name in ("connect4", "reversi"):
            game = make_game(name)
            for agents in ((engine, opponent), (opponent, engine)):
                played = play_local_game(game, agents, SearchLimit(time=2.0))
                assert played.outcome is not None and engine.last_answer is not None
    finally:
        engine.close()


def test_an_independent_driver_plays_it_over_its_pipes() -> None:
    game = make_game("tictactoe")
    engine = subprocess.Popen(
        [ARENA, "text", "mcts:iterations=300", "--game", "tictactoe"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1,
    )  # fmt: skip
    assert engine.stdin is not None and engine.stdout is not None

    def say(line: str, until: str | None = None) -> list[str]:
        assert engine.stdin is not None and engine.stdout is not None
        engine.stdin.write(line + "\n")
        engine.stdin.flush()
        lines: list[str] = []
        while until is not None:
            lines.append(engine.stdout.readline().strip())
            if lines[-1].split()[:1] == [until]:
                break
        return lines

    try:
        assert say("arena 1", "arenaok")[-1] == "arenaok"
        say("newgame tictactoe width=3,height=3,k=3")
        assert say("isready", "readyok") == ["readyok"]
        state, words = game.initial_state(), list[str]()
        while game.outcome(state) is None:
            if game.to_move(state) == 1:
                say("position startpos moves " + " ".join(words))
                word = say("go movetime 300", "bestmove")[-1].split()[1]
                move = game.parse_move(word)
            else:
                move = sorted(game.legal_moves(state))[-1]
            state = game.play(state, move)
            words.append(game.format_move(move))
        assert game.outcome(state) is not None
        say("quit")
        assert engine.wait(timeout=10) == 0
    finally:
        if engine.poll() is None:
            engine.kill()
            engine.wait()


def test_a_bad_spec_or_game_is_one_line_and_exit_2() -> None:
    for argv in (["text", "mcts:time=x"], ["text", "mcts", "--game", "nope"]):
        shown = subprocess.run([ARENA, *argv], capture_output=True, text=True, timeout=60)
        assert shown.returncode == 2 and shown.stdout == ""
        assert shown.stderr.startswith("arena text: ") and shown.stderr.count("\n") == 1


HELP_EXAMPLES = {
    "arena text mcts": "tictactoe",
    "arena text mcts:time=1 --game connect4": "connect4",
}


@pytest.mark.parametrize("example", sorted(HELP_EXAMPLES))
def test_the_help_examples_answer_a_session(example: str) -> None:
    """Each `arena text --help` example: the handshake, a game and one move."""
    game = HELP_EXAMPLES[example]
    session = f"arena 1\nisready\nnewgame {game}\nposition startpos\ngo movetime 300\nquit\n"
    shown = subprocess.run(
        [ARENA, *example.split()[1:]], input=session, capture_output=True, text=True, timeout=120
    )
    assert shown.returncode == 0, shown.stderr
    lines = shown.stdout.splitlines()
    assert lines[2:4] == ["arenaok", "readyok"] and lines[-1].startswith("bestmove ")
    assert make_game(game, {}).parse_move(lines[-1].split()[1]) is not None
