"""The ladder tables on PostgreSQL: the shared `store.ladder_table.LadderRows`, with its lock.

Rounds of one ladder on several nodes take turns under a transaction-level
advisory lock on the ladder's name, so each sees the others' pairings and a
ready bot is paired once.
"""

from __future__ import annotations

from typing import Any

from store.ladder_table import LadderRows

#: the first key of the per-ladder locks (pg_advisory_xact_lock(int, int)); "ld"
_LADDER_LOCKS = 0x6C64


class PostgresLadders(LadderRows):
    """`LadderTable` on PostgreSQL."""

    def lock(self, db: Any, ladder: str) -> None:
        db.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (_LADDER_LOCKS, ladder))


__all__ = ["PostgresLadders"]
