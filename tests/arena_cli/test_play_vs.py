"""`arena play ... human --vs SPEC` as a person runs it (issue 26, items 1 and 4).

A game lost on time is a result (exit 0), not the opponent's failure; the
embedded server's address is the one printed, `arena watch` reaches it, and
its port can be chosen with --serve-port.
"""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pexpect

from tests.arena_cli.cli import arena, free_port, run, seen, terminal

PROMPT = r"left\] move> "


def test_a_game_lost_on_time_is_a_result_and_exit_0() -> None:
    child = terminal("play", "tictactoe", "human", "--vs", "mcts:time=0.1", "--tc", "0.05+0")
    try:
        child.expect(PROMPT)  # and the person lets the 3 s clock run out
        child.expect("time is up")
        child.expect(r"=== game over: you lose \([^)]*, timeout\) ===")
        child.expect(r"loss as [XO] vs mcts:time=0\.1, [01]-[01] by timeout")
        child.expect(r"played 1 match: 0 W, 0 D, 1 L \(score 0/1\)")
        child.expect(pexpect.EOF)
        shown = seen(child)
    finally:
        child.close()
    assert child.exitstatus == 0, shown
    assert "exited (code" not in shown and "arena play:" not in shown, shown


def port_of(child: pexpect.spawn[str]) -> int:
    match = child.match
    assert isinstance(match, re.Match)
    return int(match.group(1))


def test_the_printed_address_is_the_embedded_servers_and_watch_reaches_it() -> None:
    child = terminal("play", "connect4", "human", "--vs", "random")
    try:
        child.expect(r"server on 127\.0\.0\.1:(\d+) until the games end")
        port = port_of(child)
        child.expect(rf"to watch from another terminal: arena watch --all --port {port}\)")
        child.expect(rf"waiting for an opponent: connect4 at a 5\+3 clock on 127\.0\.0\.1:{port}\r")
        child.expect(PROMPT)
        pong = run("ping", "--port", str(port))
        assert pong.returncode == 0 and f"127.0.0.1:{port}" in pong.stdout, pong.stderr
        with arena("watch", "--all", "--port", str(port)) as watcher:
            watcher.wait_for("=== match")  # the game being played, seen from outside
            child.sendline("quit")
            child.expect(r"played 1 match: 0 W, 0 D, 1 L")
            child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_the_embedded_servers_port_can_be_chosen() -> None:
    port = free_port()
    child = terminal("play", "connect4", "human", "--vs", "random", "--serve-port", str(port))
    try:
        child.expect(rf"waiting for an opponent: connect4 at a 5\+3 clock on 127\.0\.0\.1:{port}\r")
        child.expect(PROMPT)
        assert run("ping", "--port", str(port)).returncode == 0
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = str(busy.getsockname()[1])
        done = run("play", "connect4", "human", "--vs", "random", "--serve-port", taken)
    assert done.returncode == 2 and f"127.0.0.1:{taken}" in done.stderr
    assert "--serve-port" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    done = run("play", "connect4", "random", "--serve-port", str(port))
    assert done.returncode == 2 and "--serve-port is for --vs" in done.stderr


def test_vs_says_whether_its_games_are_recorded(tmp_path: Path) -> None:
    """Issue 45, item 15: without --db the embedded server keeps nothing, and says so."""
    argv = ("play", "tictactoe", "random", "--vs", "greedy", "--games", "1", "--move-time", "0.05")
    kept_nothing = run(*argv, cwd=tmp_path)
    assert kept_nothing.returncode == 0, kept_nothing.stderr
    assert "records: none (add --db FILE to keep these games)\n" in kept_nothing.stdout
    assert list(tmp_path.iterdir()) == []  # no arena.sqlite appeared either
    db = tmp_path / "vs.sqlite"
    kept = run(*argv, "--db", str(db), cwd=tmp_path)
    assert kept.returncode == 0, kept.stderr
    assert f"records: {db}\n" in kept.stdout
    listed = run("matches", "--db", str(db), "--json")
    assert len(json.loads(listed.stdout)) == 1
