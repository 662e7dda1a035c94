"""The spectators of one match: each update encoded once, the same bytes written to each.

Why: a popular match may have a thousand spectators, and what one costs the
server per move is what a thousand cost a thousand times. So the match hands
each frame over once (`publish`); the frames that wait are joined once into
one `bytes` (`flush`), and that one object is what every spectator's
connection writes: no encoding, no copy and no task per spectator, only the
write itself (`Connection.send_shared`). A WebSocket spectator on a socket the
server holds (server/web/websocket.py) writes the same frames as WebSocket
messages, converted once per flush for all of them (`SharedFrames.wire`).

Why frames may wait: a write system call costs more than the rest of what a
spectator costs (on loopback, with the receiving side's TCP work), and a
match played fast (engines, a tournament) makes tens to hundreds of moves a
second. The first frame after a quiet `window` leaves at once (a game played
at a human pace is watched without delay); the frames that follow it within
the window wait and leave together, in one write per spectator. The window
is `LAZY_FLUSH` (50 ms), or `LAZY_FLUSH_BUSY` (250 ms) while the event loop
is busy or once a match has `CROWD` spectators or more: what a crowd costs
per move then shrinks as the match gets faster, for a quarter of a second at
most, which a person watching does not tell from a live feed. Frames a spectator
must see at once (``match_end``) are published urgent and take what waits
with them. Order is kept: a spectator gets a match's frames in the order they
were published, and one joining late gets what waits for the others first
flushed to them, then its ``match_start``.

Backpressure stays each connection's own: a spectator whose socket does not
take the bytes keeps them in its bounded queue, and one that falls
`send_queue` frames or `max_buffered_bytes` behind is dropped as
``slow_consumer`` (docs/PROTOCOL.md), without slowing the match or the others.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

import trio

from server.connection import LAZY_FLUSH, LAZY_FLUSH_BUSY, SharedFrames

if TYPE_CHECKING:
    from server.connection import Connection, LazyFlusher

#: spectators from which a match's frames wait up to `LAZY_FLUSH_BUSY` to travel together
CROWD = 100


class Fanout:
    """One match's spectators and the frames waiting for them."""

    def __init__(self, flusher: LazyFlusher | None = None) -> None:
        self._flusher = flusher
        self._spectators: set[Connection] = set()
        self._pending: list[bytes] = []
        self._last_flush = -math.inf
        self._first_pending = math.inf  # when the oldest waiting frame was published
        #: the flusher's generation while frames wait for it (see `LazyFlusher.hold`)
        self.lazy_generation: int | None = None

    @property
    def window(self) -> float:
        """How long a frame may wait for the ones that follow it."""
        return LAZY_FLUSH if len(self._spectators) < CROWD else LAZY_FLUSH_BUSY

    def __len__(self) -> int:
        return len(self._spectators)

    def __iter__(self) -> Iterator[Connection]:
        return iter(list(self._spectators))

    def __contains__(self, conn: object) -> bool:
        return conn in self._spectators

    def add(self, conn: Connection, first_frame: bytes) -> None:
        """A new spectator: what waits goes to the others first, then `first_frame` to it."""
        self.flush_now()
        self._spectators.add(conn)
        conn.send_frame(first_frame)

    def discard(self, conn: Connection) -> None:
        self._spectators.discard(conn)

    def publish(self, frame: bytes, *, urgent: bool = False) -> None:
        """Send `frame` to every spectator: now, or with the frames that follow it soon."""
        if not self._spectators:
            return
        self._pending.append(frame)
        now = trio.current_time()
        if urgent or self._flusher is None or now - self._last_flush >= self.window:
            self.flush_now()
            return
        if len(self._pending) == 1:
            self._first_pending = now
        self._flusher.hold(self)

    def flush(self) -> None:
        """The flusher's call: write what waits if its window is over, else wait on."""
        self.lazy_generation = None
        waited = trio.current_time() - self._first_pending
        if self._pending and self._flusher is not None and waited < self.window:
            self._flusher.hold(self)  # a crowd's longer window (the flusher's may be shorter)
            return
        self.flush_now()

    def flush_now(self) -> None:
        """Write what waits to every spectator: joined once, the same bytes to each."""
        self.lazy_generation = None
        frames = self._pending
        if not frames:
            return
        self._pending = []
        self._last_flush = trio.current_time()
        shared = SharedFrames(frames[0] if len(frames) == 1 else b"".join(frames), len(frames))
        dropped = [conn for conn in list(self._spectators) if not conn.send_shared(shared)]
        for conn in dropped:
            self._spectators.discard(conn)
