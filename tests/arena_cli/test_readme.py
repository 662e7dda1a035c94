"""The quick start (README) and network examples (docs/DEPLOYMENT.md), run as written,
in their terminals.

test_example_index.py fails for a documented example without a scenario; these
are the ones of the README's "## Quick start" and docs/DEPLOYMENT.md's
"## Play over the network". The
server's address comes from $ARENA_PORT; SERVER is 127.0.0.1; ID is a
recorded match's id.
"""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pexpect
import pytest

from tests.arena_cli.cli import ARENA, Arena, arena, clean_env, free_port, run

QUICK_START = "test_quick_start_in_four_terminals"
NETWORK = "test_play_over_the_network"
SCENARIOS = {
    **dict.fromkeys(
        (
            "arena serve",
            "arena play connect4 mcts:time=1 --tc any --games 3",
            "arena play connect4 human",
            "arena watch --all",
            "arena matches",
            "arena show ID",
        ),
        QUICK_START,
    ),
    **dict.fromkeys(
        (
            "arena serve --host 0.0.0.0 --tc 5+3",
            "arena ping --host SERVER",
            "arena play connect4 human --host SERVER",
            "arena play connect4 mcts:time=5 --host SERVER --games 0 --tc any",
            "arena play connect4 human --host SERVER --vs mcts:time=1",
        ),
        NETWORK,
    ),
}


def play_as_a_person(child: pexpect.spawn[str]) -> str:
    """Answer every prompt with the first legal move until the game is over; the verdict."""
    while True:
        if child.expect([r"move> ", r"=== game over: ([^=]+) ==="]) == 1:
            match = child.match
            assert isinstance(match, re.Match)
            return str(match.group(1))
        child.sendline("moves")
        child.expect(r"legal moves: ([a-z0-9 ]+)\r\n")
        match = child.match
        assert isinstance(match, re.Match)
        child.expect(r"move> ")
        child.sendline(str(match.group(1)).split()[0])


def person(*argv: str, env: dict[str, str], cwd: Path) -> pexpect.spawn[str]:
    return pexpect.spawn(
        ARENA[0], [*ARENA[1:], *argv], env=env, cwd=str(cwd), encoding="utf-8", timeout=90
    )


@pytest.mark.slow
def test_quick_start_in_four_terminals(tmp_path: Path) -> None:
    env = clean_env(ARENA_PORT=str(free_port()))
    with arena("serve", cwd=tmp_path, env=env) as server:
        server.wait_for("listening")
        with (
            arena(
                "play",
                "connect4",
                "mcts:time=1",
                "--tc",
                "any",
                "--games",
                "3",
                cwd=tmp_path,
                env=env,
            ) as engine,
            arena("watch", "--all", cwd=tmp_path, env=env) as watcher,
        ):
            engine.wait_for('"seeking"')
            child = person("play", "connect4", "human", env=env, cwd=tmp_path)
            try:
                child.expect(r"waiting for an opponent: connect4 at a 5\+3 clock")
                verdict = play_as_a_person(child)
                child.expect(r"played 1 match")
                child.expect(pexpect.EOF)
            finally:
                child.close()
            assert child.exitstatus == 0 and verdict.split(" (")[0] in (
                "you win",
                "you lose",
                "draw",
            )
            watcher.wait_for("clock: X")  # the spectator saw the clocks
            watcher.wait_for("=== match")
            assert engine.stop(signal.SIGINT)[0] == 130
            assert watcher.stop(signal.SIGINT)[0] == 130
        assert server.stop(signal.SIGINT)[0] == 130
    listed = run("matches", cwd=tmp_path, env=env)
    assert listed.returncode == 0 and "5+3" in listed.stdout
    match_id = re.search(r"\b(m[0-9a-z]{13})\b", listed.stdout)
    assert match_id is not None
    shown = run("show", match_id.group(1)[:8], cwd=tmp_path, env=env)
    assert shown.returncode == 0 and "5+3 clock" in shown.stdout and "result:" in shown.stdout


@pytest.mark.slow
def test_play_over_the_network(tmp_path: Path) -> None:
    port = str(free_port())
    env = clean_env(ARENA_PORT=port)
    with arena("serve", "--host", "0.0.0.0", "--tc", "5+3", cwd=tmp_path, env=env) as server:
        server.wait_for("listening")
        pong = run("ping", "--host", "127.0.0.1", env=env)
        assert pong.returncode == 0 and pong.stdout.startswith("pong from mcts-arena at 127.0.0.1:")
        engine = Arena(
            "play", "connect4", "mcts:time=5", "--host", "127.0.0.1", "--games", "0", "--tc", "any",
            env=env,
        )  # fmt: skip
        try:
            engine.wait_for('"seeking"')
            child = person(
                "play", "connect4", "human", "--host", "127.0.0.1", env=env, cwd=tmp_path
            )
            try:
                child.expect(r"waiting for an opponent")
                child.expect(r"move> ")  # paired with the engine at once
                child.sendline("quit")
                child.expect(pexpect.EOF)
            finally:
                child.close()
            assert child.exitstatus == 0
        finally:
            assert engine.stop(signal.SIGTERM)[0] == 143
        child = person(
            "play", "connect4", "human", "--host", "127.0.0.1", "--vs", "mcts:time=1",
            env=env, cwd=tmp_path,
        )  # fmt: skip
        try:
            child.expect(r"starting the opponent: mcts:time=1")
            child.expect(r"move> ")
            child.sendline("quit")
            child.expect(r"played 1 match")
            child.expect(pexpect.EOF)
        finally:
            child.close()
        assert child.exitstatus == 0
        assert server.stop(signal.SIGTERM)[0] == 143
