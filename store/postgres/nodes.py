"""The nodes table on PostgreSQL: servers sharing one database, each alive while its lease runs.

Every time is the database server's clock (``clock_timestamp()``), so hosts
whose clocks disagree still agree on who is dead. `reap` deletes an expired
node and aborts its running matches in one transaction: the DELETE locks the
row, so when two survivors reap at once, exactly one of them finds it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from store.interface import MatchProgress, NodeRow, RunningMatch, WaitingSeek
from store.postgres.tables import Connections
from store.rows import MATCH_COLUMNS, MOVE_COLUMNS, match_from_row, move_from_row

_NOW = "extract(epoch from clock_timestamp())"
#: the first key of the per-terms seek locks (pg_advisory_xact_lock(int, int)); "sk"
_SEEK_LOCKS = 0x736B


class PostgresNodes:
    """`NodeTable` on PostgreSQL."""

    def __init__(self, db: Connections) -> None:
        self.db = db

    def register(self, node: str, address: str, lease: float) -> None:
        with self.db.transaction() as db:
            db.execute(
                f"INSERT INTO nodes (id, address, started_at, lease_until) VALUES"
                f" (%s, %s, {_NOW}, {_NOW} + %s) ON CONFLICT (id) DO UPDATE SET"
                " address = EXCLUDED.address, lease_until = EXCLUDED.lease_until",
                (node, address, lease),
            )

    def renew(self, node: str, lease: float) -> bool:
        with self.db.transaction() as db:
            cursor = db.execute(
                f"UPDATE nodes SET lease_until = {_NOW} + %s WHERE id = %s", (lease, node)
            )
            return int(cursor.rowcount) == 1

    def leave(self, node: str) -> None:
        with self.db.transaction() as db:
            db.execute("DELETE FROM nodes WHERE id = %s", (node,))

    def live(self) -> list[NodeRow]:
        with self.db.connection() as db:
            rows = db.execute(
                "SELECT id, address, started_at, lease_until FROM nodes"
                f" WHERE lease_until >= {_NOW} ORDER BY started_at, id"
            ).fetchall()
        return [NodeRow(*row) for row in rows]

    def reap(self, reason: str) -> dict[str, int]:
        reaped: dict[str, int] = {}
        with self.db.transaction() as db:
            dead = [
                row[0]
                for row in db.execute(
                    f"DELETE FROM nodes WHERE lease_until < {_NOW} RETURNING id"
                ).fetchall()
            ]
            for node in dead:
                cursor = db.execute(
                    "UPDATE matches SET status = 'aborted', termination = 'aborted',"
                    f" reason = %s, ended_at = {_NOW}"
                    " WHERE status = 'running' AND tags::jsonb->>'node' = %s",
                    (reason, node),
                )
                reaped[node] = int(cursor.rowcount)
                db.execute("DELETE FROM seeks WHERE node = %s", (node,))
                db.execute("DELETE FROM pool_seeks WHERE node = %s", (node,))
                db.execute(
                    f"UPDATE pools SET node = '', idle_since = {_NOW} WHERE node = %s", (node,)
                )
        return reaped

    def running(self, exclude: str | None = None) -> list[RunningMatch]:
        with self.db.connection() as db:
            rows = db.execute(
                f"SELECT {MATCH_COLUMNS}, (SELECT count(*) FROM moves v WHERE v.match_id = m.id)"
                " FROM matches m WHERE status = 'running'"
                " AND coalesce(tags::jsonb->>'node', '') <> %s ORDER BY started_at, id",
                (exclude or "",),
            ).fetchall()
        return [_running(row) for row in rows]

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

    def withdraw_seek(self, seek: str) -> bool:
        deleted = self.db.query(
            lambda db: db.execute("DELETE FROM seeks WHERE id = %s", (seek,)).rowcount
        )
        return int(deleted) == 1

    def waiting_seeks(self) -> list[WaitingSeek]:
        rows = self.db.query(
            lambda db: db.execute(
                "SELECT id, node, name FROM seeks ORDER BY created_at, id"
            ).fetchall()
        )
        return [WaitingSeek(*row) for row in rows]

    def withdraw_node_seeks(self, node: str) -> int:
        with self.db.transaction() as db:
            plain = db.execute("DELETE FROM seeks WHERE node = %s", (node,)).rowcount
            pooled = db.execute("DELETE FROM pool_seeks WHERE node = %s", (node,)).rowcount
            db.execute(f"UPDATE pools SET node = '', idle_since = {_NOW} WHERE node = %s", (node,))
            return int(plain) + int(pooled)

    def notify(self, node: str, payload: str) -> None:
        # a retry may deliver twice: a second redirect finds no seeker and is dropped
        self.db.query(lambda db: db.execute("SELECT pg_notify(%s, %s)", (_channel(node), payload)))

    def listen(self, node: str, stop: Callable[[], bool]) -> Iterator[str]:
        """LISTEN on a connection of its own (a pooled one would lose its registration)."""
        import psycopg
        from psycopg import sql

        from store.errors import StoreError

        try:
            session = psycopg.connect(self.db.conninfo, autocommit=True)
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


def _running(row: Any) -> RunningMatch:
    return RunningMatch(match_from_row(row[:-1]), int(row[-1]))
