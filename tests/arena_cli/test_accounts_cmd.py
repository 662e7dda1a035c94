"""`arena accounts` on both backends, as an operator runs it: a child process, a pipe for
the password, one line per error; the server then admits (or refuses) the name."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from protocol.messages import Error, Welcome
from server.accounts import verify_password
from store.open import open_database
from tests.arena_cli.cli import ARENA, ROOT, clean_env
from tests.postgres import PostgresServer
from tests.server.harness import RawClient
from tests.server.serverproc import server_process

SCENARIOS = {
    **dict.fromkeys(
        ("arena accounts list", "arena accounts add alice", "arena accounts delete alice"),
        "test_the_help_examples_run_as_written",
    ),
    **dict.fromkeys(  # the README's synopses
        ("arena accounts add NAME", "arena accounts reset NAME", "arena accounts delete NAME"),
        "test_add_list_reset_delete",
    ),
}


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "arena.sqlite")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.new_database()


def accounts(*args: str, password: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ARENA, "accounts", *args],
        input=password,
        capture_output=True,
        text=True,
        env=clean_env(),
        cwd=ROOT,
        timeout=60,
    )


def stored_hash(db: str, name: str) -> str | None:
    database = open_database(db)
    try:
        return database.accounts.password_hash(name)
    finally:
        database.close()


def test_add_list_reset_delete(db: str) -> None:
    added = accounts("add", "alice", "--db", db, password="first secret\n")
    assert added.returncode == 0 and "registered alice" in added.stdout, added.stderr
    assert verify_password("first secret", stored_hash(db, "alice") or "")
    assert accounts("add", "bob", "--db", db, password="bobs secret\n").returncode == 0
    listed = accounts("list", "--db", db)
    assert listed.returncode == 0
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == ["alice", "bob"]
    assert "2 registered names" in listed.stderr
    reset = accounts("reset", "alice", "--db", db, password="second secret\n")
    assert reset.returncode == 0, reset.stderr
    assert verify_password("second secret", stored_hash(db, "alice") or "")
    deleted = accounts("delete", "bob", "--db", db)
    assert deleted.returncode == 0 and stored_hash(db, "bob") is None


def test_bad_input_is_one_line_and_exit_2(db: str, tmp_path: Path) -> None:
    assert accounts("add", "alice", "--db", db, password="long enough\n").returncode == 0
    for args, password, words in (
        (("add", "alice"), "another one\n", "registered already"),
        (("reset", "carol"), "long enough\n", "no registered name"),
        (("delete", "carol"), None, "no registered name"),
        (("add", "dave"), "short\n", "at least 8 characters"),
    ):
        result = accounts(*args, "--db", db, password=password)
        assert result.returncode == 2, result
        assert result.stderr.count("\n") == 1 and words in result.stderr
        assert "Traceback" not in result.stderr
    missing = accounts("list", "--db", str(tmp_path / "none.sqlite"))
    assert missing.returncode == 2 and "no records database" in missing.stderr
    assert not (tmp_path / "none.sqlite").exists()


async def test_the_server_admits_the_name_with_its_new_password(db: str, tmp_path: Path) -> None:
    assert accounts("add", "alice", "--db", db, password="first secret\n").returncode == 0
    assert accounts("reset", "alice", "--db", db, password="second secret\n").returncode == 0
    with server_process(db, tmp_path / "serve.log", cwd=tmp_path) as server:
        for password, expected in (("first secret", Error), ("second secret", Welcome)):
            client = await RawClient.connect(server.port)
            await client.send({"type": "hello", "version": 1, "name": "alice", "role": "player",
                               "password": password})  # fmt: skip
            answer = await client.receive()
            assert isinstance(answer, expected), answer
            await client.aclose()


def test_the_help_examples_run_as_written(tmp_path: Path) -> None:
    """The examples of `arena accounts --help`, in a directory of their own (./arena.sqlite)."""
    for example, password in (
        ("arena accounts add alice", "a secret pass\n"),
        ("arena accounts list", None),
        ("arena accounts delete alice", None),
    ):
        result = subprocess.run(
            [*ARENA, *example.split()[1:]],
            input=password,
            capture_output=True,
            text=True,
            env=clean_env(),
            cwd=tmp_path,
            timeout=60,
        )
        assert result.returncode == 0, (example, result.stderr)
    assert stored_hash(str(tmp_path / "arena.sqlite"), "alice") is None
