"""The nodes table on PostgreSQL: the shared `store.node_table.NodeRows`, and what only it does.

Leases, reaping and the rest are decided in `store.node_table` on the
database server's clock. Here: concurrent seek offers take turns and pair in
one statement, progress is read in one snapshot, and a node is told things
over ``NOTIFY``/``LISTEN``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from store.interface import MatchProgress, WaitingSeek
from store.node_table import NodeRows
from store.postgres.tables import NOW as _NOW
from store.postgres.tables import PostgresConnections
from store.rows import MATCH_COLUMNS, MOVE_COLUMNS, match_from_row, move_from_row

#: the first key of the per-terms seek locks (pg_advisory_xact_lock(int, int)); "sk"
_SEEK_LOCKS = 0x736B


class PostgresNodes(NodeRows):
    """`NodeTable` on PostgreSQL."""

    def __init__(self, db: PostgresConnections) -> None:
        super().__init__(db)
        self.pg = db

    def progress(self, since: Mapping[str, int], limit: int) -> list[MatchProgress]:
        """One statement (one snapshot): each match row with its new moves beside it."""
        if not since:
            return []
        rows = self.db.query(
            lambda db: db.execute(
                f"SELECT {MATCH_COLUMNS}, v.* FROM unnest(%s::text[], %s::int[]) AS w(want, since)"
                " JOIN matches m ON m.id = w.want LEFT JOIN LATERAL"
                f" (SELECT {MOVE_COLUMNS} FROM moves WHERE match_id = w.want AND ply >= w.since"
                " ORDER BY ply LIMIT %s) v ON true",
                (list(since), list(since.values()), limit),
            ).fetchall()
        )
        found: dict[str, MatchProgress] = {}
        width = len(MATCH_COLUMNS.split(","))
        for row in rows:
            progress = found.get(row[0])
            if progress is None:
                progress = found[row[0]] = MatchProgress(match_from_row(row[:width]), [])
            if row[width] is not None:  # a move (else a match without new moves)
                progress.moves.append(move_from_row(row[width:]))
        for progress in found.values():
            progress.moves.sort(key=lambda move: move.ply)
        return list(found.values())

    def offer_seek(self, seek: str, node: str, name: str, terms: str) -> WaitingSeek | None:
        """Offers of the same terms take turns (a transaction lock on the terms), so two
        seekers arriving together pair with each other instead of both waiting."""

        def offer(db: Any) -> WaitingSeek | None:
            # one round trip: the transaction, the lock and the statement are pipelined (the
            # statement's snapshot is taken after the lock: it sees the offer before it)
            with db.pipeline(), db.transaction():
                db.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_SEEK_LOCKS, terms))
                cursor = db.execute(
                    _OFFER, {"id": seek, "node": node, "name": name, "terms": terms}
                )
            row = cursor.fetchone()
            return None if row is None else WaitingSeek(*row)

        result: WaitingSeek | None = self.db.query(offer)
        return result

    def notify(self, node: str, payload: str) -> None:
        # a retry may deliver twice: a second redirect finds no seeker and is dropped
        self.db.query(lambda db: db.execute("SELECT pg_notify(%s, %s)", (_channel(node), payload)))

    def listen(self, node: str, stop: Callable[[], bool]) -> Iterator[str]:
        """LISTEN on a connection of its own (a pooled one would lose its registration)."""
        import psycopg
        from psycopg import sql

        from store.errors import StoreError

        try:
            session = psycopg.connect(self.pg.conninfo, autocommit=True)
        except psycopg.Error as exc:
            raise StoreError(f"cannot connect to {self.db.path}: {exc}") from None
        with session:
            try:
                session.execute(sql.SQL("LISTEN {}").format(sql.Identifier(_channel(node))))
                while not stop():
                    for message in session.notifies(timeout=1.0, stop_after=64):
                        yield message.payload
            except psycopg.Error as exc:
                raise StoreError(f"{self.db.path}: lost the node's channel: {exc}") from None


#: take the oldest waiting seek of the same terms, or else wait: one statement
_OFFER = f"""
WITH taken AS (
    DELETE FROM seeks WHERE id = (
        SELECT id FROM seeks WHERE terms = %(terms)s AND id <> %(id)s
        ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
    ) RETURNING id, node, name
), waits AS (
    INSERT INTO seeks (id, node, name, terms, created_at)
    SELECT %(id)s, %(node)s, %(name)s, %(terms)s, {_NOW} WHERE NOT EXISTS (SELECT 1 FROM taken)
    ON CONFLICT (id) DO NOTHING
)
SELECT id, node, name FROM taken
"""


def _channel(node: str) -> str:
    """The notification channel of a node (at most 63 bytes, PostgreSQL's limit)."""
    return f"arena_{node}"[:63]


__all__ = ["PostgresNodes"]
