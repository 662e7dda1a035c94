"""Every command, given bad input, answers with a clear line and exit 1 or 2: never a traceback.

Each case is a real `arena` process, as a user would type it. Read-only
commands must not create the database they were pointed at by mistake.
"""

from __future__ import annotations

import socket
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from tests.arena_cli.cli import free_port, run

MISSING = "nope.sqlite"

# (arguments, exit code, words the error must contain)
CASES: list[tuple[list[str], int, str]] = [
    (["nosuch"], 2, "invalid choice"),
    (["games", "--log-level", "loud"], 2, "log level must be one of"),
    (["play"], 2, "no game given"),
    (["play", "nogame", "mcts"], 2, "unknown game 'nogame'"),
    (["play", "connect4", "nosuch"], 2, "unknown agent 'nosuch'"),
    (["play", "connect4", "mcts:time=-1"], 2, "option 'time' must be > 0"),
    (["play", "connect4", "mcts", "--tc", "5x3"], 2, "is not MINUTES+SECONDS"),
    (["play", "connect4", "mcts", "--tc", "5+3", "--move-time", "2"], 2, "not both"),
    (["play", "connect4", "mcts", "--port", "99999"], 2, "port must be in 1..65535"),
    (["play", "gomoku", "mcts", "-o", "size=9"], 2, "unknown option 'size'"),
    (["play", "connect4", "human", "--vs", "nosuch"], 2, "unknown agent 'nosuch'"),
    (
        [
            "tournament",
            "tictactoe",
            "--player",
            "random",
            "--player",
            "random",
            "--adjudicate-resign",
            "6",
        ],
        2,
        "must be N:SCORE",
    ),
    (["serve", "--no-db", "--tls-cert", "missing.pem", "--tls-key", "k"], 2, "cannot use the TLS"),
    (["--ca", "missing-ca.pem", "ping"], 2, "cannot read that file"),
    (
        ["play", "connect4", "human", "--vs", "mcts", "--db", "/no/such/dir/x.sqlite"],
        2,
        "no directory",
    ),
    (["play", "connect4", "mcts", "--db", "x.sqlite"], 2, "--db is for --vs"),
    (["play", "connect4", "mcts", "--room", "r1", "--tc", "5+3"], 2, "--tc applies to seeks"),
    (["play", "connect4", "mcts", "--games", "-1"], 2, "games must be >= 0"),
    (["play", "connect4", "mcts", "--games", "abc"], 2, "invalid int value"),
    (
        ["play", "connect4", "random", "--port", "{closed}", "--connect-wait", "0"],
        1,
        "cannot connect to the server at 127.0.0.1:",
    ),
    (["watch", "--port", "{closed}"], 1, "cannot connect to the server"),
    (["watch", "x", "--all"], 2, "not both"),
    (["watch", "--interval", "0"], 2, "--interval must be > 0"),
    (["serve", "--move-time", "-1"], 2, "move_time must be > 0"),
    (["serve", "--port", "70000"], 2, "port must be in 0..65535"),
    (["serve", "--tc", "fast"], 2, "'fast' is not MINUTES+SECONDS"),
    (["serve", "--port", "{busy}", "--no-db"], 2, "cannot listen on 127.0.0.1:"),
    (["matches", "--db", MISSING], 2, "no records database at 'nope.sqlite'"),
    (["matches", "--limit", "0", "--db", MISSING], 2, "--limit must be >= 1"),
    (["show", "x", "--db", MISSING], 2, "no records database"),
    (["export", "out.jsonl", "--db", MISSING], 2, "no records database"),
    (["export", "out.txt", "--db", MISSING], 2, "JSON Lines go to a .jsonl file"),
    (["export", "/no/such/dir/out.jsonl", "--db", MISSING], 2, "no directory '/no/such/dir'"),
    (["import", "nofile.jsonl", "--db", MISSING], 2, "cannot read 'nofile.jsonl'"),
    (["backup", "copy.sqlite", "--db", MISSING], 2, "no records database"),
    (["ping", "--port", "{closed}"], 1, "cannot connect to the server"),
    (["ping", "--timeout", "0"], 2, "timeout must be > 0"),
    (["status", "--port", "{closed}"], 1, "cannot connect to the server at 127.0.0.1:"),
    (["tournament", "connect4", "--player", "nosuch", "--player", "random"], 2, "unknown agent"),
    (["demo", "--game", "nosuch"], 2, "unknown game 'nosuch'"),
]


def test_bad_input_gets_one_clear_line_never_a_traceback(tmp_path: Path) -> None:
    closed = free_port()
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        ports = {"closed": str(closed), "busy": str(busy.getsockname()[1])}

        def attempt(case: tuple[list[str], int, str]) -> tuple[list[str], int, str, str]:
            args = [arg.format(**ports) for arg in case[0]]
            done = run(*args, cwd=tmp_path, timeout=60)
            return args, done.returncode, done.stdout, done.stderr

        with ThreadPoolExecutor(max_workers=4) as pool:
            outcomes = list(pool.map(attempt, CASES))
    for (args, code, words), (_, got, out, err) in zip(CASES, outcomes, strict=True):
        shown = f"arena {' '.join(args)} -> exit {got}\n{out}\n{err}"
        assert "Traceback" not in out + err and "ExceptionGroup" not in out + err, shown
        assert got == code, shown
        assert words in err, shown
        assert err.strip().splitlines()[-1].startswith(("arena", "usage")), shown
    assert not (tmp_path / MISSING).exists()  # read commands never create a database
    assert not (tmp_path / "copy.sqlite").exists()
    # a tournament refused for its arguments leaves no empty database behind
    assert not (tmp_path / "arena.sqlite").exists()
