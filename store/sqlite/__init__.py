"""The SQLite backend: one database file, one server (`SqliteDatabase`).

`database` holds the connections, the match writes and reads; the tables
(`tournaments`, `accounts`, `nodes`, `pools`) are the shared ones of
`store.tables` over its connections; `schema` is its schema and migrations.
"""

from __future__ import annotations

from store.sqlite.database import SqliteDatabase, describe_error

__all__ = ["SqliteDatabase", "describe_error"]
