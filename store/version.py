"""The schema version both backends share, and the tables of an arena database.

A change to the records is one new version: a migration in each backend's
schema module (`store.sqlite.schema`, `store.postgres.schema`), each of which
checks that it reaches this version.
"""

from __future__ import annotations

SCHEMA_VERSION = 10

#: tables of an arena database (any other table means the database belongs to something else)
ARENA_TABLES = frozenset(
    {
        "matches",
        "moves",
        "tournaments",
        "tournament_games",
        "accounts",
        "nodes",
        "seeks",
        "pool_seeks",
        "pools",
        "ladder_bots",
        "ladder_firsts",
    }
)

__all__ = ["ARENA_TABLES", "SCHEMA_VERSION"]
