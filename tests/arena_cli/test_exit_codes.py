"""One exit-code convention, one line per error (issue 26, item 7).

0 done, 1 the work failed, 2 bad input (arguments, environment variables,
files, ports), 130/143 interrupted. Each case is a real `arena` process as a
user would type it; the error is a single line on stderr naming what was
wrong in the user's terms (the flag, the variable, the port, the match).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

from store import SqliteDatabase
from tests.arena_cli.cli import clean_env, free_port, run


@contextmanager
def busy_port() -> Iterator[int]:
    """A port something listens on."""
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        yield int(busy.getsockname()[1])


def test_every_bad_input_is_one_line_naming_it_and_exit_2(tmp_path: Path) -> None:
    db = tmp_path / "records.sqlite"
    SqliteDatabase(str(db)).close()
    players = ["connect4", "-p", "random", "-p", "greedy"]
    with busy_port() as taken:
        # (arguments, extra environment, words the one line must contain)
        cases: list[tuple[list[str], dict[str, str], list[str]]] = [
            (["tournament", *players], {"ARENA_MOVE_TIME": "fast"}, ["$ARENA_MOVE_TIME='fast'"]),
            (
                ["tournament", *players, "--move-time", "abc"],
                {},
                ["--move-time", "invalid float value: 'abc'", "arena tournament --help"],
            ),
            (["--log-level", "verbose"], {}, ["--log-level 'verbose'", "debug, info"]),
            (["games"], {"ARENA_LOG_LEVEL": "loud"}, ["$ARENA_LOG_LEVEL 'loud'"]),
            (["play", "connect4", "mcts", "--games", "x"], {}, ["--games", "invalid int"]),
            (["serve", "--no-db", "--port", str(taken)], {}, [f"127.0.0.1:{taken}", "--port"]),
            (
                ["serve", "--no-db", "--port", str(free_port()), "--web", str(taken)],
                {},
                [f"127.0.0.1:{taken}", "--web"],
            ),
            (
                ["serve", "--no-db", "--port", "0", "--web", "0"],
                {"ARENA_WEB_ENGINE_LIMIT": "many"},
                ["$ARENA_WEB_ENGINE_LIMIT='many'"],
            ),
            (["show", "zzz", "--db", str(db)], {}, ["no match 'zzz'"]),
            (["play", "connect4", "mcts"], {"ARENA_PORT": "abc"}, ["$ARENA_PORT='abc'"]),
            (["ping"], {"ARENA_PORT": "99999"}, ["$ARENA_PORT 99999", "1..65535"]),
            (["watch", "--port", "0"], {}, ["--port 0", "1..65535"]),
        ]

        def attempt(case: tuple[list[str], dict[str, str], list[str]]) -> tuple[int, str, str]:
            done = run(*case[0], env=clean_env(**case[1]), cwd=tmp_path, timeout=60)
            return done.returncode, done.stdout, done.stderr

        with ThreadPoolExecutor(max_workers=2) as pool:
            outcomes = list(pool.map(attempt, cases))
    for (args, env, words), (code, out, err) in zip(cases, outcomes, strict=True):
        shown = f"{env} arena {' '.join(args)} -> exit {code}\n{out}\n{err}"
        assert code == 2, shown
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("arena"), shown
        assert "usage:" not in out + err and "Traceback" not in out + err, shown
        assert all(word in lines[0] for word in words), shown
    assert not (tmp_path / "arena.sqlite").exists()  # refused before any database was made


def test_a_server_that_cannot_be_reached_is_exit_1() -> None:
    """The work failed (not the input): nothing answers on that port."""
    done = run("ping", "--port", str(free_port()), "--timeout", "2")
    assert done.returncode == 1, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "127.0.0.1:" in done.stderr
