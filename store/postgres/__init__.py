"""The PostgreSQL backend: one database shared by any number of servers (`PostgresDatabase`).

`database` holds the connection pool, the match writes and reads; the tables
(`tables`, `nodes`, `pools`) run the decisions of `store.tables` in
PostgreSQL's dialect; `schema` is its schema and migrations; `cluster` starts
a throwaway cluster for the tests and benchmarks. psycopg is imported only
where a connection is made, so this package loads without the extra.
"""

from __future__ import annotations

from store.postgres.database import PostgresDatabase, describe_error, display_url

__all__ = ["PostgresDatabase", "describe_error", "display_url"]
