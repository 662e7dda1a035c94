"""What is SQLite's own in the records store: its file, migrations, faults and backup.

What every backend promises is tests/store/test_database.py.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from store import (
    SCHEMA_VERSION,
    Journal,
    MatchRecord,
    MatchWrite,
    MoveRecord,
    ResultRecord,
    SqliteDatabase,
    StoreError,
    import_journal,
    move_row,
)


def _record(match_id: str) -> MatchRecord:
    return MatchRecord(
        id=match_id,
        game="tictactoe",
        options={},
        move_time=1.0,
        lag_margin=0.2,
        players=["a", "b"],
        status="finished",
        scores=[1.0, 0.0],
        winner=0,
        termination="line",
        reason="X wins (line)",
        points=None,
        plies=1,
        started_at=1.0,
        ended_at=2.0,
        tournament=None,
    )


_INFOS: list[dict[str, Any]] = [
    {"eval": 0.62, "depth": 14, "visits": 35_210, "pv": ("d3", "e6", "f4")},
    {},
    {"eval": 1.0},
    {"eval": 0.0, "visits": 2**53},
    {"depth": 0, "pv": ("pass",)},
    {"pv": ('x"y]', "\\", "é")},
]


def test_move_info_comes_back_exactly_as_written(tmp_path: Path) -> None:
    store = SqliteDatabase(str(tmp_path / "arena.sqlite"))
    moves = [
        MoveRecord("m", ply, ply % 2, ply, f"n{ply}", 0.1, 1e9 + ply, **_INFOS[ply % len(_INFOS)])
        for ply in range(12)
    ]
    rows = [move_row(m) for m in moves]
    assert [len(row) for row in rows[:2]] == [11, 7]  # no info: the row stays short
    running = dataclasses.replace(_record("m"), status="running", scores=None, winner=None)
    report = store.write([MatchWrite("m", record=running, moves=rows)])
    assert report.error is None
    assert store.get_moves("m") == moves
    with store.reading() as db:  # absent info is NULL, a pv is a JSON array
        stored = db.execute("SELECT eval, depth, visits, pv FROM moves WHERE ply < 2 ORDER BY ply")
        assert stored.fetchall() == [(0.62, 14, 35_210, '["d3","e6","f4"]'), (None,) * 4]
    store.close()


def test_the_journal_carries_move_info_into_the_database(tmp_path: Path) -> None:
    moves = [
        MoveRecord("j", ply, ply % 2, ply, f"n{ply}", 0.1, 1e9 + ply, **_INFOS[ply % len(_INFOS)])
        for ply in range(len(_INFOS))
    ]
    journal = Journal(str(tmp_path / "arena.sqlite.unwritten.jsonl"))
    write = MatchWrite("j", _record("j"), [move_row(m) for m in moves], _result("j"))
    journal.append([write])
    store = SqliteDatabase(str(tmp_path / "arena.sqlite"))
    assert import_journal(store, journal) == (1, 0)
    assert store.get_moves("j") == moves
    store.close()


# --- writes: one match's failure is its own --------------------------------------


def _running(match_id: str) -> MatchRecord:
    return _replace(_record(match_id), status="running", scores=None)


def _replace(record: MatchRecord, **changes: Any) -> MatchRecord:
    return dataclasses.replace(record, **changes)


def _move(match_id: str, ply: int) -> MoveRecord:
    return MoveRecord(match_id, ply, ply % 2, 4, "b2", 0.1, 1.0)


def _result(match_id: str) -> ResultRecord:
    return ResultRecord(match_id, "finished", [1.0, 0.0], 0, "line", "X wins", None, 1, 2.0)


# --- opening: migrations and bad files ------------------------------------------------

_V1_SCHEMA = """
CREATE TABLE matches (id TEXT PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL,
 move_time REAL NOT NULL, lag_margin REAL NOT NULL, players TEXT NOT NULL, status TEXT NOT NULL,
 scores TEXT, winner INTEGER, termination TEXT, reason TEXT, points TEXT,
 plies INTEGER NOT NULL DEFAULT 0, started_at REAL NOT NULL, ended_at REAL, tournament TEXT,
 extra TEXT NOT NULL DEFAULT '{}');
CREATE TABLE moves (match_id TEXT NOT NULL REFERENCES matches(id), ply INTEGER NOT NULL,
 seat INTEGER NOT NULL, move TEXT NOT NULL, notation TEXT NOT NULL, think_time REAL NOT NULL,
 at REAL NOT NULL, PRIMARY KEY (match_id, ply));
CREATE TABLE tournaments (id TEXT PRIMARY KEY, config TEXT NOT NULL, status TEXT NOT NULL,
 created_at REAL NOT NULL, updated_at REAL NOT NULL);
INSERT INTO matches VALUES ('m0001-aaaaaa', 'tictactoe', '{}', 1.0, 0.2, '["a","b"]',
 'finished', '[1.0,0.0]', 0, 'line', 'X wins', NULL, 5, 1.0, 2.0, 't-1', '{"index": 3}');
INSERT INTO moves VALUES ('m0001-aaaaaa', 0, 0, '4', 'b2', 0.1, 1.5);
PRAGMA user_version=1;
"""


def test_a_database_of_the_first_release_is_upgraded(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as old:  # the schema version 1 wrote (PRAGMA journal_mode=WAL)
        old.executescript(_V1_SCHEMA)
    store = SqliteDatabase(str(path), check=True)
    assert store.upgraded_from == 1
    record = store.get_match("m0001")
    assert (
        record is not None and record.players == ["a", "b"] and len(store.get_moves(record.id)) == 1
    )
    found = store.find_tournament_game("t-1", 3, "")  # the index was moved into its column
    assert found is not None and found.id == "m0001-aaaaaa"
    assert store.get_moves(record.id) == [MoveRecord(record.id, 0, 0, 4, "b2", 0.1, 1.5)]
    store.close()
    again = SqliteDatabase(str(path))
    assert again.upgraded_from == SCHEMA_VERSION
    again.close()


#: the moves table up to version 4, before move info (a whole version-4 file: v1 above + v2-v4)
_V4_SCHEMA = (
    _V1_SCHEMA.replace("PRAGMA user_version=1;", "")
    + """
CREATE TABLE tournament_games (tournament TEXT NOT NULL REFERENCES tournaments(id),
 idx INTEGER NOT NULL, seats TEXT NOT NULL, scores TEXT NOT NULL, termination TEXT NOT NULL,
 match_id TEXT NOT NULL, plies INTEGER NOT NULL, finished_at REAL NOT NULL,
 PRIMARY KEY (tournament, idx));
ALTER TABLE matches ADD COLUMN game_index INTEGER;
CREATE TABLE accounts (name TEXT PRIMARY KEY, password_hash TEXT NOT NULL,
 created_at REAL NOT NULL);
ALTER TABLE tournaments ADD COLUMN owner_key TEXT;
PRAGMA user_version=4;
"""
)


def test_a_version_4_database_gains_the_move_info_columns(tmp_path: Path) -> None:
    path = tmp_path / "v4.sqlite"
    with sqlite3.connect(path) as old:
        old.executescript(_V4_SCHEMA)
    store = SqliteDatabase(str(path), check=True)
    assert store.upgraded_from == 4
    with store.reading() as db:
        columns = [row[1] for row in db.execute("PRAGMA table_info(moves)")]
    assert columns[-4:] == ["eval", "depth", "visits", "pv"]
    old_move = MoveRecord("m0001-aaaaaa", 0, 0, 4, "b2", 0.1, 1.5)
    assert store.get_moves("m0001-aaaaaa") == [old_move]  # an old move: no info
    new_move = MoveRecord("m0001-aaaaaa", 1, 1, 0, "a3", 0.2, 1.6, 0.25, 3, 120, ("a3", "c1"))
    assert store.write([MatchWrite("m0001-aaaaaa", moves=[move_row(new_move)])]).error is None
    assert store.get_moves("m0001-aaaaaa") == [old_move, new_move]
    store.close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 10
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.mkdir(), "is a directory"),
        (lambda p: p.write_bytes(b"this is not a database" * 100), "not an SQLite database"),
        (
            lambda p: sqlite3.connect(p).executescript(
                "CREATE TABLE customers (x); PRAGMA user_version=0;"
            ),
            "another program",
        ),
        (
            lambda p: sqlite3.connect(p).executescript(
                f"PRAGMA user_version={SCHEMA_VERSION + 1};"
            ),
            "newer than this program",
        ),
    ],
    ids=["directory", "garbage", "foreign", "newer"],
)
def test_unusable_databases_get_one_clear_line_and_are_not_touched(
    tmp_path: Path, make: Any, message: str
) -> None:
    path = tmp_path / "arena.sqlite"
    make(path)
    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(StoreError, match=message) as caught:
        SqliteDatabase(str(path), check=True)
    assert "\n" not in str(caught.value)
    if before is not None:
        assert path.read_bytes() == before


def test_a_locked_database_is_reported_as_locked(tmp_path: Path) -> None:
    path = tmp_path / "arena.sqlite"
    SqliteDatabase(str(path)).close()
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode=DELETE")  # so that a lock blocks readers too
    holder.execute("BEGIN EXCLUSIVE")
    try:
        with pytest.raises(StoreError, match="locked"):
            SqliteDatabase(str(path), busy_timeout=0.1)
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def _arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena_cli.main", *args], capture_output=True, text=True, timeout=60
    )


def test_serve_refuses_a_bad_database_with_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "arena.sqlite"
    bad.write_bytes(b"\x00garbage" * 64)
    result = _arena("serve", "--port", "0", "--db", str(bad))
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "not an SQLite database" in result.stderr
    assert "Traceback" not in result.stderr


def test_backup_while_a_writer_is_busy(tmp_path: Path) -> None:
    path, copy_path = tmp_path / "arena.sqlite", tmp_path / "copy.sqlite"
    store = SqliteDatabase(str(path))
    for i in range(50):
        store.import_match(_replace(_record(f"m{i}"), id=f"m{i}"), [])
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # a write transaction open meanwhile
    writer.execute("UPDATE matches SET reason='changing' WHERE id='m0'")
    result = _arena("backup", str(copy_path), "--db", str(path))
    writer.execute("COMMIT")
    assert result.returncode == 0, result.stderr
    assert "50 matches" in result.stdout
    copy = SqliteDatabase(str(copy_path))
    assert copy.integrity_check() == ["ok"] and len(copy.list_matches(100)) == 50
    assert copy.get_match("m0").reason == "X wins (line)"  # type: ignore[union-attr]
    again = _arena("backup", str(copy_path), "--db", str(path))
    assert again.returncode == 2 and "exists" in again.stderr


def test_a_version_5_database_gets_typed_tags(tmp_path: Path) -> None:
    from protocol.messages import Clock
    from store.matches import MatchTags
    from store.sqlite.schema import MIGRATIONS

    path = str(tmp_path / "v5.sqlite")
    with sqlite3.connect(path) as db:
        for script in MIGRATIONS[:5]:
            db.executescript(script)
        db.execute("PRAGMA user_version = 5")
        columns = "id, game, options, move_time, lag_margin, players, status, plies, started_at"
        for match_id, extra in (
            ("m-old", {"opening": {"moves": [4, 0]}, "index": 3, "owner": "k", "junk": 1}),
            ("m-clock", {"clock": {"initial": 300.0, "increment": 3.0}, "room": "r1"}),
            ("m-bad", {"index": "three", "seats": ["a", "b"], "opening": 7}),
        ):
            db.execute(
                f"INSERT INTO matches ({columns}, tournament, extra)"
                " VALUES (?, 'tictactoe', '{}', 1.0, 0.2, '[\"a\",\"b\"]', 'running', 0, 1.0, 't', ?)",
                (match_id, json.dumps(extra)),
            )
    store = SqliteDatabase(path)
    try:
        tags = {m.id: m.tags for m in store.list_matches()}
    finally:
        store.close()
    assert tags == {
        "m-old": MatchTags(index=3, owner="k", opening=(4, 0)),
        "m-clock": MatchTags(clock=Clock(300.0, 3.0), room="r1"),
        "m-bad": MatchTags(seats=("a", "b")),  # a value of the wrong type is dropped, alone
    }
    with sqlite3.connect(path) as db:
        names = [row[1] for row in db.execute("PRAGMA table_info(matches)")]
    assert "tags" in names and "extra" not in names
