"""The nodes table on SQLite (`store.interface.NodeTable`).

An SQLite file is used by one server at a time, so the server never needs
this table (it aborts every running match when it starts); it is here so
that SQLite implements the whole interface, with the same meaning, and the
store suite holds both backends to it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any

from store.errors import StoreError
from store.interface import MatchProgress, NodeRow, RunningMatch, WaitingSeek
from store.rows import MATCH_COLUMNS, MOVE_COLUMNS, match_from_row, move_from_row
from store.sqlite.tournaments import Connections


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
                db.execute("DELETE FROM seeks WHERE node=?", (node,))
                db.execute("DELETE FROM pool_seeks WHERE node=?", (node,))
                db.execute("UPDATE pools SET node='', idle_since=? WHERE node=?", (now, node))
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

    def progress(self, since: Mapping[str, int], limit: int) -> list[MatchProgress]:
        if not since:
            return []
        marks = ",".join("?" * len(since))
        with self.store.reading() as db:
            matches = db.execute(
                f"SELECT {MATCH_COLUMNS} FROM matches WHERE id IN ({marks})", list(since)
            ).fetchall()
            found = {row[0]: MatchProgress(match_from_row(row), []) for row in matches}
            for match_id, progress in found.items():
                rows = db.execute(
                    f"SELECT {MOVE_COLUMNS} FROM moves WHERE match_id=? AND ply>=?"
                    " ORDER BY ply LIMIT ?",
                    (match_id, since[match_id], limit),
                ).fetchall()
                progress.moves.extend(move_from_row(row) for row in rows)
        return list(found.values())

    def offer_seek(self, seek: str, node: str, name: str, terms: str) -> WaitingSeek | None:
        with self.store.transaction() as db:  # BEGIN IMMEDIATE: one writer at a time
            row = db.execute(
                "SELECT id, node, name FROM seeks WHERE terms=? ORDER BY created_at, id LIMIT 1",
                (terms,),
            ).fetchone()
            if row is not None:
                db.execute("DELETE FROM seeks WHERE id=?", (row[0],))
                return WaitingSeek(*row)
            db.execute(
                "INSERT INTO seeks (id, node, name, terms, created_at) VALUES (?,?,?,?,?)",
                (seek, node, name, terms, time.time()),
            )
            return None

    def withdraw_seek(self, seek: str) -> bool:
        with self.store.transaction() as db:
            return db.execute("DELETE FROM seeks WHERE id=?", (seek,)).rowcount == 1

    def waiting_seeks(self) -> list[WaitingSeek]:
        with self.store.reading() as db:
            rows = db.execute("SELECT id, node, name FROM seeks ORDER BY created_at, id").fetchall()
        return [WaitingSeek(*row) for row in rows]

    def withdraw_node_seeks(self, node: str) -> int:
        with self.store.transaction() as db:
            plain = db.execute("DELETE FROM seeks WHERE node=?", (node,)).rowcount
            pooled = db.execute("DELETE FROM pool_seeks WHERE node=?", (node,)).rowcount
            db.execute("UPDATE pools SET node='', idle_since=? WHERE node=?", (time.time(), node))
            return int(plain) + int(pooled)

    def notify(self, node: str, payload: str) -> None:
        raise StoreError("an SQLite database has one server: there is no other node to tell")

    def listen(self, node: str, stop: Callable[[], bool]) -> Iterator[str]:
        raise StoreError("an SQLite database has one server: no other node sends anything")


def _running(row: Any) -> RunningMatch:
    return RunningMatch(match_from_row(row[:-1]), int(row[-1]))
