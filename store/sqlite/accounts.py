"""The connections the SQLite accounts table uses: one short connection per call.

The table itself is the shared `store.account_table.AccountRows`. Accounts are
read and written by the server's request handlers while the writer holds its
connection, so each call opens its own (waiting up to 5 s for a lock), and
every database error is a `StoreError` naming the file.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Any, TypeVar

from store.account_table import AccountRows
from store.dialect import Dialect
from store.errors import StoreError

T = TypeVar("T")


class ShortConnections:
    """`store.dialect.Connections` on a fresh autocommit connection per call."""

    def __init__(self, path: str, dialect: Dialect) -> None:
        self.path = path
        self.dialect = dialect

    def transact(self, work: Callable[[Any], T]) -> T:
        """`work` on a short connection (the accounts' calls are one statement each)."""
        try:
            db = sqlite3.connect(self.path, timeout=5.0, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open {self.path}: {exc}") from None
        try:
            db.execute("PRAGMA busy_timeout=5000")
            return work(db)
        except sqlite3.Error as exc:
            raise StoreError(str(exc)) from None
        finally:
            db.close()

    def query(self, read: Callable[[Any], T]) -> T:
        return self.transact(read)


def accounts(path: str, dialect: Dialect) -> AccountRows:
    """The accounts table of the SQLite database at `path`."""
    return AccountRows(ShortConnections(path, dialect))


__all__ = ["ShortConnections", "accounts"]
