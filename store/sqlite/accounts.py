"""The accounts table of the SQLite database (`store.interface.AccountTable`).

The server's policy (who may use a name, hashing, rate limits) is
`server.accounts`; this is only the table, one short connection a call, every
database error a `StoreError`.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator

from store.errors import StoreError


class AccountBook:
    """The accounts table of a records database (blocking; one short connection per call)."""

    def __init__(self, path: str) -> None:
        self.path = path

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A short connection; a database error is a `StoreError` naming it."""
        try:
            db = sqlite3.connect(self.path, timeout=5.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {self.path}: {exc}") from None
        try:
            db.execute("PRAGMA busy_timeout=5000")
            yield db
        except sqlite3.Error as exc:
            raise StoreError(str(exc)) from None
        finally:
            db.close()

    def password_hash(self, name: str) -> str | None:
        with self._connect() as db:
            row = db.execute("SELECT password_hash FROM accounts WHERE name=?", (name,)).fetchone()
        return None if row is None else str(row[0])

    def add(self, name: str, password_hash: str) -> bool:
        """Register `name`; False if it is registered already."""
        with self._connect() as db:
            cursor = db.execute(
                "INSERT OR IGNORE INTO accounts (name, password_hash, created_at) VALUES (?,?,?)",
                (name, password_hash, time.time()),
            )
            return cursor.rowcount == 1

    def remove(self, name: str) -> bool:
        with self._connect() as db:
            return db.execute("DELETE FROM accounts WHERE name=?", (name,)).rowcount == 1

    def set_password(self, name: str, password_hash: str) -> bool:
        with self._connect() as db:
            cursor = db.execute(
                "UPDATE accounts SET password_hash=? WHERE name=?", (password_hash, name)
            )
            return cursor.rowcount == 1

    def names(self) -> list[str]:
        return [name for name, _ in self.entries()]

    def entries(self) -> list[tuple[str, float]]:
        with self._connect() as db:
            rows = db.execute("SELECT name, created_at FROM accounts ORDER BY name").fetchall()
        return [(str(name), float(created)) for name, created in rows]
