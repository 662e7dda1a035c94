"""The examples of `arena --help` and `arena play --help` / `matches --help`, run as written.

tests/arena_cli/examples.py reads them from the help texts and
test_example_index.py fails for one without a scenario. Engines reach "the
server" through $ARENA_PORT (the example's text is unchanged); the human
example runs in a pseudo-terminal and quits at its first prompt.
`arena tournament --help`'s examples run in test_tournament_examples.py.
"""

from __future__ import annotations

import json
import re
import shlex
import signal
from pathlib import Path

import pexpect

from tests.arena_cli.cli import ARENA, Arena, arena, clean_env, free_port, run

HUMAN = "arena play connect4 human --vs mcts:time=1"
SERVE = "arena serve"
ENGINE = "arena play tictactoe mcts:time=0.1 --games 2"
OPPONENT = "arena play tictactoe random --tc any --games 2"
GOMOKU = "arena play gomoku mcts -e time=0.1 -o width=9 -o height=9 --vs random"
MATCHES = ("arena matches", "arena matches --limit 10", "arena matches --status finished --json")

SCENARIOS = {
    HUMAN: "test_the_human_example_starts_the_opponent_and_quits_cleanly",
    **dict.fromkeys(
        (SERVE, ENGINE, OPPONENT, *MATCHES), "test_the_server_engine_and_records_examples"
    ),
    GOMOKU: "test_the_gomoku_example_plays_a_whole_game",
    **dict.fromkeys(
        (
            "arena gtp mcts:time=1 --game reversi",
            "arena gtp mcts --game gomoku -o width=15 -o height=15",
        ),
        "tests/player/stdio/test_gtp.py::test_the_help_examples_answer_a_session",
    ),
    "arena gtp SPEC --game GAME": (
        "tests/player/stdio/test_gtp.py::test_arena_gtp_passes_the_engine_check_through_the_engine_kind"
    ),
    **dict.fromkeys(
        (
            "arena gomocup mcts:time=1",
            "arena gomocup mcts --game tictactoe -o width=20 -o height=20 -o k=5",
        ),
        "tests/player/stdio/test_gomocup.py::test_the_help_examples_answer_a_session",
    ),
    "arena gomocup SPEC": (
        "tests/player/stdio/test_gomocup.py::"
        "test_arena_gomocup_passes_the_engine_check_through_the_engine_kind"
    ),
    **dict.fromkeys(
        ("arena text mcts", "arena text mcts:time=1 --game connect4"),
        "tests/player/stdio/test_text.py::test_the_help_examples_answer_a_session",
    ),
    "arena text SPEC": (
        "tests/player/stdio/test_text.py::"
        "test_arena_text_passes_the_engine_check_through_the_engine_kind"
    ),
}


def args(example: str) -> list[str]:
    return shlex.split(example)[1:]


def test_the_human_example_starts_the_opponent_and_quits_cleanly() -> None:
    child = pexpect.spawn(
        ARENA[0], [*ARENA[1:], *args(HUMAN)], env=clean_env(), encoding="utf-8", timeout=60
    )
    try:
        child.expect(r"waiting for an opponent: connect4 at a 5\+3 clock")
        child.expect(r"clock: X.* 5:00")
        child.expect(r"move> ")
        child.sendline("quit")
        child.expect("you resign and quit")
        child.expect(r"played 1 match: 0 W, 0 D, 1 L")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_the_server_engine_and_records_examples(tmp_path: Path) -> None:
    env = clean_env(ARENA_PORT=str(free_port()))
    with arena(*args(SERVE), cwd=tmp_path, env=env) as server:
        server.wait_for("listening")
        engine = Arena(*args(ENGINE), cwd=tmp_path, env=env)
        opponent = Arena(*args(OPPONENT), cwd=tmp_path, env=env)
        assert engine.finish() == 0, engine.stderr
        assert opponent.finish() == 0, opponent.stderr
        assert "played 2 matches" in engine.stdout and "played 2 matches" in opponent.stdout
        assert server.stop(signal.SIGINT)[0] == 130
    plain, limited, as_json = (run(*args(example), cwd=tmp_path, env=env) for example in MATCHES)
    assert all(done.returncode == 0 for done in (plain, limited, as_json))
    listed = json.loads(as_json.stdout)
    assert len(listed) == 2 and {m["game"] for m in listed} == {"tictactoe"}
    assert {m["status"] for m in listed} == {"finished"}
    assert all(m["id"] in limited.stdout and m["id"] in plain.stdout for m in listed)


def test_the_gomoku_example_plays_a_whole_game(tmp_path: Path) -> None:
    done = run(*args(GOMOKU), cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert re.search(
        r"match m\w+ \(gomoku\(width=9, height=9, k=5\)\): (win|loss|draw)", done.stdout
    )
    assert "played 1 match" in done.stdout
