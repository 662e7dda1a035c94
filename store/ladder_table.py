"""The ladders' bots on every node and who paired with whom, for both backends (`LadderTable`).

Why in the database: when several servers share it, a ladder's bots sit on
any node, and pairing must see them all and remember, for the whole arena,
each bot's last opponent and who moved first against whom
(server/cluster_ladders.py). Two tables:

* ``ladder_bots``: a row per bot that has been in a ladder: the node its
  connection is on ("" while it is on none), since when it is ready (NULL
  while it plays or waits for nothing) and its last opponent;
* ``ladder_firsts``: (ladder, a, b) -> the games a moved first against b.

A round (`pair_round`) is one transaction: on PostgreSQL it holds the
ladder's transaction-level advisory lock (rounds of several nodes take
turns; a bot is paired once), on SQLite transactions run one at a time. Only
bots whose node's lease still runs are seen, so a dead node's bots leave the
ready set when its lease expires, before it is reaped; reaping (or a clean
stop) takes them off their node (`store.node_table.NodeRows`). Every time is
the database's clock (`Dialect.now`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from store.dialect import Connections, marks
from store.interface import LadderBot, LadderPairing, LadderRound


class LadderRows:
    """`LadderTable` over a backend's `Connections` (`lock` is the backend's)."""

    def __init__(self, db: Connections) -> None:
        self.db = db
        self.sql = db.dialect.sql
        self.now = db.dialect.now

    def lock(self, db: Any, ladder: str) -> None:
        """Hold the ladder's lock until the transaction ends (nothing where transactions
        run one at a time)."""

    def pair_round(
        self,
        ladder: str,
        node: str,
        ready: Sequence[str],
        left: Sequence[str],
        choose: Callable[[LadderRound], Sequence[tuple[str, str]]],
    ) -> list[LadderPairing]:
        sql = self.sql

        def round_(db: Any) -> list[LadderPairing]:
            self.lock(db, ladder)
            for name in left:
                db.execute(
                    sql(
                        "UPDATE ladder_bots SET node = '', ready_since = NULL"
                        " WHERE ladder = ? AND name = ? AND node = ?"
                    ),
                    (ladder, name, node),
                )
            for name in ready:
                db.execute(
                    sql(
                        "INSERT INTO ladder_bots (ladder, name, node, ready_since, last)"
                        f" VALUES (?, ?, ?, {self.now}, '') ON CONFLICT (ladder, name) DO UPDATE"
                        " SET ready_since = CASE WHEN ladder_bots.node = excluded.node"
                        " THEN coalesce(ladder_bots.ready_since, excluded.ready_since)"
                        " ELSE excluded.ready_since END, node = excluded.node"
                    ),
                    (ladder, name, node),
                )
            rows = db.execute(
                sql(
                    f"SELECT b.name, b.node, {self.now} - b.ready_since, b.last"
                    " FROM ladder_bots b JOIN nodes n ON n.id = b.node"
                    f" WHERE b.ladder = ? AND n.lease_until >= {self.now} ORDER BY b.name"
                ),
                (ladder,),
            ).fetchall()
            bots = [
                LadderBot(name, where, None if waited is None else max(float(waited), 0.0), last)
                for name, where, waited, last in rows
            ]
            waiting = [bot.name for bot in bots if bot.waited is not None]
            firsts: dict[tuple[str, str], int] = {}
            if waiting:
                counts = db.execute(
                    sql(
                        "SELECT first, second, games FROM ladder_firsts WHERE ladder = ?"
                        f" AND first IN ({marks(waiting)}) AND second IN ({marks(waiting)})"
                    ),
                    (ladder, *waiting, *waiting),
                ).fetchall()
                firsts = {(first, second): int(games) for first, second, games in counts}
            # (asked even when nobody waits: a node learns which of its bots were taken)
            chosen = choose(LadderRound(bots, firsts))
            where_is = {bot.name: bot.node for bot in bots}
            ready_now = set(waiting)
            pairings: list[LadderPairing] = []
            for first, second in chosen:
                if first == second or first not in ready_now or second not in ready_now:
                    raise ValueError(f"a ladder round chose {first!r} and {second!r}")
                ready_now -= {first, second}
                self._record(db, ladder, first, second)
                pairings.append(LadderPairing(first, second, where_is[first], where_is[second]))
            return pairings

        result: list[LadderPairing] = self.db.transact(round_)
        return result

    def _record(self, db: Any, ladder: str, first: str, second: str) -> None:
        """`first` moved first against `second` once more: each one's last opponent is
        the other, neither is ready."""
        sql = self.sql
        for name, other in ((first, second), (second, first)):
            db.execute(
                sql(
                    "INSERT INTO ladder_bots (ladder, name, node, ready_since, last)"
                    " VALUES (?, ?, '', NULL, ?) ON CONFLICT (ladder, name) DO UPDATE"
                    " SET ready_since = NULL, last = excluded.last"
                ),
                (ladder, name, other),
            )
        db.execute(
            sql(
                "INSERT INTO ladder_firsts (ladder, first, second, games) VALUES (?, ?, ?, ?)"
                " ON CONFLICT (ladder, first, second)"
                " DO UPDATE SET games = ladder_firsts.games + 1"
            ),
            (ladder, first, second, 1),
        )

    def seed(
        self, ladder: str, firsts: Mapping[tuple[str, str], int], last: Mapping[str, str]
    ) -> bool:
        sql = self.sql

        def seed(db: Any) -> bool:
            self.lock(db, ladder)
            known = db.execute(
                sql(
                    "SELECT (SELECT count(*) FROM ladder_firsts WHERE ladder = ?)"
                    " + (SELECT count(*) FROM ladder_bots WHERE ladder = ?)"
                ),
                (ladder, ladder),
            ).fetchone()
            if int(known[0]):
                return False
            for (first, second), count in firsts.items():
                db.execute(
                    sql(
                        "INSERT INTO ladder_firsts (ladder, first, second, games)"
                        " VALUES (?, ?, ?, ?)"
                    ),
                    (ladder, first, second, count),
                )
            for name, other in last.items():
                db.execute(
                    sql(
                        "INSERT INTO ladder_bots (ladder, name, node, ready_since, last)"
                        " VALUES (?, ?, '', NULL, ?)"
                    ),
                    (ladder, name, other),
                )
            return True

        seeded: bool = self.db.transact(seed)
        return seeded


__all__ = ["LadderRows"]
