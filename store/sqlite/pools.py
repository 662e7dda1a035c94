"""The pool seeks on SQLite (`store.interface.PoolTables`).

An SQLite file has one server, which keeps its pools in memory and never
needs this table; it is here so that SQLite implements the whole interface,
with the same meaning, and the store suite holds both backends to it. A
claim or a take is one ``BEGIN IMMEDIATE`` transaction: they run one at a
time.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from store.interface import PoolClaim, PoolSeeker
from store.sqlite.tournaments import Connections

_COLUMNS = "id, pool, node, name, secret, terms"


class SQLitePools:
    """`PoolTables` on SQLite (this host's clock)."""

    def __init__(self, store: Connections) -> None:
        self.store = store

    def claim(self, pool: str, owner: str, node: str, grace: float) -> PoolClaim:
        now = time.time()
        with self.store.transaction() as db:
            row = db.execute(
                "SELECT owner, node, idle_since < ? AND NOT EXISTS"
                " (SELECT 1 FROM pool_seeks WHERE pool = ?) FROM pools WHERE name = ?",
                (now - grace, pool, pool),
            ).fetchone()
            if row is None:
                db.execute(
                    "INSERT INTO pools (name, owner, node) VALUES (?,?,?)", (pool, owner, node)
                )
                return PoolClaim(owner, "")
            held_by, previous, free = row[0], row[1], bool(row[2]) and not row[1]
            if held_by != owner and not free:
                return PoolClaim(held_by, previous)
            db.execute(
                "UPDATE pools SET owner=?, node=?, idle_since=NULL WHERE name=?",
                (owner, node, pool),
            )
            return PoolClaim(owner, previous if held_by == owner else "")

    def release(self, pool: str, node: str) -> None:
        with self.store.transaction() as db:
            db.execute(
                "UPDATE pools SET node='', idle_since=? WHERE name=? AND node=?",
                (time.time(), pool, node),
            )

    def add(self, seeker: PoolSeeker) -> str:
        with self.store.transaction() as db:
            db.execute(
                f"INSERT INTO pool_seeks ({_COLUMNS}, created_at) VALUES (?,?,?,?,?,?,?)"
                " ON CONFLICT(id) DO NOTHING",
                (
                    seeker.id,
                    seeker.pool,
                    seeker.node,
                    seeker.name,
                    seeker.secret,
                    seeker.terms,
                    time.time(),
                ),
            )
            row = db.execute("SELECT node FROM pools WHERE name=?", (seeker.pool,)).fetchone()
            return "" if row is None else str(row[0])

    def withdraw(self, seek: str) -> bool:
        with self.store.transaction() as db:
            return db.execute("DELETE FROM pool_seeks WHERE id=?", (seek,)).rowcount == 1

    def waiting(self, pools: Sequence[str]) -> list[PoolSeeker]:
        names = list(pools)
        if not names:
            return []
        marks = ",".join("?" * len(names))
        with self.store.reading() as db:
            rows = db.execute(
                f"SELECT {_COLUMNS} FROM pool_seeks WHERE pool IN ({marks})"
                " ORDER BY created_at, id",
                names,
            ).fetchall()
        return [PoolSeeker(*row) for row in rows]

    def take(
        self, pool: str, seats: Sequence[tuple[str, str]], terms: str, prefer: str = ""
    ) -> list[PoolSeeker] | None:
        now = time.time()
        with self.store.transaction() as db:  # BEGIN IMMEDIATE: one writer at a time
            chosen: list[PoolSeeker] = []
            for name, secret in seats:
                taken = [s.id for s in chosen]
                row = db.execute(
                    f"SELECT {_COLUMNS} FROM pool_seeks WHERE pool=? AND name=? AND secret=?"
                    f" AND terms=? AND id NOT IN ({','.join('?' * len(taken))})"
                    " AND node IN (SELECT id FROM nodes WHERE lease_until >= ?)"
                    " ORDER BY node=? DESC, created_at, id LIMIT 1",
                    (pool, name, secret, terms, *taken, now, prefer),
                ).fetchone()
                if row is None:
                    return None
                chosen.append(PoolSeeker(*row))
            db.executemany("DELETE FROM pool_seeks WHERE id=?", [(s.id,) for s in chosen])
            return chosen
