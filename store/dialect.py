"""What differs between the backends' SQL, so that each decision is written once.

The tables (`store.node_table`, `store.pool_table`, `store.tournament_table`,
`store.account_table`, `store.match_table`) decide who gets a pool, which node
is dead, which seek a take gets, whether a result is superseded, in one place
each. They write their statements with ``?`` placeholders and the few pieces
that differ from a `Dialect` (as SQLAlchemy's dialects do): the current time,
a tag read from the JSON tags, a row lock. A backend hands them its
`Connections`: a DB-API connection in a transaction, or one to read on.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Dialect:
    """The SQL that one backend spells its own way."""

    name: str
    #: the placeholder of the driver (``?`` for sqlite3, ``%s`` for psycopg)
    mark: str
    #: the current time, seconds since the epoch, as an SQL expression; the one clock every
    #: lease and idle time is read on (PostgreSQL's: every host agrees on it)
    now: str
    #: `tag(key)`'s pattern: a match's JSON tag as text (``{key}`` is the key)
    tag_pattern: str
    #: appended to a SELECT whose rows the transaction will update ("" where the
    #: transaction holds the whole database, as SQLite's ``BEGIN IMMEDIATE`` does)
    for_update: str
    #: appended to a SELECT that chooses rows for itself, passing by those another
    #: transaction has chosen ("" where transactions run one at a time)
    skip_locked: str

    def sql(self, statement: str) -> str:
        """`statement`, written with ``?`` placeholders, in this driver's style."""
        return statement if self.mark == "?" else statement.replace("?", self.mark)

    def tag(self, key: str) -> str:
        """A match's tag `key` as text (NULL where it has none)."""
        return self.tag_pattern.format(key=key)


def marks(values: Collection[Any]) -> str:
    """``?,?,?``: a placeholder a value, for ``IN (...)`` (at least one value)."""
    return ",".join("?" * len(values))


class Connections(Protocol):
    """What the tables need of a backend: a transaction, a read, and its dialect.

    `transact` runs `work` on a connection inside one transaction, committed
    when it returns, rolled back if it raises; `query` runs `read` on a
    connection to read on. Either raises `store.errors.StoreError` for a
    database error; either may run its function again (PostgreSQL does, on a
    connection that the server ended before anything was committed).
    """

    path: str
    dialect: Dialect

    def transact(self, work: Callable[[Any], T]) -> T: ...

    def query(self, read: Callable[[Any], T]) -> T: ...


__all__ = ["Connections", "Dialect", "marks"]
