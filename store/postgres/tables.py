"""PostgreSQL's dialect, its director lock, and where its programs are.

The tables are the shared ones (`store.tournament_table`, `store.node_table`,
`store.pool_table`, `store.account_table`) in this dialect: the database
server's clock, and row locks where several servers act at once.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
from collections.abc import Iterator
from typing import Protocol

from store.dialect import Connections, Dialect
from store.tournament_table import TournamentRows

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


#: the database server's clock, seconds since the epoch (every host reads the same one)
NOW = "extract(epoch from clock_timestamp())"

#: PostgreSQL's spelling of what differs (`store.dialect`)
DIALECT = Dialect(
    name="postgresql",
    mark="%s",
    now=NOW,
    tag_pattern="tags::jsonb->>'{key}'",
    for_update=" FOR UPDATE",
    skip_locked=" FOR UPDATE SKIP LOCKED",
)

#: the first key of every director lock (pg_advisory_lock(int, int)); "ar" in ASCII
LOCK_SPACE = 0x6172


class PostgresConnections(Connections, Protocol):
    """What PostgreSQL's own parts need of `store.postgres.PostgresDatabase`."""

    #: how to open a connection of our own (one that holds a session lock, or listens)
    conninfo: str


class PostgresTournaments(TournamentRows):
    """`TournamentTables` on PostgreSQL: the shared tables, and a session lock per director."""

    def __init__(self, db: PostgresConnections) -> None:
        super().__init__(db)
        self.pg = db

    @contextlib.contextmanager
    def hold(self, tournament_id: str) -> Iterator[bool]:
        """A session advisory lock on a connection of its own, kept for the block.

        PostgreSQL drops it when that connection ends: the director exits, is
        killed, or its host goes away (after the TCP keepalive notices).
        """
        import psycopg

        from store.errors import StoreError

        try:
            session = psycopg.connect(self.pg.conninfo, autocommit=True)
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
        row = self.db.query(
            lambda db: db.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted"
                " AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                " AND classid = %s AND objid = hashtext(%s)::oid AND objsubid = 2",
                (LOCK_SPACE, tournament_id),
            ).fetchone()
        )
        return bool(row and row[0])


__all__ = [
    "DIALECT",
    "LOCK_SPACE",
    "NOW",
    "PostgresConnections",
    "PostgresTournaments",
    "pg_program",
]
