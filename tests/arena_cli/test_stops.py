"""Ctrl-C (SIGINT) and SIGTERM end every long-running command within 2 s, with one line.

Real child processes, real signals: the exit code is 130 / 143, standard
error ends with one line saying so, and nothing prints a traceback.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.arena_cli.cli import arena, free_port

STOPS = [
    (signal.SIGINT, 130, "interrupted (Ctrl-C)"),
    (signal.SIGTERM, 143, "terminated (SIGTERM)"),
]
IDS = ["SIGINT", "SIGTERM"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[int]:
    port = free_port()
    with arena("serve", "--port", str(port), "--db", str(tmp_path / "a.sqlite")) as proc:
        proc.wait_for('"listening"')
        yield port


def assert_clean_stop(proc_stop: tuple[int, float], stderr: str, code: int, line: str) -> None:
    exit_code, took = proc_stop
    assert exit_code == code, stderr
    assert took < 2.0, f"took {took:.2f}s to stop"
    assert "Traceback" not in stderr and "ExceptionGroup" not in stderr
    assert line in stderr.strip().splitlines()[-1], stderr


@pytest.mark.parametrize(("signum", "code", "line"), STOPS, ids=IDS)
def test_serve_stops_and_tells_its_clients(
    tmp_path: Path, signum: int, code: int, line: str
) -> None:
    port = free_port()
    db = tmp_path / "a.sqlite"
    with arena("serve", "--port", str(port), "--db", str(db)) as server:
        server.wait_for('"listening"')
        with arena(
            "play", "tictactoe", "random", "--port", str(port), "--connect-wait", "0"
        ) as player:
            player.wait_for('"seeking"')
            stopped = server.stop(signum)
            assert_clean_stop(stopped, server.stderr, code, line)
            player.wait_for("server_shutdown")  # the client was told why


@pytest.mark.parametrize(("signum", "code", "line"), STOPS, ids=IDS)
def test_a_seeking_player_stops(server: int, signum: int, code: int, line: str) -> None:
    with arena("play", "connect4", "mcts:time=0.1", "--port", str(server)) as player:
        player.wait_for('"seeking"')
        assert_clean_stop(player.stop(signum), player.stderr, code, line)


@pytest.mark.parametrize(("signum", "code", "line"), STOPS, ids=IDS)
def test_a_player_waiting_for_a_server_stops(signum: int, code: int, line: str) -> None:
    port = free_port()  # nobody listens: the player retries and says so
    with arena("play", "connect4", "random", "--port", str(port)) as player:
        player.wait_for('"attempt": 2, "error": "Connection refused"')  # piped: the JSON event
        assert_clean_stop(player.stop(signum), player.stderr, code, line)


@pytest.mark.parametrize(("signum", "code", "line"), STOPS, ids=IDS)
def test_watch_stops(server: int, signum: int, code: int, line: str) -> None:
    with arena("watch", "--all", "--port", str(server)) as watcher:
        watcher.wait_for("waiting for one")  # "no match is being played yet; waiting for one"
        assert_clean_stop(watcher.stop(signum), watcher.stderr, code, line)


@pytest.mark.parametrize(("signum", "code", "line"), STOPS, ids=IDS)
def test_play_vs_stops_with_its_server_and_opponent(signum: int, code: int, line: str) -> None:
    with arena("play", "connect4", "mcts:time=0.05", "--vs", "random", "--games", "0") as player:
        player.wait_for("match ")  # a first match is over: everything runs
        assert_clean_stop(player.stop(signum), player.stderr, code, line)


@pytest.mark.parametrize(("signum", "code", "line"), STOPS, ids=IDS)
def test_demo_stops_with_its_resume_command(
    tmp_path: Path, signum: int, code: int, line: str
) -> None:
    with arena("demo", "--db", str(tmp_path / "demo.sqlite")) as demo:
        demo.wait_for("game 1/")  # the round-robin is under way
        exit_code, took = demo.stop(signum)
        assert exit_code == code and took < 2.0, demo.stderr
        assert "Traceback" not in demo.stderr + demo.stdout
        assert "resume with: arena tournament --resume" in demo.stdout
        # the demo's server stopped with it: the command resumes on an embedded one
        resume = demo.stdout.split("resume with: ", 1)[1].splitlines()[0]
        assert "--server" not in resume and "tournament.sqlite" in resume


def test_a_tournament_whose_reader_leaves_stops_quietly(tmp_path: Path) -> None:
    """`arena tournament … | head -1`: the reader leaves; exit 141, no traceback, no player left."""
    import subprocess
    import sys

    command = (
        f"{sys.executable} -m arena_cli.main tournament tictactoe -p random -p greedy "
        f"--games-per-pair 20 --db {tmp_path / 't.db'} | head -1; "
        'echo "status ${PIPESTATUS[0]}" >&2'
    )
    done = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert done.stdout.startswith("tournament "), done.stdout
    assert "Traceback" not in done.stderr and "ExceptionGroup" not in done.stderr, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "status 141", done.stderr
