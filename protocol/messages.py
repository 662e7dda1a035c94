"""Message schemas of protocol version 1 (see docs/PROTOCOL.md).

Every message is a msgpack map with a ``type`` key. Each type is a
`msgspec.Struct` tagged by that key, so decoding a frame validates its shape
(field names, types, bounds) in one C pass at the boundary: nothing the
network sends reaches the server's logic unchecked. Unknown extra keys are
ignored (forward compatibility); missing required keys and wrong types are
errors.

Game-specific values (states, moves, options) are typed ``Any`` here: each
game validates them with its own ``decode_state`` / ``decode_move``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

PROTOCOL_VERSION = 1

Name = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Id = Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
Token = Annotated[str, msgspec.Meta(min_length=1, max_length=128)]
Seconds = Annotated[float, msgspec.Meta(gt=0, le=86_400)]
Ply = Annotated[int, msgspec.Meta(ge=0)]
Seat = Annotated[int, msgspec.Meta(ge=0, le=63)]
Options = Annotated[dict[str, Any], msgspec.Meta(max_length=32)]
Role = Literal["player", "spectator"]
#: a ladder's name (``arena serve --ladder NAME=GAME``): a game spec may be a name
LadderName = Annotated[
    str, msgspec.Meta(max_length=64, pattern=r"^([A-Za-z0-9][A-Za-z0-9._:=,+-]{0,63})?$")
]

#: limits of the move info (docs/PROTOCOL.md "Move info")
MAX_DEPTH = 10_000
MAX_VISITS = 2**53  # exact in a double, so in JSON too
MAX_PV_MOVES = 64
MAX_PV_MOVE_LENGTH = 32
#: the largest point of a board a `mark` or `accept` may name (19×19 Go)
MAX_POINT = 360

#: move info (additive in v1): the mover's expected score, 0 loss .. 0.5 draw .. 1 win
Evaluation = Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]
#: move info: the search depth the mover reached
Depth = Annotated[int, msgspec.Meta(ge=0, le=MAX_DEPTH)]
#: move info: the simulations or nodes the mover searched
Visits = Annotated[int, msgspec.Meta(ge=0, le=MAX_VISITS)]
#: move info: one move of a principal variation, in the game's notation
PvMove = Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_PV_MOVE_LENGTH)]
#: move info: the expected continuation, the move itself first
PrincipalVariation = Annotated[list[PvMove], msgspec.Meta(max_length=MAX_PV_MOVES)]
#: move info: a Go engine's own count of the board with its pass (``W+12.5``, ``0``)
COUNT_PATTERN = r"^(0|[BW]\+[0-9]{1,4}(\.[0-9]{1,2})?)$"
OwnCount = Annotated[str, msgspec.Meta(max_length=10, pattern=COUNT_PATTERN)]


class Message(msgspec.Struct, tag_field="type", forbid_unknown_fields=False):
    """Base of all messages; the ``type`` key is the struct's tag."""


# --- client -> server ------------------------------------------------------


class Hello(Message, tag="hello"):
    """First frame of every connection."""

    version: int
    name: Name
    role: Role = "player"
    client: Annotated[str, msgspec.Meta(max_length=128)] = ""
    #: the name's password, on servers with accounts (additive in v1; see PROTOCOL.md "Accounts")
    password: Annotated[str, msgspec.Meta(max_length=256)] = ""
    #: a person plays on this connection (additive in v1): a Go match between people
    #: marks dead stones before the count (PROTOCOL.md "Go: dead stones between people")
    human: bool = False


class Clock(msgspec.Struct, frozen=True):
    """A chess clock: `initial` seconds for each seat, `increment` seconds added per own move."""

    initial: Seconds
    increment: Annotated[float, msgspec.Meta(ge=0, le=3600)] = 0.0

    def label(self) -> str:
        """``5+3`` (minutes + seconds per move), the notation of lichess and cutechess."""
        return f"{self.initial / 60:g}+{self.increment:g}"


class Seek(Message, tag="seek"):
    """Ask to be paired with another seeker of the same game, options and time.

    `clock` asks for a clock instead of a per-move limit (additive in v1);
    `any_time` accepts whatever time control the other seeker asks for.
    `ladder` (additive in v1) seeks the next game of one of the server's
    ladders, on the ladder's options and time control (docs/LADDER.md).
    """

    game: Name
    options: Options = msgspec.field(default_factory=dict)
    move_time: Seconds | None = None
    pool: Annotated[str, msgspec.Meta(max_length=64)] = ""
    secret: Annotated[str, msgspec.Meta(max_length=128)] = ""
    clock: Clock | None = None
    any_time: bool = False
    ladder: LadderName = ""


class Join(Message, tag="join"):
    """Join a named room (created by the first joiner) and take a seat."""

    room: Id
    game: Name
    options: Options = msgspec.field(default_factory=dict)
    move_time: Seconds | None = None
    seat: Seat | None = None


class Rejoin(Message, tag="rejoin"):
    """Take back a seat after a disconnect, with the token from ``match_start``."""

    token: Token


#: `Spectate.match` for every match: those being played and each one that starts later
FOLLOW_ALL = "*"


class Spectate(Message, tag="spectate"):
    """Watch a match (its current state, then every update), or every match (FOLLOW_ALL)."""

    match: Id


class ListMatches(Message, tag="list"):
    """Ask for the matches being played now."""


class Move(Message, tag="move", omit_defaults=True):
    """A move for the ``turn`` with the same match and ply."""

    match: Id
    ply: Ply
    move: Any
    #: the mover's own evaluation: its expected score (0 loss .. 0.5 draw .. 1 win) after
    #: this move; optional, relayed in ``update`` (additive in v1; used for adjudication)
    eval: Evaluation | None = None
    #: what the mover's search says about the move (optional, additive in v1): its depth,
    #: the simulations or nodes searched, the expected continuation (this move first);
    #: relayed in ``update`` and recorded with the move
    depth: Depth | None = None
    visits: Visits | None = None
    pv: PrincipalVariation = msgspec.field(default_factory=list)
    #: Go, with a pass: the mover's own count of the board (an engine's ``final_score``,
    #: additive in v1); kept in the record's reason where it differs from the server's
    count: OwnCount | None = None


#: what failed when a player gives up because its own program did (``resign.fault``):
#: its engine exited or crashed; stopped answering; played an illegal move; broke its
#: protocol (output that is no answer, a flood)
Fault = Literal["crash", "stalled", "illegal", "protocol"]


class Resign(Message, tag="resign", omit_defaults=True):
    """Give up a match (allowed at any time)."""

    match: Id
    #: why, in a few words (additive in v1): kept in the match record's reason,
    #: e.g. an engine's fault ``engine exited (code 3)``
    reason: Annotated[str, msgspec.Meta(max_length=200)] | None = None
    #: (additive in v1) the player gives up because its own program failed: the match
    #: ends with that termination (``crash``, ``stalled``, ``illegal_move``,
    #: ``protocol_error``) instead of ``resignation``; a server that does not know the
    #: field records a resignation
    fault: Fault | None = None


#: a point of a board (Go: 0 .. 360, row-major from the top left, as `move`)
Point = Annotated[int, msgspec.Meta(ge=0, le=MAX_POINT)]


class Mark(Message, tag="mark"):
    """(Marking dead stones) toggle the whole chain on `point`: dead, or alive again."""

    match: Id
    point: Point


class Accept(Message, tag="accept"):
    """(Marking dead stones) accept `dead`, exactly the set the last ``scoring`` showed."""

    match: Id
    dead: Annotated[list[Point], msgspec.Meta(max_length=MAX_POINT + 1)]


class Resume(Message, tag="resume"):
    """(Marking dead stones) withdraw the held pass: play goes on, the passer to move."""

    match: Id


class PoolPlayer(msgspec.Struct, frozen=True):
    """A player admitted to a pool, with the secret it must present when seeking there."""

    name: Name
    secret: Annotated[str, msgspec.Meta(max_length=128)]


class Direct(Message, tag="direct"):
    """Become the director of a pool: only these players may seek in it."""

    pool: Id
    players: Annotated[list[PoolPlayer], msgspec.Meta(max_length=256)]
    #: the pool's owner key; empty: the server makes one (answered by ``directing``; additive in v1)
    owner: Annotated[str, msgspec.Meta(max_length=128)] = ""


class Pair(Message, tag="pair"):
    """(Director) start a match between idle players of the pool, seats in this order."""

    pool: Id
    seats: Annotated[list[Name], msgspec.Meta(min_length=1, max_length=64)]
    game: Name
    options: Options = msgspec.field(default_factory=dict)
    move_time: Seconds | None = None
    tournament: Annotated[str, msgspec.Meta(max_length=64)] = ""
    index: int = 0
    seed: int | None = None
    #: wire moves played before the first turn (a tournament opening; additive in v1)
    opening: Annotated[list[Any], msgspec.Meta(max_length=1024)] = msgspec.field(
        default_factory=list
    )
    #: a draw (termination ``max_plies``) once the game reaches this many plies (additive in v1)
    max_plies: Annotated[int, msgspec.Meta(ge=1)] | None = None


class Adjudicate(Message, tag="adjudicate"):
    """(Director) end a match of its pool at ply `ply` with a result it established."""

    match: Id
    ply: Ply
    winner: Seat | None
    termination: Literal["proven", "evaluation"]
    reason: Annotated[str, msgspec.Meta(max_length=256)] = ""


class Status(Message, tag="status"):
    """Ask for the server's state (answered by ``server_status``)."""


class Ping(Message, tag="ping"):
    """Liveness check; the peer answers ``pong`` with the same ``id``. Sent by either side."""

    id: int = 0


class Pong(Message, tag="pong"):
    """Answer to ``ping``."""

    id: int = 0


# --- server -> client ------------------------------------------------------


class Welcome(Message, tag="welcome"):
    version: int
    server: str
    session: str
    max_frame: int
    #: seconds between the server's pings to a quiet client, and of silence before it is closed
    ping_interval: float = 15.0
    idle_timeout: float = 60.0
    #: the name this connection is authenticated as (an account), else None
    account: str | None = None


class Directing(Message, tag="directing"):
    """(To a director) its ``direct`` was accepted: it directs `pool`, owned by key `owner`."""

    pool: str
    owner: str


class Error(Message, tag="error"):
    """A refused request (``fatal=False``) or the reason the connection is closed."""

    code: str
    message: str
    fatal: bool = False
    match: str | None = None


class OpenSeek(msgspec.Struct):
    """Players waiting in the lobby for a time control other than the seeker's."""

    game: str
    options: dict[str, Any]
    move_time: float
    clock: Clock | None
    players: int


class Seeking(Message, tag="seeking"):
    """Acknowledges a ``seek``/``join``: the client waits for ``match_start``.

    `clock`, `any_time`, `others` and `paired` are additive in v1: the time
    control asked for, the seeks of the same game waiting that this one does
    not pair with, and whether it paired at once (``match_start`` follows).
    """

    game: str
    options: dict[str, Any]
    move_time: float
    room: str | None = None
    clock: Clock | None = None
    any_time: bool = False
    others: list[OpenSeek] = msgspec.field(default_factory=list)
    paired: bool = False
    #: the ladder this seek waits in (additive in v1), None for any other seek
    ladder: str | None = None


class Redirect(Message, tag="redirect"):
    """(Additive in v1; only when several servers share one database) the seek paired with
    a player on another server, which plays the match: connect to `host`:`port`, say
    ``hello`` with the same name, and ``rejoin`` with `token`. The seek here is over."""

    match: str
    host: str
    port: int
    token: str


class TimeControl(msgspec.Struct, frozen=True):
    """Per-move time limit and the lag margin the server adds before a timeout.

    With a `clock` (additive in v1) the clock decides instead of `move_time`.
    """

    move_time: float
    lag_margin: float
    clock: Clock | None = None

    def label(self) -> str:
        """``5+3`` for a clock, ``1s/move`` for a per-move limit."""
        return self.clock.label() if self.clock is not None else f"{self.move_time:g}s/move"


class MatchStart(Message, tag="match_start"):
    match: str
    game: str
    options: dict[str, Any]
    seat: int | None
    players: list[str]
    time_control: TimeControl
    token: str | None
    state: Any
    ply: int
    to_move: int
    seed: int | None = None
    #: every move played so far, wire-encoded, from the initial position (additive in v1)
    moves: list[Any] = msgspec.field(default_factory=list)
    #: the same moves in the game's notation, as `update.notation` gives each (additive in v1)
    notations: list[str] = msgspec.field(default_factory=list)


class Turn(Message, tag="turn"):
    match: str
    ply: int
    state: Any
    legal_moves: list[Any]
    time_left: float
    #: with a clock (additive in v1): every seat's remaining seconds, and the increment
    clocks: list[float] | None = None
    increment: float = 0.0


class Update(Message, tag="update", omit_defaults=True):
    """A move was played. `clocks` and the move info are left out when absent."""

    match: str
    ply: int
    seat: int
    move: Any
    notation: str
    state: Any
    think_time: float
    #: with a clock (additive in v1): every seat's remaining seconds after this move
    clocks: list[float] | None = None
    #: the mover's own evaluation sent with its move, if any (additive in v1)
    eval: float | None = None
    #: the mover's depth, visits and principal variation sent with its move, if any
    depth: int | None = None
    visits: int | None = None
    pv: list[str] = msgspec.field(default_factory=list)


class Illegal(Message, tag="illegal"):
    match: str
    ply: int
    move: Any
    kind: Literal["invalid", "illegal"]
    reason: str
    retries_left: int


class MatchEnd(Message, tag="match_end"):
    match: str
    ply: int
    scores: list[float]
    winner: int | None
    termination: str
    reason: str
    points: list[float] | None = None
    #: True only if the result is durably stored in the server's records (see PROTOCOL.md)
    recorded: bool = False


class Scoring(Message, tag="scoring"):
    """(Go between people) both passed: the dead stones being agreed on, after every change.

    `dead`: the points marked dead, sorted; `accepted`: by seat, whether it accepted
    this set; `area` and `points`: the count (areas, each seat's margin) with `dead`
    taken off; `time_left`: seconds left to agree before the board is counted as it
    stands.
    """

    match: str
    ply: int
    dead: list[int]
    accepted: list[bool]
    area: list[int]
    points: list[float]
    time_left: float


class Resumed(Message, tag="resumed"):
    """(Go between people) `seat` resumed play: marking is over, the held pass withdrawn;
    the seat that passed gets its ``turn`` again at `ply`."""

    match: str
    ply: int
    seat: int


class MatchInfo(msgspec.Struct, omit_defaults=True):
    match: str
    game: str
    options: dict[str, Any]
    players: list[str]
    ply: int
    status: str
    #: the node playing it, when several servers share one database (additive; absent
    #: on a single server)
    node: str | None = None


class Matches(Message, tag="matches"):
    matches: list[MatchInfo]


class PoolStatus(Message, tag="pool"):
    """(To a director) idle connections per player name in its pool, after every change."""

    pool: str
    idle: dict[str, int]


class Paired(Message, tag="paired"):
    """(To a director) the match started for a ``pair`` request."""

    pool: str
    index: int
    match: str
    #: True: this tournament game was paired before; `match` is that match, whose
    #: ``match_end`` follows (at once if it has ended)
    existing: bool = False


class ServerStatus(Message, tag="server_status"):
    """Answer to ``status``: the records store's health and the server's load."""

    store: Literal["ok", "degraded", "off"]
    store_error: str | None
    degraded_for: float | None
    pending_results: int
    pending_moves: int
    journaled: int
    accepting: bool
    matches: int
    connections: int


ClientMessage = (
    Hello
    | Seek
    | Join
    | Rejoin
    | Spectate
    | ListMatches
    | Move
    | Resign
    | Mark
    | Accept
    | Resume
    | Direct
    | Pair
    | Adjudicate
    | Status
    | Ping
    | Pong
)
ServerMessage = (
    Welcome
    | Error
    | Seeking
    | MatchStart
    | Turn
    | Update
    | Illegal
    | MatchEnd
    | Scoring
    | Resumed
    | Matches
    | PoolStatus
    | Paired
    | Directing
    | ServerStatus
    | Redirect
    | Ping
    | Pong
)


def _tags(union: object) -> frozenset[str]:
    return frozenset(str(cls.__struct_config__.tag) for cls in union.__args__)  # type: ignore[attr-defined]


CLIENT_TYPES = _tags(ClientMessage)
SERVER_TYPES = _tags(ServerMessage)
