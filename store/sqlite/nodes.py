"""The nodes table on SQLite: the shared `store.node_table.NodeRows`, with one server.

An SQLite file is used by one server at a time, so the server never needs
this table (it aborts every running match when it starts); it is here so
that SQLite implements the whole interface, with the same meaning, and the
store suite holds both backends to it. There is no other node to notify.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from store.errors import StoreError
from store.node_table import NodeRows


class SqliteNodes(NodeRows):
    """`NodeTable` on SQLite (this host's clock; transactions one at a time)."""

    def notify(self, node: str, payload: str) -> None:
        raise StoreError("an SQLite database has one server: there is no other node to tell")

    def listen(self, node: str, stop: Callable[[], bool]) -> Iterator[str]:
        raise StoreError("an SQLite database has one server: no other node sends anything")


__all__ = ["SqliteNodes"]
