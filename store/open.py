"""Open the records database a user names: an SQLite file (the default) or a PostgreSQL URL.

``--db arena.sqlite`` (or any path) is the embedded SQLite backend;
``--db postgresql://user@host/db`` is the PostgreSQL backend, which any
number of servers may share. Both implement `store.interface.Database`.
"""

from __future__ import annotations

import os

from store.errors import StoreError
from store.interface import Database


def is_postgres_url(target: str) -> bool:
    """Whether `target` names a PostgreSQL database rather than an SQLite file."""
    return target.startswith(("postgresql://", "postgres://"))


def open_database(target: str, *, check: bool = False, create: bool = True) -> Database:
    """The database named by `target` (created or upgraded as needed).

    `check` runs the backend's quick consistency check (SQLite's
    ``quick_check``); `create=False` refuses an SQLite file that does not
    exist (reading commands must not create one). Raises `StoreError` with
    one readable line.
    """
    if is_postgres_url(target):
        from store.postgres import PostgresDatabase

        return PostgresDatabase(target)
    if not create and not os.path.exists(target):
        raise StoreError(f"no records database at {target!r} (use --db or $ARENA_DB)")
    from store.sqlite import SqliteDatabase

    return SqliteDatabase(target, check=check)


def describe(target: str) -> str:
    """`target` as messages show it (a PostgreSQL URL without its password)."""
    if is_postgres_url(target):
        from store.postgres import display_url

        return display_url(target)
    return target


__all__ = ["describe", "is_postgres_url", "open_database"]
