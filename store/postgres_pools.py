"""The pool seeks of a shared PostgreSQL database (`store.interface.PoolSeekTable`).

A take locks the rows it chooses (``FOR UPDATE SKIP LOCKED``): a second
take at the same moment passes them by and chooses others, and a
withdrawal of a chosen seek waits for the take to commit and then finds
it gone. So each seek is taken, or withdrawn, exactly once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from store.interface import PoolSeeker
from store.postgres_tables import Connections

_NOW = "extract(epoch from clock_timestamp())"
_COLUMNS = "id, pool, node, name, secret, terms"


class PostgresPoolSeeks:
    """`PoolSeekTable` on PostgreSQL."""

    def __init__(self, db: Connections) -> None:
        self.db = db

    def add(self, seeker: PoolSeeker) -> None:
        self.db.transact(
            lambda db: db.execute(
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
        )

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
                    " AND secret = %s AND terms = %s AND NOT (id = ANY(%s))"
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
