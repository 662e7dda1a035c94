"""What the store holds of a match: its record, tags, moves and result, and a write batch.

Plain values, the same for both backends (`store.sqlite`, `store.postgres`):
the server builds them, a backend stores and reads them back (`store.rows`
maps them to rows), and the exporters (`records`) turn them into files.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec

from protocol.messages import Clock

_json_encode = msgspec.json.encode
_json_decode = msgspec.json.decode


def to_json(value: Any) -> str:
    return _json_encode(value).decode()


def from_json(text: str | bytes | None) -> Any:
    return None if text is None else _json_decode(text)


class MatchTags(msgspec.Struct, frozen=True, omit_defaults=True):
    """What a match is beyond its game and players: where it came from, how it is timed.

    Every key is optional (a plain seek has none). A tournament game has its
    `index` in the schedule, its `seats` (player names by seat), the `pool` and
    pool `owner` it was paired in, and the `opening` (wire moves) it started
    from; a room game its `room`; a ladder game its `ladder`; a clocked game its `clock`. Stored as one JSON
    object (the matches table's ``tags`` column), exported as a game's
    ``extra`` (docs/RECORDS.md). Unknown keys of older records are ignored.
    """

    index: int | None = None
    seats: tuple[str, ...] | None = None
    pool: str | None = None
    owner: str | None = None
    opening: tuple[Any, ...] = ()
    #: the clock it was played on: the wire's own type, as the seek asked for it
    clock: Clock | None = None
    room: str | None = None
    #: the server (node) that runs the match, when several share one database
    node: str | None = None
    #: the ladder that paired it (``arena serve --ladder``, docs/LADDER.md)
    ladder: str | None = None


_tags_decoder = msgspec.json.Decoder(MatchTags)


def tags_from_json(text: str | bytes | None) -> MatchTags:
    """The tags stored as JSON (an empty object, or NULL, is no tags).

    A value of the wrong type (an imported record's, say) is dropped, key by key,
    rather than making the whole record unreadable.
    """
    if not text:
        return MatchTags()
    try:
        return _tags_decoder.decode(text)
    except msgspec.ValidationError:
        return tags_from_dict(_json_decode(text))


def tags_from_dict(value: Any) -> MatchTags:
    """`MatchTags` from a plain mapping (a journal entry, an exchange file), dropping keys
    whose value has the wrong type."""
    if not isinstance(value, dict):
        return MatchTags()
    kept = {}
    for key in MatchTags.__struct_fields__:
        if key in value:
            try:
                msgspec.convert({key: value[key]}, MatchTags)
            except msgspec.ValidationError:
                continue
            kept[key] = value[key]
    return msgspec.convert(kept, MatchTags)


@dataclass(frozen=True, slots=True)
class MoveRecord:
    """One recorded ply, with what the mover's engine said about it (when it said anything).

    `eval` is the mover's expected score after the move (0 loss .. 1 win), `depth`
    its search depth, `visits` the simulations or nodes it searched, `pv` the
    continuation it expected (in the game's notation, the move itself first).
    """

    match_id: str
    ply: int  # ply of the position the move was played in (0 = first move)
    seat: int
    move: Any  # wire-encoded move
    notation: str
    think_time: float
    at: float
    eval: float | None = None
    depth: int | None = None
    visits: int | None = None
    pv: tuple[str, ...] = ()

    @property
    def has_info(self) -> bool:
        """Whether the mover said anything about the move (eval, depth, visits or pv)."""
        return not (
            self.eval is None and self.depth is None and self.visits is None and not self.pv
        )


@dataclass(frozen=True, slots=True)
class ResultRecord:
    """How a match ended, written over its `MatchRecord`."""

    match_id: str
    status: str  # finished | aborted
    scores: Sequence[float]
    winner: int | None
    termination: str
    reason: str
    points: Sequence[float] | None
    plies: int
    ended_at: float


@dataclass(frozen=True, slots=True)
class MatchRecord:
    id: str
    game: str
    options: dict[str, Any]
    move_time: float
    lag_margin: float
    players: list[str]
    status: str  # running | finished | aborted
    scores: list[float] | None
    winner: int | None
    termination: str | None
    reason: str | None
    points: list[float] | None
    plies: int
    started_at: float
    ended_at: float | None
    tournament: str | None
    tags: MatchTags = field(default_factory=MatchTags)

    @property
    def game_index(self) -> int | None:
        """The index of this match in its tournament's schedule, if it is a tournament game."""
        return self.tags.index if self.tournament else None

    def as_json(self) -> dict[str, Any]:
        """The record as JSON-ready builtins, as `arena matches --json` and the web API give it:
        every field, the tags under ``extra`` (their name in every exported format) and the
        ``game_index``."""
        data = {name: getattr(self, name) for name in self.__dataclass_fields__ if name != "tags"}
        data["extra"] = msgspec.to_builtins(self.tags)
        data["game_index"] = self.game_index
        return data


#: a move row as the backend stores it (built on the event loop, written in a thread):
#: (match_id, ply, seat, move JSON, notation, think_time, at), then, only for a move
#: with move info, (eval, depth, visits, pv list or None)
MoveRow = tuple[Any, ...]


def move_row(move: MoveRecord) -> MoveRow:
    """The stored row of `move` (see `MoveRow`)."""
    row = row_of_move(
        move.match_id, move.ply, move.seat, move.move, move.notation, move.think_time, move.at
    )
    if not move.has_info:
        return row
    return with_info(row, move.eval, move.depth, move.visits, move.pv)


def row_of_move(
    match_id: str, ply: int, seat: int, move: Any, notation: str, think_time: float, at: float
) -> MoveRow:
    """`move_row` from the fields, without a `MoveRecord` (a live match's every move)."""
    return (match_id, ply, seat, to_json(move), notation, think_time, at)


#: a move's info as the recorder takes it: (eval, depth, visits, pv)
MoveInfoFields = tuple[float | None, int | None, int | None, Sequence[str]]


def with_info(
    row: MoveRow,
    evaluation: float | None,
    depth: int | None,
    visits: int | None,
    pv: Sequence[str],
) -> MoveRow:
    """`row` with the mover's move info appended (only called when there is some)."""
    return (*row, evaluation, depth, visits, list(pv) if pv else None)


@dataclass(slots=True)
class MatchWrite:
    """What one match still needs written: its own transaction in a batch.

    `record` is set until the match row exists; `moves` are the rows not yet
    committed; `result` is set once the match has ended.
    """

    match_id: str
    record: MatchRecord | None = None
    moves: list[MoveRow] = field(default_factory=list)
    result: ResultRecord | None = None


def own_match(item: MatchWrite) -> bool:
    """Whether `item`'s result ends a match that this server plays (its row is running), so
    that a result over an end already written is refused (`store.errors.MatchSuperseded`), rather than a
    whole ended match being written (an import)."""
    return item.record is None or item.record.status == "running"


@dataclass(frozen=True, slots=True)
class BatchReport:
    """The outcome of `MatchWriter.write`: which matches committed, and the error if any failed.

    `superseded`: matches whose result was refused because the database already
    holds their end, written by another node that declared this one dead
    (fencing: a match is recorded once). Not an error: they are never retried.
    """

    committed: frozenset[str]
    error: str | None = None
    superseded: frozenset[str] = frozenset()


def like_prefix(text: str) -> str:
    r"""A LIKE pattern matching values that start with `text` literally (use ``ESCAPE '\'``)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"
