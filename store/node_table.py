"""The nodes table and the plain seeks waiting on them, for both backends (`NodeTable`).

The decisions live here once: a node is alive while its lease runs, on the
database's clock (`Dialect.now`: PostgreSQL's, so hosts whose clocks disagree
still agree on who is dead); `reap` deletes each expired node and, in the same
transaction, aborts its running matches and drops its seeks, its pools'
director and its ladder bots, so exactly one caller ever reaps a node (the
DELETE ... RETURNING claims the rows: a second reaper finds none).

A backend adds what it does its own way: PostgreSQL pairs concurrent seek
offers in one statement and reads progress in one snapshot, and only it can
notify another node (`store.postgres.nodes`); SQLite has one server
(`store.sqlite.nodes`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from store.dialect import Connections, marks
from store.interface import MatchProgress, NodeRow, RunningMatch, WaitingSeek
from store.rows import MATCH_COLUMNS, MOVE_COLUMNS, match_from_row, move_from_row


class NodeRows:
    """`NodeTable` over a backend's `Connections` (notify and listen are the backend's)."""

    def __init__(self, db: Connections) -> None:
        self.db = db
        self.sql = db.dialect.sql
        self.now = db.dialect.now

    def register(self, node: str, address: str, lease: float) -> None:
        self.db.transact(
            lambda db: db.execute(
                self.sql(
                    "INSERT INTO nodes (id, address, started_at, lease_until)"
                    f" VALUES (?, ?, {self.now}, {self.now} + ?) ON CONFLICT (id) DO UPDATE"
                    " SET address = excluded.address, lease_until = excluded.lease_until"
                ),
                (node, address, lease),
            )
        )

    def renew(self, node: str, lease: float) -> bool:
        renewed = self.db.transact(
            lambda db: (
                db.execute(
                    self.sql(f"UPDATE nodes SET lease_until = {self.now} + ? WHERE id = ?"),
                    (lease, node),
                ).rowcount
            )
        )
        return int(renewed) == 1

    def leave(self, node: str) -> None:
        self.db.transact(lambda db: db.execute(self.sql("DELETE FROM nodes WHERE id = ?"), (node,)))

    def live(self) -> list[NodeRow]:
        rows = self.db.query(
            lambda db: db.execute(
                "SELECT id, address, started_at, lease_until FROM nodes"
                f" WHERE lease_until >= {self.now} ORDER BY started_at, id"
            ).fetchall()
        )
        return [NodeRow(*row) for row in rows]

    def reap(self, reason: str) -> dict[str, int]:
        def reap(db: Any) -> dict[str, int]:
            reaped: dict[str, int] = {}
            dead = db.execute(
                f"DELETE FROM nodes WHERE lease_until < {self.now} RETURNING id"
            ).fetchall()
            for (node,) in dead:
                cursor = db.execute(
                    self.sql(
                        "UPDATE matches SET status = 'aborted', termination = 'aborted',"
                        f" reason = ?, ended_at = {self.now}"
                        f" WHERE status = 'running' AND {self.db.dialect.tag('node')} = ?"
                    ),
                    (reason, node),
                )
                reaped[node] = int(cursor.rowcount)
                self._drop_node_seeks(db, node)
            return reaped

        result: dict[str, int] = self.db.transact(reap)
        return result

    def _drop_node_seeks(self, db: Any, node: str) -> int:
        """Remove a node's plain and pool seeks, release the pools it directed and take its
        ladder bots off it (they leave the ladders' ready sets)."""
        plain = db.execute(self.sql("DELETE FROM seeks WHERE node = ?"), (node,)).rowcount
        db.execute(
            self.sql("UPDATE ladder_bots SET node = '', ready_since = NULL WHERE node = ?"),
            (node,),
        )
        pooled = db.execute(self.sql("DELETE FROM pool_seeks WHERE node = ?"), (node,)).rowcount
        db.execute(
            self.sql(f"UPDATE pools SET node = '', idle_since = {self.now} WHERE node = ?"),
            (node,),
        )
        return int(plain) + int(pooled)

    def running(self, exclude: str | None = None) -> list[RunningMatch]:
        rows = self.db.query(
            lambda db: db.execute(
                self.sql(
                    f"SELECT {MATCH_COLUMNS},"
                    " (SELECT count(*) FROM moves v WHERE v.match_id = m.id)"
                    " FROM matches m WHERE status = 'running'"
                    f" AND coalesce({self.db.dialect.tag('node')}, '') <> ?"
                    " ORDER BY started_at, id"
                ),
                (exclude or "",),
            ).fetchall()
        )
        return [RunningMatch(match_from_row(row[:-1]), int(row[-1])) for row in rows]

    def progress(self, since: Mapping[str, int], limit: int) -> list[MatchProgress]:
        """The match rows first, then each one's moves (in one read: see `NodeTable`)."""
        if not since:
            return []

        def read(db: Any) -> list[MatchProgress]:
            matches = db.execute(
                self.sql(f"SELECT {MATCH_COLUMNS} FROM matches WHERE id IN ({marks(since)})"),
                list(since),
            ).fetchall()
            found = {row[0]: MatchProgress(match_from_row(row), []) for row in matches}
            for match_id, progress in found.items():
                rows = db.execute(
                    self.sql(
                        f"SELECT {MOVE_COLUMNS} FROM moves WHERE match_id = ? AND ply >= ?"
                        " ORDER BY ply LIMIT ?"
                    ),
                    (match_id, since[match_id], limit),
                ).fetchall()
                progress.moves.extend(move_from_row(row) for row in rows)
            return list(found.values())

        result: list[MatchProgress] = self.db.query(read)
        return result

    def offer_seek(self, seek: str, node: str, name: str, terms: str) -> WaitingSeek | None:
        """Take the oldest waiting seek of the same terms, or else wait; correct where
        transactions run one at a time (PostgreSQL's offers take turns: its own)."""

        def offer(db: Any) -> WaitingSeek | None:
            row = db.execute(
                self.sql(
                    "SELECT id, node, name FROM seeks WHERE terms = ?"
                    " ORDER BY created_at, id LIMIT 1"
                ),
                (terms,),
            ).fetchone()
            if row is not None:
                db.execute(self.sql("DELETE FROM seeks WHERE id = ?"), (row[0],))
                return WaitingSeek(*row)
            db.execute(
                self.sql(
                    "INSERT INTO seeks (id, node, name, terms, created_at)"
                    f" VALUES (?, ?, ?, ?, {self.now})"
                ),
                (seek, node, name, terms),
            )
            return None

        result: WaitingSeek | None = self.db.transact(offer)
        return result

    def withdraw_seek(self, seek: str) -> bool:
        deleted = self.db.transact(
            lambda db: db.execute(self.sql("DELETE FROM seeks WHERE id = ?"), (seek,)).rowcount
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
        withdrawn: int = self.db.transact(lambda db: self._drop_node_seeks(db, node))
        return withdrawn

    def notify(self, node: str, payload: str) -> None:
        raise NotImplementedError

    def listen(self, node: str, stop: Callable[[], bool]) -> Iterator[str]:
        raise NotImplementedError


__all__ = ["NodeRows"]
