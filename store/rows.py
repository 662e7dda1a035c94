"""Rows as both backends store them, and the records they read back as.

The columns and their JSON encodings are the same in SQLite and PostgreSQL,
so reading a row back is one function for both.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from store.matches import (
    MatchRecord,
    MoveRecord,
    ResultRecord,
    from_json,
    tags_from_json,
    to_json,
)

MATCH_COLUMNS = (
    "id, game, options, move_time, lag_margin, players, status, scores, winner,"
    " termination, reason, points, plies, started_at, ended_at, tournament, tags"
)
#: the columns of a moves row, in the order `move_from_row` reads them
MOVE_COLUMNS = "match_id, ply, seat, move, notation, think_time, at, eval, depth, visits, pv"


def result_of(record: MatchRecord) -> ResultRecord:
    """The `ResultRecord` of an ended match record."""
    return ResultRecord(
        match_id=record.id,
        status=record.status,
        scores=record.scores or [],
        winner=record.winner,
        termination=record.termination or "",
        reason=record.reason or "",
        points=record.points,
        plies=record.plies,
        ended_at=record.ended_at if record.ended_at is not None else record.started_at,
    )


def match_params(record: MatchRecord) -> tuple[Any, ...]:
    """A new match row's values, in the column order of both backends' insert statement:
    id, game, options, move_time, lag_margin, players, status, plies, started_at,
    tournament, tags, game_index."""
    return (
        record.id,
        record.game,
        to_json(record.options),
        record.move_time,
        record.lag_margin,
        to_json(record.players),
        record.status,
        record.plies,
        record.started_at,
        record.tournament,
        to_json(record.tags),
        record.game_index,
    )


def match_from_row(row: Sequence[Any]) -> MatchRecord:
    return MatchRecord(
        id=row[0],
        game=row[1],
        options=from_json(row[2]),
        move_time=row[3],
        lag_margin=row[4],
        players=from_json(row[5]),
        status=row[6],
        scores=from_json(row[7]),
        winner=row[8],
        termination=row[9],
        reason=row[10],
        points=from_json(row[11]),
        plies=row[12],
        started_at=row[13],
        ended_at=row[14],
        tournament=row[15],
        tags=tags_from_json(row[16]),
    )


def move_from_row(row: Sequence[Any]) -> MoveRecord:
    """The `MoveRecord` of a moves row read as `MOVE_COLUMNS`."""
    return MoveRecord(
        row[0],
        row[1],
        row[2],
        from_json(row[3]),
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        row[9],
        () if row[10] is None else tuple(from_json(row[10])),
    )


def list_query(
    mark: str, limit: int, status: str | None, tournament: str | None
) -> tuple[str, tuple[Any, ...]]:
    """The `Database.list_matches` statement and its parameters, with `mark` as the
    backend's placeholder (``?`` for SQLite, ``%s`` for PostgreSQL)."""
    clauses, params = [], []
    for column, value in (("status", status), ("tournament", tournament)):
        if value is not None:
            clauses.append(f"{column}={mark}")
            params.append(value)
    where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
    query = f"SELECT {MATCH_COLUMNS} FROM matches{where} ORDER BY started_at DESC, id LIMIT {mark}"
    return query, (*params, limit)
