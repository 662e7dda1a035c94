"""docs/DEPLOYMENT.md, "Opening a server to the network": TLS, accounts and a spectator from anywhere.

Run as written in a tmp dir: cert.pem / key.pem / ca.pem are a throwaway
authority's (trustme); SERVER is 127.0.0.1; NAME / PASSWORD a name and a
password; the server's port comes from $ARENA_PORT. A person at a terminal
(pexpect) plays the human examples and stops at the prompt with Ctrl-C.
"""

from __future__ import annotations

import shlex
import signal
import socket
from pathlib import Path

import pexpect
import pytest
import trustme

from protocol.codec import HEADER, encode_message, server_message_decoder
from protocol.messages import PROTOCOL_VERSION, Hello
from tests.arena_cli.cli import ARENA, Arena, clean_env, free_port, run
from tests.arena_cli.examples import argv
from tests.arena_cli.test_readme_sections import served

TLS_SERVE = "arena serve --tls-cert cert.pem --tls-key key.pem"
TLS_PLAY = "arena --ca ca.pem play connect4 human --host SERVER"
REGISTERED = "arena serve --accounts registered"
REGISTER = "ARENA_PASSWORD=PASSWORD arena play connect4 human --name NAME"
WATCH = "arena watch --all --host SERVER"
BALANCED = "arena serve --proxy-protocol --trusted-proxy 10.0.0.0/8 --trusted-proxy 127.0.0.1"

SCENARIOS = {
    TLS_SERVE: "test_tls_server_and_client",
    TLS_PLAY: "test_tls_server_and_client",
    REGISTERED: "test_registered_names_only",
    REGISTER: "test_registered_names_only",
    WATCH: "test_watch_every_match_from_anywhere",
    BALANCED: "test_behind_a_load_balancer",
}
FILLED = {"SERVER": "127.0.0.1", "NAME": "alice", "PASSWORD": "correct-horse"}


def person(example: str, env: dict[str, str], cwd: Path) -> pexpect.spawn[str]:
    """`example` (``VAR=value ... arena ...``) at a pseudo-terminal."""
    words = shlex.split(example)
    while "=" in words[0]:
        name, _, value = words.pop(0).partition("=")
        env = {**env, name: FILLED.get(value, value)}
    return pexpect.spawn(
        ARENA[0],
        [*ARENA[1:], *argv(" ".join(words), **FILLED)],
        env=env,
        cwd=str(cwd),
        encoding="utf-8",
        timeout=60,
    )


def interrupted_at_the_seek(child: pexpect.spawn[str]) -> None:
    """The player got as far as seeking an opponent; Ctrl-C stops it with 130."""
    try:
        child.expect(r"waiting for an opponent: connect4")
        child.sendintr()
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 130, (child.exitstatus, child.signalstatus)


def test_tls_server_and_client(tmp_path: Path) -> None:
    authority = trustme.CA()
    issued = authority.issue_cert("127.0.0.1", "localhost")
    authority.cert_pem.write_to_path(str(tmp_path / "ca.pem"))
    issued.private_key_pem.write_to_path(str(tmp_path / "key.pem"))
    (tmp_path / "cert.pem").write_bytes(b"".join(b.bytes() for b in issued.cert_chain_pems))
    env = clean_env(ARENA_PORT=str(free_port()))
    with served(argv(TLS_SERVE), tmp_path, env) as server:
        interrupted_at_the_seek(person(TLS_PLAY, env, tmp_path))
        plain = run("ping", env=env)  # without --tls the handshake fails: one line, exit 1
        assert plain.returncode == 1 and "Traceback" not in plain.stderr
        assert plain.stderr.count("\n") == 1
        assert '"tls": true' in server.stdout  # its JSON "listening" line


def test_registered_names_only(tmp_path: Path) -> None:
    env = clean_env(ARENA_PORT=str(free_port()))
    with served(argv(REGISTERED), tmp_path, env):
        stranger = run("play", "connect4", "random", "--name", "bob", env=env, cwd=tmp_path)
        assert stranger.returncode == 1
        assert "'bob' is not registered; this server admits registered names only" in (
            stranger.stderr
        )
        interrupted_at_the_seek(person(REGISTER, env, tmp_path))  # registers alice
        thief = run("play", "connect4", "random", "--name", "alice", env=env, cwd=tmp_path)
        assert thief.returncode == 1 and "'alice' is a registered name" in thief.stderr
        interrupted_at_the_seek(person(REGISTER, env, tmp_path))  # alice again, her password
        pong = run("ping", env=env, cwd=tmp_path)  # health checks need no account
        assert pong.returncode == 0 and pong.stdout.startswith("pong from")


@pytest.mark.slow
def test_watch_every_match_from_anywhere(tmp_path: Path) -> None:
    env = clean_env(ARENA_PORT=str(free_port()))
    with served(["serve"], tmp_path, env):
        watcher = Arena(*argv(WATCH, **FILLED), cwd=tmp_path, env=env)
        try:
            watcher.wait_for("waiting for one")
            players = [  # a game long enough for the watcher's next look (every 2 s)
                Arena("play", "gomoku", spec, "-o", "width=9", "-o", "height=9", env=env)
                for spec in ("mcts:time=0.25", "mcts:time=0.25,c=2.0")
            ]
            assert all(p.finish(timeout=120) == 0 for p in players)
            watcher.wait_for("=== match")
            assert "gomoku" in watcher.stdout and "mcts:time=0.25,c=2.0" in watcher.stdout
        finally:
            code, took = watcher.stop(signal.SIGINT)
        assert code == 130 and took < 2.5


def test_behind_a_load_balancer(tmp_path: Path) -> None:
    """This test is the balancer at 127.0.0.1: it begins each connection with a PROXY
    header; with one connection allowed per address, two clients still get one each."""
    env = clean_env(ARENA_PORT=str(free_port()), ARENA_MAX_CONNECTIONS_PER_ADDRESS="1")
    with served(argv(BALANCED), tmp_path, env) as server:
        port = int(env["ARENA_PORT"])
        hello = encode_message(Hello(PROTOCOL_VERSION, "proxied"))
        answers, held = [], []
        try:
            for source in ("198.51.100.1", "198.51.100.2", "198.51.100.1"):
                sock = socket.create_connection(("127.0.0.1", port), timeout=10)
                held.append(sock)  # open while the next one tries
                header = f"PROXY TCP4 {source} 192.0.2.1 40000 4242\r\n".encode()
                sock.sendall(header + hello)
                reader = sock.makefile("rb")
                (length,) = HEADER.unpack(reader.read(HEADER.size))
                answers.append(server_message_decoder().decode(reader.read(length)))
        finally:
            for sock in held:
                sock.close()
        assert [type(a).__name__ for a in answers] == ["Welcome", "Welcome", "Error"]
        assert "198.51.100.1" in answers[2].message  # type: ignore[union-attr]
        server.wait_for('"proxy": "127.0.0.1:')  # its "connected" lines name the balancer
        # each connection logs on its own task: wait for the second one's line (asserting
        # at once raced it: the first line could be out alone)
        server.wait_for('"peer": "198.51.100.2:40000"')
