"""The matches and moves tables, for both backends: a match's end, an import, the reads.

The decisions live here once. A result of this server's own match is written
only over a running match: once another node has ended it (it declared this
one dead and aborted the match), the result is superseded, never written
twice (`store.errors.MatchSuperseded`); a result without its match row is
refused (`store.errors.MatchRefused`). An import writes a whole match, or
nothing if its id is taken. How a batch is grouped into transactions, and how
moves are inserted, are each backend's own (the fastest way differs).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from store.dialect import Dialect
from store.errors import MatchRefused, MatchSuperseded
from store.matches import (
    MatchRecord,
    MatchWrite,
    MoveRecord,
    MoveRow,
    ResultRecord,
    like_prefix,
    move_row,
    own_match,
    to_json,
)
from store.rows import (
    MATCH_COLUMNS,
    MOVE_COLUMNS,
    list_query,
    match_from_row,
    match_params,
    move_from_row,
    result_of,
)

T = TypeVar("T")

#: inserts moves in the backend's fastest way (one statement over a JSON array, or a
#: pipelined executemany)
InsertMoves = Callable[[Any, Sequence[MoveRow]], None]

_INSERT_MATCH = (
    "INSERT INTO matches (id, game, options, move_time, lag_margin, players, status, plies,"
    " started_at, tournament, tags, game_index) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
    " ON CONFLICT (id) DO NOTHING"
)
_FINISH_MATCH = (
    "UPDATE matches SET status=?, scores=?, winner=?, termination=?, reason=?, points=?,"
    " plies=?, ended_at=? WHERE id=?"
)


@dataclass(frozen=True, slots=True)
class MatchSql:
    """The match statements in one dialect (built once: `match_sql`)."""

    insert_match: str
    finish: str
    #: a result of this server's own match: refused once the match has ended otherwise
    finish_running: str
    exists: str


@functools.cache
def match_sql(dialect: Dialect) -> MatchSql:
    """The match statements in `dialect`."""
    return MatchSql(
        insert_match=dialect.sql(_INSERT_MATCH),
        finish=dialect.sql(_FINISH_MATCH),
        finish_running=dialect.sql(_FINISH_MATCH + " AND status='running'"),
        exists=dialect.sql("SELECT 1 FROM matches WHERE id=?"),
    )


def insert_match(db: Any, sql: MatchSql, record: MatchRecord) -> None:
    db.execute(sql.insert_match, match_params(record))


def finish_match(db: Any, sql: MatchSql, result: ResultRecord, *, running: bool = False) -> None:
    """Write a match's end; `running`: only over a running match (else `MatchSuperseded`)."""
    cursor = db.execute(
        sql.finish_running if running else sql.finish,
        (
            result.status,
            to_json(list(result.scores)),
            result.winner,
            result.termination,
            result.reason,
            None if result.points is None else to_json(list(result.points)),
            result.plies,
            result.ended_at,
            result.match_id,
        ),
    )
    if cursor.rowcount != 1:
        if running and db.execute(sql.exists, (result.match_id,)).fetchone():
            raise MatchSuperseded(result.match_id)
        raise MatchRefused(f"no match row {result.match_id!r} to finish")


def write_one(db: Any, sql: MatchSql, item: MatchWrite, insert_moves: InsertMoves) -> None:
    """One match's pending records (in the caller's transaction or savepoint)."""
    if item.record is not None:
        insert_match(db, sql, item.record)
    if item.moves:
        insert_moves(db, item.moves)
    if item.result is not None:
        finish_match(db, sql, item.result, running=own_match(item))


def import_into(
    db: Any,
    sql: MatchSql,
    record: MatchRecord,
    moves: Sequence[MoveRecord],
    insert_moves: InsertMoves,
) -> bool:
    """A whole match (in the caller's transaction); False, writing nothing, if its id exists."""
    if db.execute(sql.exists, (record.id,)).fetchone():
        return False
    insert_match(db, sql, record)
    if moves:
        insert_moves(db, [move_row(move) for move in moves])
    if record.status != "running" and record.scores is not None:
        finish_match(db, sql, result_of(record))
    return True


class MatchReads:
    """The reads of `store.interface.Database`, and `abort_running`, over a backend's
    `transact` and `query` (`store.dialect.Connections`)."""

    dialect: Dialect

    def transact(self, work: Callable[[Any], T]) -> T:
        raise NotImplementedError

    def query(self, read: Callable[[Any], T]) -> T:
        raise NotImplementedError

    def abort_running(self, reason: str) -> int:
        """Mark matches left 'running' (by a crash or shutdown) as aborted; return how many."""
        aborted = self.transact(
            lambda db: (
                db.execute(
                    self.dialect.sql(
                        "UPDATE matches SET status='aborted', termination='aborted', reason=?,"
                        " ended_at=? WHERE status='running'"
                    ),
                    (reason, time.time()),
                ).rowcount
            )
        )
        return int(aborted)

    def list_matches(
        self, limit: int = 50, *, status: str | None = None, tournament: str | None = None
    ) -> list[MatchRecord]:
        """Most recent matches first."""
        query, params = list_query(self.dialect.mark, limit, status, tournament)
        rows = self.query(lambda db: db.execute(query, params).fetchall())
        return [match_from_row(row) for row in rows]

    def get_match(self, match_id: str) -> MatchRecord | None:
        """The match with this id, or with this unique id prefix."""
        rows = self.query(
            lambda db: db.execute(
                self.dialect.sql(
                    f"SELECT {MATCH_COLUMNS} FROM matches WHERE id=? OR id LIKE ? ESCAPE '\\'"
                    " LIMIT 2"
                ),
                (match_id, like_prefix(match_id)),
            ).fetchall()
        )
        exact = [row for row in rows if row[0] == match_id]
        if exact:
            return match_from_row(exact[0])
        return match_from_row(rows[0]) if len(rows) == 1 else None

    def match_ids(self, prefix: str, limit: int = 10) -> list[str]:
        """Up to `limit` match ids starting with `prefix`, in order (to resolve a prefix)."""
        rows = self.query(
            lambda db: db.execute(
                self.dialect.sql(
                    "SELECT id FROM matches WHERE id LIKE ? ESCAPE '\\' ORDER BY id LIMIT ?"
                ),
                (like_prefix(prefix), limit),
            ).fetchall()
        )
        return [row[0] for row in rows]

    def get_moves(self, match_id: str) -> list[MoveRecord]:
        """Every recorded ply of the match, in order, with the movers' move info."""
        rows = self.query(
            lambda db: db.execute(
                self.dialect.sql(f"SELECT {MOVE_COLUMNS} FROM moves WHERE match_id=? ORDER BY ply"),
                (match_id,),
            ).fetchall()
        )
        return [move_from_row(row) for row in rows]

    def ladder_matches(self, ladder: str) -> list[MatchRecord]:
        """The finished and aborted games of `ladder`, in the order they ended."""
        rows = self.query(
            lambda db: db.execute(
                self.dialect.sql(
                    f"SELECT {MATCH_COLUMNS} FROM matches WHERE {self.dialect.tag('ladder')} = ?"
                    " AND status <> 'running' ORDER BY ended_at, id"
                ),
                (ladder,),
            ).fetchall()
        )
        return [match_from_row(row) for row in rows]

    def ladder_ended(self, ladder: str) -> int:
        """How many games of `ladder` have ended (finished or aborted), on every node."""
        row = self.query(
            lambda db: db.execute(
                self.dialect.sql(
                    f"SELECT count(*) FROM matches WHERE {self.dialect.tag('ladder')} = ?"
                    " AND status <> 'running'"
                ),
                (ladder,),
            ).fetchone()
        )
        return int(row[0])

    def find_tournament_game(self, tournament: str, index: int, owner: str) -> MatchRecord | None:
        """The finished game `index` of `tournament` paired by the pool owner `owner` (a digest;
        "" for games paired in pools without an owner, as before owners existed)."""
        row = self.query(
            lambda db: db.execute(
                self.dialect.sql(
                    f"SELECT {MATCH_COLUMNS} FROM matches WHERE tournament=? AND game_index=?"
                    f" AND status='finished' AND coalesce({self.dialect.tag('owner')}, '') = ?"
                    " ORDER BY ended_at LIMIT 1"
                ),
                (tournament, index, owner),
            ).fetchone()
        )
        return None if row is None else match_from_row(row)


__all__ = [
    "InsertMoves",
    "MatchReads",
    "MatchSql",
    "finish_match",
    "import_into",
    "insert_match",
    "match_sql",
    "write_one",
]
