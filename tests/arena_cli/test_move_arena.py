"""Moving an arena to PostgreSQL (`arena import OLD.sqlite --db URL`) and backing it up
(`arena backup --db URL`, then `pg_restore`), as an operator does it: child processes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from store import MatchRecord, MoveRecord
from store.interface import Database, StoredGame
from store.matches import MatchTags
from store.open import open_database
from store.postgres.tables import pg_program
from tests.arena_cli.cli import run
from tests.postgres import PostgresServer


def _arena_with_everything(path: Path) -> None:
    """An SQLite arena as a server and a director leave it: matches, a tournament, accounts."""
    db = open_database(str(path))
    try:
        for i in range(3):
            record = MatchRecord(
                id=f"m{i}", game="tictactoe", options={}, move_time=1.0, lag_margin=0.2,
                players=["a", "b"], status="finished", scores=[1.0, 0.0], winner=0,
                termination="line", reason="X wins", points=None, plies=1,
                started_at=10.0 + i, ended_at=11.0 + i, tournament="t1",
                tags=MatchTags(index=i, seats=("a", "b"), owner="key"),
            )  # fmt: skip
            db.import_match(record, [MoveRecord(f"m{i}", 0, 0, 4, "b2", 0.1, 10.5, eval=0.7)])
        db.tournaments.save("t1", json.dumps({"game": "tictactoe"}), "finished")
        db.tournaments.add_game("t1", StoredGame(0, ("a", "b"), (1.0, 0.0), "line", "m0", 1))
        db.tournaments.owner_key("t1", "key")
        db.accounts.add("alice", "scrypt$hash")
    finally:
        db.close()


def _contents(db: Database) -> tuple[object, ...]:
    matches = db.list_matches(100)
    return (
        matches,
        [db.get_moves(m.id) for m in matches],
        [(t.id, t.config, t.status, t.done, t.owner_key) for t in db.tournaments.all()],
        db.tournaments.games("t1"),
        db.accounts.names(),
        db.accounts.password_hash("alice"),
    )


def test_an_sqlite_arena_moves_to_postgres_whole_and_again_harmlessly(
    tmp_path: Path, postgres_url: str
) -> None:
    source = tmp_path / "old.sqlite"
    _arena_with_everything(source)
    moved = run("import", str(source), "--db", postgres_url)
    assert moved.returncode == 0, moved.stderr
    assert "imported 3 matches, 1 tournaments (1 results) and 1 accounts" in moved.stdout
    old, new = open_database(str(source)), open_database(postgres_url)
    try:
        assert _contents(new) == _contents(old)
    finally:
        old.close()
        new.close()
    again = run("import", str(source), "--db", postgres_url)  # an interrupted move, rerun
    assert again.returncode == 0 and "skipped 3 matches and 1 accounts" in again.stdout
    mixed = run("import", str(source), str(source), "--db", postgres_url)
    assert mixed.returncode == 2 and "alone" in mixed.stderr


def test_a_postgres_arena_is_backed_up_and_restored(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    if pg_program("pg_restore") is None:
        pytest.skip("pg_restore is not installed")
    source = tmp_path / "old.sqlite"
    _arena_with_everything(source)
    url = postgres_server.new_database()
    assert run("import", str(source), "--db", url).returncode == 0
    dump = tmp_path / "arena.pgdump"
    backup = run("backup", str(dump), "--db", url)
    assert backup.returncode == 0, backup.stderr
    assert "3 matches" in backup.stdout and "pg_restore" in backup.stdout
    assert run("backup", str(dump), "--db", url).returncode == 2  # exists: --force to replace
    restored = postgres_server.new_database()
    subprocess.run(
        [pg_program("pg_restore") or "", "--no-owner", "--dbname", restored, str(dump)],
        check=True,
        capture_output=True,
    )
    original, copy = open_database(url), open_database(restored)
    try:
        assert _contents(copy) == _contents(original)
    finally:
        original.close()
        copy.close()
