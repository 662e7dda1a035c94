"""Every example in the `--help` texts is run, as written, the way a user would run it.

The examples are read from the help output itself, so a new example without
a scenario here fails the first test. Engines reach "the server" through
$ARENA_PORT (the example's text is unchanged); the human example runs in a
pseudo-terminal and quits at its first prompt. (`arena tournament`'s own
examples are tested with that command.)
"""

from __future__ import annotations

import json
import re
import shlex
import signal
from pathlib import Path

import pexpect

from tests.arena_cli.cli import ARENA, Arena, arena, clean_env, free_port, run

COMMANDS = (
    *("games", "play", "watch", "serve", "demo", "matches", "show"),
    *("export", "import", "backup", "ping", "status"),
)

HUMAN = "arena play connect4 human --vs mcts:time=1"
SERVE = "arena serve"
ENGINE = "arena play tictactoe mcts:time=0.1 --games 2"
OPPONENT = "arena play tictactoe random --tc any --games 2"
GOMOKU = "arena play gomoku mcts -e time=0.1 -o width=9 -o height=9 --vs random"
MATCHES = ("arena matches", "arena matches --limit 10", "arena matches --status finished --json")
KNOWN = {HUMAN, SERVE, ENGINE, OPPONENT, GOMOKU, *MATCHES}


def help_examples() -> set[str]:
    """Every ``arena ...`` command line in `arena --help` and each command's --help."""
    found: set[str] = set()
    for command in (None, *COMMANDS):
        text = run(*(["--help"] if command is None else [command, "--help"])).stdout
        _, _, tail = text.partition("examples:")
        for line in tail.splitlines():
            for part in line.split(";"):
                text = part.strip()
                if text.startswith("arena "):
                    found.add(re.split(r"\s{2,}", text)[0])
    return found


def test_every_help_example_has_a_scenario() -> None:
    examples = help_examples()
    assert examples == KNOWN, f"examples without a test: {examples - KNOWN}"


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
    for example in MATCHES:
        done = run(*args(example), cwd=tmp_path, env=env)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
    listed = json.loads(run("matches", "--status", "finished", "--json", cwd=tmp_path).stdout)
    assert len(listed) == 2 and {m["game"] for m in listed} == {"tictactoe"}
    text = run("matches", "--limit", "10", cwd=tmp_path).stdout
    assert all(m["id"] in text for m in listed)


def test_the_gomoku_example_plays_a_whole_game(tmp_path: Path) -> None:
    done = run(*args(GOMOKU), cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert re.search(
        r"match m\w+ \(gomoku\(width=9, height=9, k=5\)\): (win|loss|draw)", done.stdout
    )
    assert "played 1 match" in done.stdout
