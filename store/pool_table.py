"""Tournament pools and the seeks waiting in them, for both backends (`PoolTables`).

Each decision is here once. A claim: a new pool, one the claimant owns, or
one that has had no director for `grace` seconds and no seeker waiting (its
name is free again) becomes the claimant's; another owner's is left alone. A
take: for each seat the oldest matching seek (the preferred node's first)
whose node's lease still runs (a dead node's seekers are never paired, even
before it is reaped), all seats or none. Every time is the database's clock
(`Dialect.now`).

Concurrency: each runs in one transaction. On SQLite transactions run one at
a time (``BEGIN IMMEDIATE``); on PostgreSQL a claim locks the pool's row and a
take locks the seeks it chooses (``FOR UPDATE SKIP LOCKED``: a second take
passes them by, and a withdrawal waits for the take to commit and then finds
them gone), so each seek is taken, or withdrawn, exactly once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from store.dialect import Connections, marks
from store.interface import PoolClaim, PoolSeeker

_COLUMNS = "id, pool, node, name, secret, terms"


class PoolRows:
    """`PoolTables` over a backend's `Connections`."""

    def __init__(self, db: Connections) -> None:
        self.db = db
        self.sql = db.dialect.sql
        self.now = db.dialect.now

    def claim(self, pool: str, owner: str, node: str, grace: float) -> PoolClaim:
        dialect = self.db.dialect

        def claim(db: Any) -> PoolClaim:
            created = db.execute(
                self.sql(
                    "INSERT INTO pools (name, owner, node) VALUES (?, ?, ?)"
                    " ON CONFLICT (name) DO NOTHING"
                ),
                (pool, owner, node),
            ).rowcount
            if created:
                return PoolClaim(owner, "")
            row = db.execute(
                self.sql(
                    f"SELECT owner, node, idle_since < {self.now} - ? AND NOT EXISTS"
                    " (SELECT 1 FROM pool_seeks WHERE pool = ?) FROM pools WHERE name = ?"
                    + dialect.for_update
                ),
                (grace, pool, pool),
            ).fetchone()
            held_by, previous, free = row[0], row[1], bool(row[2]) and not row[1]
            if held_by != owner and not free:
                return PoolClaim(held_by, previous)
            db.execute(
                self.sql("UPDATE pools SET owner = ?, node = ?, idle_since = NULL WHERE name = ?"),
                (owner, node, pool),
            )
            return PoolClaim(owner, previous if held_by == owner else "")

        claimed: PoolClaim = self.db.transact(claim)
        return claimed

    def release(self, pool: str, node: str) -> None:
        self.db.transact(
            lambda db: db.execute(
                self.sql(
                    f"UPDATE pools SET node = '', idle_since = {self.now}"
                    " WHERE name = ? AND node = ?"
                ),
                (pool, node),
            )
        )

    def add(self, seeker: PoolSeeker) -> str:
        def add(db: Any) -> str:
            db.execute(
                self.sql(
                    f"INSERT INTO pool_seeks ({_COLUMNS}, created_at)"
                    f" VALUES (?, ?, ?, ?, ?, ?, {self.now}) ON CONFLICT (id) DO NOTHING"
                ),
                (seeker.id, seeker.pool, seeker.node, seeker.name, seeker.secret, seeker.terms),
            )
            row = db.execute(
                self.sql("SELECT node FROM pools WHERE name = ?"), (seeker.pool,)
            ).fetchone()
            return "" if row is None else str(row[0])

        director: str = self.db.transact(add)
        return director

    def withdraw(self, seek: str) -> bool:
        deleted = self.db.transact(
            lambda db: db.execute(self.sql("DELETE FROM pool_seeks WHERE id = ?"), (seek,)).rowcount
        )
        return int(deleted) == 1

    def waiting(self, pools: Sequence[str]) -> list[PoolSeeker]:
        names = list(pools)
        if not names:
            return []
        rows = self.db.query(
            lambda db: db.execute(
                self.sql(
                    f"SELECT {_COLUMNS} FROM pool_seeks WHERE pool IN ({marks(names)})"
                    " ORDER BY created_at, id"
                ),
                names,
            ).fetchall()
        )
        return [PoolSeeker(*row) for row in rows]

    def take(
        self, pool: str, seats: Sequence[tuple[str, str]], terms: str, prefer: str = ""
    ) -> list[PoolSeeker] | None:
        dialect = self.db.dialect

        def take(db: Any) -> list[PoolSeeker] | None:
            chosen: list[PoolSeeker] = []
            for name, secret in seats:
                taken = [seeker.id for seeker in chosen]
                others = f" AND id NOT IN ({marks(taken)})" if taken else ""
                row = db.execute(
                    self.sql(
                        f"SELECT {_COLUMNS} FROM pool_seeks WHERE pool = ? AND name = ?"
                        f" AND secret = ? AND terms = ?{others} AND node IN"
                        f" (SELECT id FROM nodes WHERE lease_until >= {self.now})"
                        " ORDER BY node = ? DESC, created_at, id LIMIT 1" + dialect.skip_locked
                    ),
                    (pool, name, secret, terms, *taken, prefer),
                ).fetchone()
                if row is None:
                    return None  # nothing removed: rows locked so far are free at the commit
                chosen.append(PoolSeeker(*row))
            ids = [seeker.id for seeker in chosen]
            if ids:
                db.execute(self.sql(f"DELETE FROM pool_seeks WHERE id IN ({marks(ids)})"), ids)
            return chosen

        taken: list[PoolSeeker] | None = self.db.transact(take)
        return taken


__all__ = ["PoolRows"]
