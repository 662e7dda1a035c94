"""The accounts table, for both backends (`AccountTable`).

Only the table: the server's policy (who may use a name, hashing, rate
limits) is `server.accounts`. Every database error is a `StoreError`.
"""

from __future__ import annotations

import time

from store.dialect import Connections


class AccountRows:
    """`AccountTable` over a backend's `Connections`."""

    def __init__(self, db: Connections) -> None:
        self.db = db
        self.sql = db.dialect.sql

    def password_hash(self, name: str) -> str | None:
        row = self.db.query(
            lambda db: db.execute(
                self.sql("SELECT password_hash FROM accounts WHERE name = ?"), (name,)
            ).fetchone()
        )
        return None if row is None else str(row[0])

    def add(self, name: str, password_hash: str) -> bool:
        """Register `name`; False if it is registered already."""
        added = self.db.transact(
            lambda db: (
                db.execute(
                    self.sql(
                        "INSERT INTO accounts (name, password_hash, created_at) VALUES (?, ?, ?)"
                        " ON CONFLICT (name) DO NOTHING"
                    ),
                    (name, password_hash, time.time()),
                ).rowcount
            )
        )
        return int(added) == 1

    def set_password(self, name: str, password_hash: str) -> bool:
        changed = self.db.transact(
            lambda db: (
                db.execute(
                    self.sql("UPDATE accounts SET password_hash = ? WHERE name = ?"),
                    (password_hash, name),
                ).rowcount
            )
        )
        return int(changed) == 1

    def remove(self, name: str) -> bool:
        removed = self.db.transact(
            lambda db: db.execute(self.sql("DELETE FROM accounts WHERE name = ?"), (name,)).rowcount
        )
        return int(removed) == 1

    def names(self) -> list[str]:
        return [name for name, _ in self.entries()]

    def entries(self) -> list[tuple[str, float]]:
        rows = self.db.query(
            lambda db: db.execute("SELECT name, created_at FROM accounts ORDER BY name").fetchall()
        )
        return [(str(name), float(created)) for name, created in rows]


__all__ = ["AccountRows"]
