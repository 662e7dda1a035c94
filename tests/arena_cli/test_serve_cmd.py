"""`arena serve`'s limits as a user sets them (flag, environment) and as a client meets them.

A real `arena serve` child process, real sockets, and `arena play` as a bot
author runs it against a server that refuses it.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from protocol.codec import HEADER, encode_message, server_message_decoder
from protocol.messages import PROTOCOL_VERSION, Error, Hello, Seek, ServerMessage, Welcome
from tests.arena_cli.cli import clean_env, free_port, run
from tests.arena_cli.examples import argv
from tests.arena_cli.test_readme_sections import served
from tests.server.serverproc import ServerProcess, server_process

CAP = "--max-connections-per-address"
TRUSTED = "arena serve --trusted-address 10.0.5.20 --trusted-address 127.0.0.1"
RAISED = "arena serve --max-connections-per-address 1000"

SCENARIOS = {
    TRUSTED: "test_a_trusted_host_is_not_capped",
    RAISED: "test_the_cap_raised_for_everyone",
}


def receive(sock: socket.socket) -> ServerMessage:
    reader = sock.makefile("rb")
    (length,) = HEADER.unpack(reader.read(HEADER.size))
    return server_message_decoder().decode(reader.read(length))


def greeted(port: int, name: str) -> socket.socket:
    """A connection that said hello and was welcomed."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    sock.sendall(encode_message(Hello(PROTOCOL_VERSION, name)))
    assert isinstance(receive(sock), Welcome)
    return sock


@contextmanager
def serving(tmp_path: Path, extra: list[str], env: dict[str, str]) -> Iterator[ServerProcess]:
    with server_process(":none:", tmp_path / "server.log", extra=extra, env=env) as server:
        yield server


def refusals(server: ServerProcess) -> list[dict[str, str]]:
    assert server.log is not None
    lines = [json.loads(line) for line in server.log.read_text().splitlines() if line[:1] == "{"]
    return [line for line in lines if line.get("event") == "connection_refused"]


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_the_connection_over_the_cap_is_told_which_limit(tmp_path: Path, how: str) -> None:
    extra, env = (
        ([CAP, "3"], {}) if how == "flag" else ([], {"ARENA_MAX_CONNECTIONS_PER_ADDRESS": "3"})
    )
    with serving(tmp_path, extra, clean_env(**env)) as server, ExitStack() as held:
        for i in range(3):
            held.enter_context(greeted(server.port, f"bot{i}"))
        fourth = held.enter_context(socket.create_connection(("127.0.0.1", server.port), 20))
        # as a bot does: hello and seek at once, before any answer
        fourth.sendall(
            encode_message(Hello(PROTOCOL_VERSION, "bot3")) + encode_message(Seek("connect4"))
        )
        error = receive(fourth)
        assert isinstance(error, Error) and error.fatal
        assert error.code == "too_many_connections"
        assert error.message.startswith("more than 3 connections from 127.0.0.1 (")
        assert (
            "max_connections_per_address; raise it with --max-connections-per-address"
            " or $ARENA_MAX_CONNECTIONS_PER_ADDRESS" in error.message
        )
        assert fourth.recv(1024) == b""  # then a clean close: end of stream, no reset

        # `arena play` from the same host: the reason in one line, exit 1, no retries
        played = run(
            "play",
            "connect4",
            "random",
            "--port",
            str(server.port),
            "--connect-wait",
            "2",
            env=clean_env(),
        )
        assert played.returncode == 1, played.stderr
        assert played.stderr.splitlines() == [
            f"arena play: server error too_many_connections: {error.message}"
        ]
        assert len(refusals(server)) == 2  # the raw fourth, and arena play once


def test_a_trusted_host_is_not_capped(tmp_path: Path) -> None:
    """As docs/DEPLOYMENT.md shows it, on a server that allows one connection per address:
    this host (127.0.0.1) holds three."""
    env = clean_env(ARENA_PORT=str(free_port()), ARENA_MAX_CONNECTIONS_PER_ADDRESS="1")
    with served(argv(TRUSTED), tmp_path, env), ExitStack() as held:
        for i in range(3):
            held.enter_context(greeted(int(env["ARENA_PORT"]), f"resident{i}"))


def test_the_cap_raised_for_everyone(tmp_path: Path) -> None:
    """As docs/DEPLOYMENT.md shows it: 300 connections from one host, over the default 256."""
    env = clean_env(ARENA_PORT=str(free_port()))
    with served(argv(RAISED), tmp_path, env) as server, ExitStack() as held:
        socks = [
            held.enter_context(socket.create_connection(("127.0.0.1", int(env["ARENA_PORT"])), 20))
            for _ in range(300)
        ]
        for i, sock in enumerate(socks):
            sock.sendall(encode_message(Hello(PROTOCOL_VERSION, f"bot{i}")))
        assert all(isinstance(receive(sock), Welcome) for sock in socks)
    assert "connection_refused" not in server.stdout


def test_bad_limits_are_one_line_errors() -> None:
    for args, env, line in [
        ([CAP, "0"], {}, "arena serve: max_connections_per_address must be > 0, not 0"),
        (["--max-connections", "x"], {}, "argument --max-connections: invalid int value: 'x'"),
        (
            ["--trusted-address", "host.example"],
            {},
            "arena serve: trusted address: 'host.example' is not an IP address or network"
            " (e.g. 10.0.0.0/8, 127.0.0.1)",
        ),
        (
            [],
            {"ARENA_TRUSTED_ADDRESSES": "127.0.0.1,nonsense"},
            "arena serve: trusted address: 'nonsense' is not an IP address or network"
            " (e.g. 10.0.0.0/8, 127.0.0.1)",
        ),
    ]:
        done = run("serve", "--no-db", "--port", "0", *args, env=clean_env(**env), timeout=30)
        assert done.returncode == 2
        assert line in done.stderr and "Traceback" not in done.stderr
