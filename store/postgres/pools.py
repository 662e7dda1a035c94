"""The pool seeks of a shared PostgreSQL database (`store.interface.PoolTables`).

A take locks the rows it chooses (``FOR UPDATE SKIP LOCKED``): a second
take at the same moment passes them by and chooses others, and a
withdrawal of a chosen seek waits for the take to commit and then finds
it gone. So each seek is taken, or withdrawn, exactly once. A seek is taken
only while its node's lease runs (on the database's clock): the seekers of a
node that stopped renewing are never paired, even before a survivor reaps it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from store.interface import PoolClaim, PoolSeeker
from store.postgres.tables import Connections

_NOW = "extract(epoch from clock_timestamp())"
_COLUMNS = "id, pool, node, name, secret, terms"


class PostgresPools:
    """`PoolTables` on PostgreSQL."""

    def __init__(self, db: Connections) -> None:
        self.db = db

    def claim(self, pool: str, owner: str, node: str, grace: float) -> PoolClaim:
        def claim(db: Any) -> PoolClaim:
            created = db.execute(
                "INSERT INTO pools (name, owner, node) VALUES (%s, %s, %s)"
                " ON CONFLICT (name) DO NOTHING",
                (pool, owner, node),
            ).rowcount
            if created:
                return PoolClaim(owner, "")
            row = db.execute(
                f"SELECT owner, node, idle_since < {_NOW} - %s AND NOT EXISTS"
                " (SELECT 1 FROM pool_seeks WHERE pool = %s) FROM pools WHERE name = %s"
                " FOR UPDATE",
                (grace, pool, pool),
            ).fetchone()
            held_by, previous, free = row[0], row[1], bool(row[2]) and not row[1]
            if held_by != owner and not free:
                return PoolClaim(held_by, previous)
            db.execute(
                "UPDATE pools SET owner = %s, node = %s, idle_since = NULL WHERE name = %s",
                (owner, node, pool),
            )
            return PoolClaim(owner, previous if held_by == owner else "")

        claimed: PoolClaim = self.db.transact(claim)
        return claimed

    def release(self, pool: str, node: str) -> None:
        self.db.transact(
            lambda db: db.execute(
                f"UPDATE pools SET node = '', idle_since = {_NOW} WHERE name = %s AND node = %s",
                (pool, node),
            )
        )

    def add(self, seeker: PoolSeeker) -> str:
        def add(db: Any) -> str:
            db.execute(
                f"INSERT INTO pool_seeks ({_COLUMNS}, created_at)"
                f" VALUES (%s, %s, %s, %s, %s, %s, {_NOW}) ON CONFLICT (id) DO NOTHING",
                (
                    seeker.id,
                    seeker.pool,
                    seeker.node,
                    seeker.name,
                    seeker.secret,
                    seeker.terms,
                ),
            )
            row = db.execute("SELECT node FROM pools WHERE name = %s", (seeker.pool,)).fetchone()
            return "" if row is None else str(row[0])

        director: str = self.db.transact(add)
        return director

    def withdraw(self, seek: str) -> bool:
        deleted = self.db.transact(
            lambda db: db.execute("DELETE FROM pool_seeks WHERE id = %s", (seek,)).rowcount
        )
        return int(deleted) == 1

    def waiting(self, pools: Sequence[str]) -> list[PoolSeeker]:
        rows = self.db.query(
            lambda db: db.execute(
                f"SELECT {_COLUMNS} FROM pool_seeks WHERE pool = ANY(%s) ORDER BY created_at, id",
                (list(pools),),
            ).fetchall()
        )
        return [PoolSeeker(*row) for row in rows]

    def take(
        self, pool: str, seats: Sequence[tuple[str, str]], terms: str, prefer: str = ""
    ) -> list[PoolSeeker] | None:
        def take(db: Any) -> list[PoolSeeker] | None:
            chosen: list[PoolSeeker] = []
            for name, secret in seats:
                row = db.execute(
                    f"SELECT {_COLUMNS} FROM pool_seeks WHERE pool = %s AND name = %s"
                    " AND secret = %s AND terms = %s AND NOT (id = ANY(%s)) AND node IN"
                    f" (SELECT id FROM nodes WHERE lease_until >= {_NOW})"
                    " ORDER BY node = %s DESC, created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED",
                    (pool, name, secret, terms, [s.id for s in chosen], prefer),
                ).fetchone()
                if row is None:
                    return None  # the rows locked so far are free again at the commit
                chosen.append(PoolSeeker(*row))
            db.execute("DELETE FROM pool_seeks WHERE id = ANY(%s)", ([s.id for s in chosen],))
            return chosen

        taken: list[PoolSeeker] | None = self.db.transact(take)
        return taken
