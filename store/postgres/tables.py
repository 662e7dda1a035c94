"""The tournament and account tables of the PostgreSQL backend (`store.interface`).

Same meaning as their SQLite twins (`store.sqlite.tournaments`,
`store.sqlite.accounts`), in PostgreSQL's dialect, over the backend's pool.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import Any, Protocol

from store.interface import StoredGame, StoredTournament, TaggedTournament
from store.matches import like_prefix

#: Debian keeps PostgreSQL's programs here, off PATH (newest version first)
_PG_BIN_DIRS = sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True)


def pg_program(name: str) -> str | None:
    """The path of a PostgreSQL program (pg_dump, pg_restore, initdb...), or None."""
    found = shutil.which(name)
    if found:
        return found
    for folder in _PG_BIN_DIRS:
        candidate = os.path.join(folder, name)
        if os.access(candidate, os.X_OK):
            return candidate
    return None


#: the first key of every director lock (pg_advisory_lock(int, int)); "ar" in ASCII
LOCK_SPACE = 0x6172


class Connections(Protocol):
    """What the tables need of `store.postgres.PostgresDatabase`."""

    path: str
    #: how to open a connection of our own (one that holds a session lock)
    conninfo: str

    def transaction(self) -> AbstractContextManager[Any]: ...

    def connection(self) -> AbstractContextManager[Any]: ...

    def query(self, read: Callable[[Any], Any]) -> Any: ...

    def transact(self, work: Callable[[Any], Any]) -> Any: ...


class PostgresTournaments:
    """`TournamentTables` on PostgreSQL."""

    def __init__(self, db: Connections) -> None:
        self.db = db

    def save(self, tournament_id: str, config: str, status: str) -> None:
        now = time.time()
        with self.db.transaction() as db:
            db.execute(
                "INSERT INTO tournaments (id, config, status, created_at, updated_at)"
                " VALUES (%s,%s,%s,%s,%s) ON CONFLICT (id) DO UPDATE SET"
                " status=EXCLUDED.status, updated_at=EXCLUDED.updated_at",
                (tournament_id, config, status, now, now),
            )

    def owner_key(self, tournament_id: str, new_key: str) -> str:
        with self.db.transaction() as db:
            row = db.execute(
                "SELECT owner_key FROM tournaments WHERE id=%s FOR UPDATE", (tournament_id,)
            ).fetchone()
            if row is not None and row[0]:
                return str(row[0])
            db.execute("UPDATE tournaments SET owner_key=%s WHERE id=%s", (new_key, tournament_id))
            return new_key

    def find(self, tournament_id: str) -> StoredTournament | None:
        with self.db.connection() as db:
            rows = db.execute(
                "SELECT id, config, status, created_at FROM tournaments"
                " WHERE id=%s OR id LIKE %s ESCAPE '\\' LIMIT 2",
                (tournament_id, like_prefix(tournament_id)),
            ).fetchall()
        exact = [row for row in rows if row[0] == tournament_id]
        if exact or len(rows) == 1:
            return StoredTournament(*(exact or rows)[0])
        return None

    def all(self) -> list[StoredTournament]:
        with self.db.connection() as db:
            rows = db.execute(
                "SELECT t.id, t.config, t.status, t.created_at, COUNT(g.idx),"
                " coalesce(t.owner_key, '') FROM tournaments t"
                " LEFT JOIN tournament_games g ON g.tournament = t.id"
                " GROUP BY t.id ORDER BY t.created_at DESC"
            ).fetchall()
        return [StoredTournament(*row) for row in rows]

    def add_game(self, tournament_id: str, game: StoredGame) -> None:
        with self.db.transaction() as db:
            db.execute(
                "INSERT INTO tournament_games (tournament, idx, seats, scores, termination,"
                " match_id, plies, finished_at) VALUES (%s,%s,%s,%s,%s,%s,%s,%s)"
                " ON CONFLICT (tournament, idx) DO UPDATE SET seats=EXCLUDED.seats,"
                " scores=EXCLUDED.scores, termination=EXCLUDED.termination,"
                " match_id=EXCLUDED.match_id, plies=EXCLUDED.plies,"
                " finished_at=EXCLUDED.finished_at",
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
        with self.db.connection() as db:
            rows = db.execute(
                "SELECT idx, seats, scores, termination, match_id, plies FROM tournament_games"
                " WHERE tournament=%s",
                (tournament_id,),
            ).fetchall()
        return [
            StoredGame(
                row[0],
                tuple(str(seat) for seat in json.loads(row[1])),
                tuple(float(score) for score in json.loads(row[2])),
                *row[3:],
            )
            for row in rows
        ]

    def tagged(self) -> list[TaggedTournament]:
        with self.db.connection() as db:
            rows = db.execute(
                "SELECT tournament, MIN(game), COUNT(*), MIN(started_at) FROM matches"
                " WHERE tournament IS NOT NULL GROUP BY tournament"
            ).fetchall()
        return [TaggedTournament(*row) for row in rows]

    @contextlib.contextmanager
    def hold(self, tournament_id: str) -> Iterator[bool]:
        """A session advisory lock on a connection of its own, kept for the block.

        PostgreSQL drops it when that connection ends: the director exits, is
        killed, or its host goes away (after the TCP keepalive notices).
        """
        import psycopg

        from store.errors import StoreError

        try:
            session = psycopg.connect(self.db.conninfo, autocommit=True)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to {self.db.path}: {exc}") from None
        with session:
            row = session.execute(
                "SELECT pg_try_advisory_lock(%s, hashtext(%s))", (LOCK_SPACE, tournament_id)
            ).fetchone()
            acquired = bool(row and row[0])
            try:
                yield acquired
            finally:
                if acquired:  # at once: the session's end is noticed a moment later
                    with contextlib.suppress(psycopg.Error):
                        session.execute(
                            "SELECT pg_advisory_unlock(%s, hashtext(%s))",
                            (LOCK_SPACE, tournament_id),
                        )

    def is_held(self, tournament_id: str) -> bool:
        with self.db.connection() as db:
            row = db.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                " AND classid = %s AND objid = hashtext(%s)::oid AND objsubid = 2",
                (LOCK_SPACE, tournament_id),
            ).fetchone()
        return bool(row and row[0])


class PostgresAccounts:
    """`AccountTable` on PostgreSQL."""

    def __init__(self, db: Connections) -> None:
        self.db = db

    def password_hash(self, name: str) -> str | None:
        row = self.db.query(
            lambda db: db.execute(
                "SELECT password_hash FROM accounts WHERE name=%s", (name,)
            ).fetchone()
        )
        return None if row is None else str(row[0])

    def add(self, name: str, password_hash: str) -> bool:
        with self.db.transaction() as db:
            cursor = db.execute(
                "INSERT INTO accounts (name, password_hash, created_at) VALUES (%s,%s,%s)"
                " ON CONFLICT (name) DO NOTHING",
                (name, password_hash, time.time()),
            )
            return int(cursor.rowcount) == 1

    def set_password(self, name: str, password_hash: str) -> bool:
        with self.db.transaction() as db:
            cursor = db.execute(
                "UPDATE accounts SET password_hash=%s WHERE name=%s", (password_hash, name)
            )
            return int(cursor.rowcount) == 1

    def remove(self, name: str) -> bool:
        with self.db.transaction() as db:
            return int(db.execute("DELETE FROM accounts WHERE name=%s", (name,)).rowcount) == 1

    def names(self) -> list[str]:
        return [name for name, _ in self.entries()]

    def entries(self) -> list[tuple[str, float]]:
        with self.db.connection() as db:
            rows = db.execute("SELECT name, created_at FROM accounts ORDER BY name").fetchall()
        return [(str(name), float(created)) for name, created in rows]
