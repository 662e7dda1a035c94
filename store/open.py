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


def open_database(
    target: str, *, check: bool = False, create: bool = True, make_directory: bool = False
) -> Database:
    """The database named by `target` (created or upgraded as needed): the one way to open one.

    `check` runs the backend's quick consistency check (SQLite's
    ``quick_check``; a server does); `create=False` refuses an SQLite file
    that does not exist (reading commands must not create one);
    `make_directory` creates the SQLite file's directory first (a server
    does). Raises `StoreError` with one readable line.
    """
    if is_postgres_url(target):
        from store.postgres import PostgresDatabase

        return PostgresDatabase(target)
    if not create and not os.path.exists(target):
        raise StoreError(f"no records database at {target!r} (use --db or $ARENA_DB)")
    if make_directory:
        directory = os.path.dirname(os.path.abspath(target))
        try:
            os.makedirs(directory, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the directory of {target}: {exc.strerror}") from None
    from store.sqlite import SqliteDatabase

    return SqliteDatabase(target, check=check)


def describe(target: str) -> str:
    """`target` as messages show it (a PostgreSQL URL without its password)."""
    if is_postgres_url(target):
        from store.postgres import display_url

        return display_url(target)
    return target


__all__ = ["describe", "is_postgres_url", "open_database"]
