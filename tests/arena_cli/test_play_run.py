"""`arena play` / `ping` / `watch` in-process: settings from flags and the environment, errors,
the tally, and the commands against a real server running in a thread."""

from __future__ import annotations

import argparse
import contextlib
import queue
import socket
import threading
from collections.abc import Iterator

import pytest
import trio

from arena_cli.main import build_parser
from arena_cli.main import main as cli_main
from arena_cli.play_run import resolve, tally
from games import Outcome, Termination
from player.client import MatchResult
from player.spec import make_agent
from server.app import ArenaServer
from server.config import ServerConfig
from tests.player.test_runtime import restore_logging as restore_logging
from tests.player.test_runtime import tcp_client


def play_args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["play", *argv])


def test_play_settings_fall_back_to_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for var, value in {
        "ARENA_GAME": "connect4",
        "ARENA_AGENT": "mcts:time=1",
        "ARENA_HOST": "server",
        "ARENA_PORT": "4343",
        "ARENA_GAMES": "0",
        "ARENA_NAME": "bot",
        "ARENA_MOVE_TIME": "0.5",
        "ARENA_GAME_OPTIONS": "width=8",
        "ARENA_AGENT_OPTIONS": "c=2",
    }.items():
        monkeypatch.setenv(var, value)
    settings = resolve(play_args())
    assert (settings.game, settings.spec, settings.options) == (
        "connect4",
        "mcts:time=1,c=2",
        {"width": "8"},
    )
    config = settings.config
    assert (config.host, config.port, config.games, config.name, config.move_time) == (
        "server",
        4343,
        0,
        "bot",
        0.5,
    )
    # flags win over the environment; -e overrides the spec's own options
    settings = resolve(
        play_args(
            "tictactoe", "mcts:time=1", "--port", "1", "-e", "time=2", "-o", "k=3", "--games", "2"
        )
    )
    assert (settings.game, settings.spec, settings.options) == (
        "tictactoe",
        "mcts:time=2",
        {"k": "3"},
    )
    assert (settings.config.port, settings.config.games) == (1, 2)


def test_play_settings_errors_name_the_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ARENA_GAME", raising=False)
    with pytest.raises(ValueError, match="no game given"):
        resolve(play_args())
    monkeypatch.setenv("ARENA_PORT", "http")
    with pytest.raises(ValueError, match=r"\$ARENA_PORT='http' is not a valid integer"):
        resolve(play_args("tictactoe", "random"))


def test_play_reports_unknown_game_and_bad_agent_without_traceback(capsys) -> None:
    assert cli_main(["play", "nope", "random"]) == 2
    assert "arena play: unknown game 'nope'" in capsys.readouterr().err
    assert cli_main(["play", "tictactoe", "bogus"]) == 2
    assert "arena play: unknown agent 'bogus'" in capsys.readouterr().err
    assert cli_main(["play", "tictactoe", "mcts:nope=1"]) == 2
    assert "unknown option 'nope' for agent 'mcts'" in capsys.readouterr().err


def test_ping_and_play_report_an_unreachable_server(capsys) -> None:
    port = _closed_port()
    assert cli_main(["ping", "--port", str(port)]) == 1
    err = capsys.readouterr().err
    assert f"arena ping: cannot connect to the server at 127.0.0.1:{port}" in err
    assert "Traceback" not in err
    assert (
        cli_main(["play", "tictactoe", "random", "--port", str(port), "--connect-wait", "0.3"]) == 1
    )
    err = capsys.readouterr().err
    assert (
        f"arena play: cannot connect to the server at 127.0.0.1:{port} (Connection refused" in err
    )
    assert "Traceback" not in err


def test_tally_counts_wins_draws_and_losses() -> None:
    def result(verdict_winner: int | None, seat: int = 0) -> MatchResult:
        outcome = (
            Outcome.draw(2, Termination.BOARD_FULL)
            if verdict_winner is None
            else Outcome.win(verdict_winner, 2, Termination.LINE)
        )
        return MatchResult("m", "tictactoe", seat, "X", ("a", "b"), outcome, "", 9)

    results = [result(0), result(1), result(None), result(0)]
    assert tally(results) == "played 4 matches: 2 W, 1 D, 1 L (score 2.5/4)"


def test_cli_against_a_real_server(capsys) -> None:
    """arena ping, arena play and arena watch against a server running in a thread."""
    with server_thread() as port:
        assert cli_main(["ping", "--port", str(port)]) == 0
        assert f"pong from mcts-arena at 127.0.0.1:{port}" in capsys.readouterr().out
        opponent = threading.Thread(
            target=trio.run,
            args=(tcp_client(make_agent("random:seed=5"), port, "tictactoe", "opp", games=2).run,),
        )
        opponent.start()
        status = cli_main(
            ["play", "tictactoe", "random", "--port", str(port), "--games", "2", "--name", "me"]
        )
        opponent.join(30)
        out = capsys.readouterr().out.splitlines()
        assert status == 0
        assert len(out) == 3 and all(" vs opp, " in line for line in out[:2])
        assert out[2].startswith("played 2 matches: ")
        assert cli_main(["watch", "--port", str(port)]) == 0
        assert "no match is being played" in capsys.readouterr().out
        assert cli_main(["watch", "nope", "--port", str(port)]) == 1
        assert "is not playing match 'nope'" in capsys.readouterr().err


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def server_thread() -> Iterator[int]:
    """A real server in a background thread (for the synchronous CLI); yields its port."""
    ready: queue.Queue[tuple[int, trio.lowlevel.TrioToken, trio.CancelScope]] = queue.Queue()

    async def serve() -> None:
        server = ArenaServer(ServerConfig(port=0, db=None))
        async with trio.open_nursery() as nursery:
            port = await nursery.start(server.serve)
            ready.put((port, trio.lowlevel.current_trio_token(), nursery.cancel_scope))

    thread = threading.Thread(target=trio.run, args=(serve,), daemon=True)
    thread.start()
    port, token, scope = ready.get(timeout=10)
    try:
        yield port
    finally:
        trio.from_thread.run_sync(scope.cancel, trio_token=token)
        thread.join(10)


def test_each_connect_retry_is_said_once_piped_and_on_a_terminal() -> None:
    """Issue 45, item 14: piped, the JSON event alone; on a terminal, the human line alone."""
    import json
    import re

    import pexpect

    from tests.arena_cli.cli import clean_env, free_port, run, terminal

    port = str(free_port())  # nobody listens there
    argv = ("play", "tictactoe", "random", "--port", port, "--connect-wait", "1")
    piped = run(*argv)
    assert piped.returncode == 1 and "cannot connect to the server" in piped.stderr
    lines = [line for line in (piped.stdout + piped.stderr).splitlines() if line]
    events = [json.loads(line) for line in lines if line.startswith("{")]
    retries = [e["attempt"] for e in events if e["event"] == "connect_retry"]
    assert retries == list(range(1, len(retries) + 1)) and retries  # each attempt once
    assert all(e["give_up_after"] == 1 for e in events if e["event"] == "connect_retry")
    assert not any(line.startswith("connecting to ") for line in lines), lines

    child = terminal(*argv, env=clean_env(TERM="dumb"))
    child.expect(pexpect.EOF)
    shown = (child.before or "").replace("\r\n", "\n")
    attempts = re.findall(r"^connecting to 127\.0\.0\.1:\d+, retry (\d+) in", shown, re.M)
    assert attempts == [str(n) for n in range(1, len(attempts) + 1)] and attempts, shown
    assert "connect_retry" not in shown


def test_play_server_names_several_nodes_and_bad_ones_are_one_line(
    capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--server A,B``: the first is the player's server, the others the nodes it turns to;
    a bad list, or --server with --port, is one line naming the flag."""
    monkeypatch.delenv("ARENA_SERVER", raising=False)
    settings = resolve(play_args("tictactoe", "random", "--server", "h1:7301, [::1]:7302"))
    assert settings.config.nodes == [("h1", 7301), ("::1", 7302)]
    monkeypatch.setenv("ARENA_SERVER", "h3:1")
    assert resolve(play_args("tictactoe", "random")).config.nodes == [("h3", 1)]
    monkeypatch.delenv("ARENA_SERVER")
    for argv, said in (
        (["--server", "h1:7301,h2"], "--server takes HOST:PORT, or several separated by commas"),
        (["--server", "h1:99999"], "not 'h1:99999'"),
        (["--server", "h1:1", "--port", "2"], "give --server HOST:PORT,... or --host/--port"),
    ):
        assert cli_main(["play", "tictactoe", "random", *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("arena play: ") and said in err and err.count("\n") == 1, err
    # no node answers: one line naming them all
    ports = [_closed_port(), _closed_port()]
    servers = ",".join(f"127.0.0.1:{port}" for port in ports)
    argv = ["play", "tictactoe", "random", "--server", servers, "--connect-wait", "0.3"]
    assert cli_main(argv) == 1
    err = capsys.readouterr().err
    assert "arena play: none of the servers answers (cannot connect to the server at" in err, err
    assert all(f"127.0.0.1:{port}" in err for port in ports) and "Traceback" not in err
