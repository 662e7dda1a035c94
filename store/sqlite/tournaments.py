"""The tournament tables of the SQLite database (`store.interface.TournamentTables`).

The configuration is stored as the JSON text its owner wrote; this module
keeps it and hands it back, it does not read it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from store.interface import StoredGame, StoredTournament, TaggedTournament
from store.matches import like_prefix


class Connections(Protocol):
    """What the tables need of `store.sqlite.SqliteDatabase`: its path, its writer and its reader."""

    path: str

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]: ...

    def reading(self) -> AbstractContextManager[sqlite3.Connection]: ...


class SQLiteTournaments:
    """`TournamentTables` on a `store.sqlite.SqliteDatabase` (its writer and reader connections)."""

    def __init__(self, store: Connections) -> None:
        self.store = store

    def save(self, tournament_id: str, config: str, status: str) -> None:
        """Store a tournament's configuration (first time) and its status (every time)."""
        now = time.time()
        with self.store.transaction() as db:
            db.execute(
                "INSERT INTO tournaments (id, config, status, created_at, updated_at)"
                " VALUES (?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET status=excluded.status,"
                " updated_at=excluded.updated_at",
                (tournament_id, config, status, now, now),
            )

    def owner_key(self, tournament_id: str, new_key: str) -> str:
        """The tournament's pool owner key: the stored one, else `new_key`, stored now."""
        with self.store.transaction() as db:
            row = db.execute(
                "SELECT owner_key FROM tournaments WHERE id=?", (tournament_id,)
            ).fetchone()
            if row is not None and row[0]:
                return str(row[0])
            db.execute("UPDATE tournaments SET owner_key=? WHERE id=?", (new_key, tournament_id))
            return new_key

    def find(self, tournament_id: str) -> StoredTournament | None:
        """The tournament with this id, or the one whose id starts with it (None: none, or two)."""
        with self.store.reading() as db:
            rows = db.execute(
                "SELECT id, config, status, created_at FROM tournaments"
                " WHERE id=? OR id LIKE ? ESCAPE '\\' LIMIT 2",
                (tournament_id, like_prefix(tournament_id)),
            ).fetchall()
        exact = [row for row in rows if row[0] == tournament_id]
        if exact or len(rows) == 1:
            return StoredTournament(*(exact or rows)[0])
        return None

    def all(self) -> list[StoredTournament]:
        """Every stored tournament, newest first, with its number of results."""
        with self.store.reading() as db:
            rows = db.execute(
                "SELECT t.id, t.config, t.status, t.created_at, COUNT(g.idx),"
                " coalesce(t.owner_key, '') FROM tournaments t"
                " LEFT JOIN tournament_games g ON g.tournament = t.id"
                " GROUP BY t.id ORDER BY t.created_at DESC"
            ).fetchall()
        return [StoredTournament(*row) for row in rows]

    def add_game(self, tournament_id: str, game: StoredGame) -> None:
        """Record (or replace) the result of the game at `game.index`."""
        with self.store.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO tournament_games (tournament, idx, seats, scores,"
                " termination, match_id, plies, finished_at) VALUES (?,?,?,?,?,?,?,?)",
                (
                    tournament_id,
                    game.index,
                    json.dumps(list(game.seats)),
                    json.dumps(list(game.scores)),
                    game.termination,
                    game.match_id,
                    game.plies,
                    time.time(),
                ),
            )

    def games(self, tournament_id: str) -> list[StoredGame]:
        """The recorded results of a tournament's games."""
        with self.store.reading() as db:
            rows = db.execute(
                "SELECT idx, seats, scores, termination, match_id, plies FROM tournament_games"
                " WHERE tournament=?",
                (tournament_id,),
            ).fetchall()
        return [
            StoredGame(row[0], _strings(json.loads(row[1])), _floats(json.loads(row[2])), *row[3:])
            for row in rows
        ]

    def tagged(self) -> list[TaggedTournament]:
        """Every tournament named by a match record, with its game and number of matches."""
        with self.store.reading() as db:
            rows = db.execute(
                "SELECT tournament, MIN(game), COUNT(*), MIN(started_at) FROM matches"
                " WHERE tournament IS NOT NULL GROUP BY tournament"
            ).fetchall()
        return [TaggedTournament(*row) for row in rows]

    @contextlib.contextmanager
    def hold(self, tournament_id: str) -> Iterator[bool]:
        """An exclusive ``flock`` on ``<db>.<id>.lock`` (dropped by the kernel when we die)."""
        path = lock_path(self.store.path, tournament_id)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                with contextlib.suppress(OSError):
                    path.unlink()
        finally:
            os.close(fd)

    def is_held(self, tournament_id: str) -> bool:
        path = lock_path(self.store.path, tournament_id)
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False


def lock_path(db_path: str, tournament_id: str) -> Path:
    """The director's lock file of a tournament, beside the database file."""
    return Path(f"{db_path}.{tournament_id}.lock")


def _strings(values: Sequence[Any]) -> tuple[str, ...]:
    return tuple(str(value) for value in values)


def _floats(values: Sequence[Any]) -> tuple[float, ...]:
    return tuple(float(value) for value in values)
