"""What one connection holds in the lobby: its seats, the matches it watches, its seeks.

Why a record the lobby owns, not attributes of the connection: the connection
is the transport (frames, queues, rates); what a client is doing in the lobby
is the lobby's state, changed only by the lobby (and its pool desk). Kept per
connection so that forgetting one costs O(what it holds).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple, Protocol

from protocol.messages import Clock

if TYPE_CHECKING:
    from server.fanout import Fanout
    from server.match import Match


class SeekKey(NamedTuple):
    """What seeks must share to pair: the seeks waiting in the lobby are grouped by it."""

    game: str
    #: the game's options as JSON
    options: bytes
    #: the move time (0.0 for any-time seeks)
    move_time: float
    #: the clock asked for (the wire's frozen, hashable `Clock`), None for a move time
    clock: Clock | None
    #: accepts whatever time control the other seeker asks for
    any_time: bool = False

    def with_any_time(self) -> SeekKey:
        """The key of the any-time seeks of this game and options."""
        return SeekKey(self.game, self.options, 0.0, None, any_time=True)


class Watched(Protocol):
    """What a spectator watches: a match of this node (`server.match.Match`), or of another
    node relayed from the database (`server.remote_watch.RemoteMatch`)."""

    id: str
    spectators: Fanout


@dataclass(eq=False, slots=True)
class Membership:
    """One connection's place in the lobby."""

    #: (match, seat) pairs it currently holds
    seats: set[tuple[Match, int]] = field(default_factory=set)
    #: matches it spectates (here, or another node's)
    watching: set[Watched] = field(default_factory=set)
    #: the open seek it waits in, if any
    seek_key: SeekKey | None = None
    #: pools it seeks in
    pool_seeks: set[str] = field(default_factory=set)
    #: pools it directs
    directing: set[str] = field(default_factory=set)
    #: rooms it holds a seat in
    rooms: set[str] = field(default_factory=set)
    #: matches whose result it is told (a director)
    observing: set[Match] = field(default_factory=set)
    #: ladders it is a bot of
    ladders: set[str] = field(default_factory=set)
