"""The nodes table on SQLite (`store.interface.NodeTable`).

An SQLite file is used by one server at a time, so the server never needs
this table (it aborts every running match when it starts); it is here so
that SQLite implements the whole interface, with the same meaning, and the
store suite holds both backends to it.
"""

from __future__ import annotations

import time
from typing import Any

from store.interface import NodeRow, RunningMatch
from store.rows import MATCH_COLUMNS, match_from_row
from store.sqlite_tournaments import Connections


class SQLiteNodes:
    """`NodeTable` on SQLite (this host's clock)."""

    def __init__(self, store: Connections) -> None:
        self.store = store

    def register(self, node: str, address: str, lease: float) -> None:
        now = time.time()
        with self.store.transaction() as db:
            db.execute(
                "INSERT INTO nodes (id, address, started_at, lease_until) VALUES (?,?,?,?)"
                " ON CONFLICT(id) DO UPDATE SET address=excluded.address,"
                " lease_until=excluded.lease_until",
                (node, address, now, now + lease),
            )

    def renew(self, node: str, lease: float) -> bool:
        with self.store.transaction() as db:
            cursor = db.execute(
                "UPDATE nodes SET lease_until=? WHERE id=?", (time.time() + lease, node)
            )
            return cursor.rowcount == 1

    def leave(self, node: str) -> None:
        with self.store.transaction() as db:
            db.execute("DELETE FROM nodes WHERE id=?", (node,))

    def live(self) -> list[NodeRow]:
        with self.store.reading() as db:
            rows = db.execute(
                "SELECT id, address, started_at, lease_until FROM nodes WHERE lease_until >= ?"
                " ORDER BY started_at, id",
                (time.time(),),
            ).fetchall()
        return [NodeRow(*row) for row in rows]

    def reap(self, reason: str) -> dict[str, int]:
        reaped: dict[str, int] = {}
        now = time.time()
        with self.store.transaction() as db:
            dead = [
                row[0] for row in db.execute("SELECT id FROM nodes WHERE lease_until < ?", (now,))
            ]
            for node in dead:
                db.execute("DELETE FROM nodes WHERE id=?", (node,))
                cursor = db.execute(
                    "UPDATE matches SET status='aborted', termination='aborted', reason=?,"
                    " ended_at=? WHERE status='running' AND json_extract(tags, '$.node') = ?",
                    (reason, now, node),
                )
                reaped[node] = cursor.rowcount
        return reaped

    def running(self, exclude: str | None = None) -> list[RunningMatch]:
        with self.store.reading() as db:
            rows = db.execute(
                f"SELECT {MATCH_COLUMNS}, (SELECT count(*) FROM moves v WHERE v.match_id = m.id)"
                " FROM matches m WHERE status='running'"
                " AND coalesce(json_extract(tags, '$.node'), '') <> ? ORDER BY started_at, id",
                (exclude or "",),
            ).fetchall()
        return [_running(row) for row in rows]


def _running(row: Any) -> RunningMatch:
    return RunningMatch(match_from_row(row[:-1]), int(row[-1]))
