"""The exchange record of one game (schema version 1), and its conversion to and from the store.

Why this shape: one neutral, typed description of a finished game that both
exchange formats are written from and read into (`records.jsonl` writes it
as one JSON object, `records.sgf` as an SGF game tree), so the checks on
import (`records.replay`) and the conversion to the store's records exist
once. The structs are msgspec Structs: decoding JSON straight into them checks
every field's type and names the path of a bad one.

docs/RECORDS.md documents every field.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from protocol.messages import Depth, Evaluation, PrincipalVariation, Visits
from records.errors import RecordError as RecordError
from store import MatchRecord, MoveRecord
from store.matches import MatchTags

__all__ = [
    "SCHEMA_VERSION",
    "GameEntry",
    "MoveEntry",
    "OpeningEntry",
    "RecordError",
    "ResultEntry",
    "TimeControlEntry",
    "entry_from_store",
    "entry_to_store",
    "opening_of",
]

SCHEMA_VERSION = 1


class TimeControlEntry(msgspec.Struct, forbid_unknown_fields=True):
    """Seconds per move, and the network slack after it before a timeout."""

    move_time: float
    lag_margin: float


class OpeningEntry(msgspec.Struct, forbid_unknown_fields=True):
    """The book moves the game started with: a prefix of ``moves`` (wire values and notation)."""

    moves: list[Any] = msgspec.field(default_factory=list)
    notation: list[str] = msgspec.field(default_factory=list)


class MoveEntry(msgspec.Struct, forbid_unknown_fields=True, omit_defaults=True):
    """One ply: who moved, what (wire value and notation), how long it thought, when, and
    what the mover's engine said about it (each left out when it said nothing; the same
    limits as on the wire, docs/PROTOCOL.md "Move info")."""

    ply: int
    seat: int
    move: Any
    notation: str
    think_time: float
    at: float | None = None
    eval: Evaluation | None = None
    depth: Depth | None = None
    visits: Visits | None = None
    pv: PrincipalVariation = msgspec.field(default_factory=list)


class ResultEntry(msgspec.Struct, forbid_unknown_fields=True):
    """How the game ended. ``scores`` is None only for an aborted game without a result."""

    scores: list[float] | None
    winner: int | None
    termination: str | None
    reason: str | None = None
    points: list[float] | None = None


class GameEntry(msgspec.Struct, forbid_unknown_fields=True):
    """One game, as written to a JSON Lines line (field order is the file's key order)."""

    schema: int
    id: str
    game: str
    options: dict[str, Any]
    players: list[str]
    time_control: TimeControlEntry
    opening: OpeningEntry
    moves: list[MoveEntry]
    status: str  # finished | aborted | running
    result: ResultEntry | None
    started_at: float
    ended_at: float | None = None
    tournament: str | None = None
    #: the match's tags (`MatchTags`) but its opening, which is `opening` above
    extra: MatchTags = msgspec.field(default_factory=MatchTags)


def opening_of(record: MatchRecord) -> list[Any]:
    """The opening's wire moves of a stored match (empty if none).

    The convention (see docs/RECORDS.md): the server stores the book moves a
    match started with in its tags (``opening``, wire moves), and the moves
    table holds every ply from the initial position, book moves included.
    """
    return list(record.tags.opening)


def entry_from_store(record: MatchRecord, moves: Sequence[MoveRecord]) -> GameEntry:
    """The exchange record of a stored match and its moves."""
    opening = opening_of(record)
    extra = msgspec.structs.replace(record.tags, opening=())
    notation = [move.notation for move in moves[: len(opening)]]
    result = None
    if record.status != "running":
        result = ResultEntry(
            scores=None if record.scores is None else list(record.scores),
            winner=record.winner,
            termination=record.termination,
            reason=record.reason,
            points=None if record.points is None else list(record.points),
        )
    return GameEntry(
        schema=SCHEMA_VERSION,
        id=record.id,
        game=record.game,
        options=dict(record.options),
        players=list(record.players),
        time_control=TimeControlEntry(record.move_time, record.lag_margin),
        opening=OpeningEntry(opening, notation),
        moves=[
            MoveEntry(
                move.ply,
                move.seat,
                move.move,
                move.notation,
                move.think_time,
                move.at,
                move.eval,
                move.depth,
                move.visits,
                list(move.pv),
            )
            for move in moves
        ],
        status=record.status,
        result=result,
        started_at=record.started_at,
        ended_at=record.ended_at,
        tournament=record.tournament,
        extra=extra,
    )


def entry_to_store(entry: GameEntry) -> tuple[MatchRecord, list[MoveRecord]]:
    """The store's records of an exchange record (for `SqliteDatabase.import_match`)."""
    tags = msgspec.structs.replace(entry.extra, opening=tuple(entry.opening.moves))
    result = entry.result
    record = MatchRecord(
        id=entry.id,
        game=entry.game,
        options=dict(entry.options),
        move_time=entry.time_control.move_time,
        lag_margin=entry.time_control.lag_margin,
        players=list(entry.players),
        status=entry.status,
        scores=None if result is None or result.scores is None else list(result.scores),
        winner=None if result is None else result.winner,
        termination=None if result is None else result.termination,
        reason=None if result is None else result.reason,
        points=None if result is None or result.points is None else list(result.points),
        plies=len(entry.moves),
        started_at=entry.started_at,
        ended_at=entry.ended_at,
        tournament=entry.tournament,
        tags=tags,
    )
    moves = [
        MoveRecord(
            match_id=entry.id,
            ply=move.ply,
            seat=move.seat,
            move=move.move,
            notation=move.notation,
            think_time=move.think_time,
            at=move.at if move.at is not None else entry.started_at,
            eval=move.eval,
            depth=move.depth,
            visits=move.visits,
            pv=tuple(move.pv),
        )
        for move in entry.moves
    ]
    return record, moves
