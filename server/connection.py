"""One client connection: a frame reader and a writer task behind a bounded queue.

Why a queue: the match task must never wait on a client's socket. Sending is
`send()` without blocking; a client that falls `send_queue` frames behind is
too slow to play and is disconnected (``slow_consumer``) instead of delaying
anyone else. Frames are encoded once and the same bytes go to every
recipient of a broadcast, and everything queued for a client leaves in one
write: on loopback a `send` system call costs more than the rest of a move.

Why frames are written from the caller when they can be: waking the writer
task for every frame costs a task switch on top of the system call, which on
loopback is most of what a move costs the server. So when nothing is being
sent, an urgent frame (with whatever waits before it) is written at once,
without blocking, to the socket; only what the socket does not take now is
left to the writer task, which waits until the client reads. Order is kept:
bytes go out in the order they were queued, and the caller never writes while
the writer is sending.
"""

from __future__ import annotations

import collections
import itertools
import math
import os
from typing import TYPE_CHECKING, Any

import msgspec
import structlog
import trio

from protocol.codec import FrameReader, ProtocolError, client_message_decoder, encode_message
from protocol.messages import ClientMessage, Error

if TYPE_CHECKING:
    from server.limits import ClientBudget
    from server.match import Match

log = structlog.get_logger("arena.server")

_ids = itertools.count(1)

#: longest delay of a non-urgent frame (it usually leaves sooner, with the next frame)
LAZY_FLUSH = 0.05


class LazyFlusher:
    """Sends every connection's waiting non-urgent frames every `LAZY_FLUSH` seconds.

    One task for the whole server, instead of a timer per connection per move.
    Two generations: a frame is sent after between half and all of
    `LAZY_FLUSH`, so one queued just before a tick still gets its chance to
    ride with the client's next frame (usually a millisecond away).
    """

    def __init__(self) -> None:
        self.pending: set[Connection] = set()
        self._older: set[Connection] = set()

    async def run(self) -> None:
        while True:
            await trio.sleep(LAZY_FLUSH / 2)
            older, self._older, self.pending = self._older, self.pending, set()
            for conn in older:
                conn.flush()  # nothing to do if its frames already left


class Connection:
    """A connected client, from accept to close."""

    def __init__(
        self,
        stream: trio.SocketStream | trio.abc.Stream,
        *,
        max_frame: int,
        queue: int,
        flusher: LazyFlusher | None = None,
        max_bytes: int = 4 * 1024 * 1024,
    ) -> None:
        self.id = f"c{next(_ids)}"
        self.stream = stream
        self.reader = FrameReader(stream, max_frame)
        self.decoder = client_message_decoder()
        self._queue: collections.deque[bytes] = collections.deque()
        self._limit = queue
        self._max_bytes = max_bytes
        self._queued_bytes = 0
        self._wake = trio.Event()
        self._urgent = False
        self._flusher = flusher
        # a plain socket that can be written without blocking (POSIX only; not TLS)
        self._socket = getattr(stream, "socket", None) if os.name == "posix" else None
        self._sending = False  # the writer task owns the socket until its queue is empty
        self.name = "?"
        self.role = "unknown"
        self.peer = _peer_name(stream)
        self.closed = False
        self.close_code: str | None = None
        self.cancel_scope = trio.CancelScope()
        # (match, seat) pairs this connection currently holds
        self.seats: set[tuple[Match, int]] = set()
        self.watching: set[Match] = set()
        # what this connection holds in the lobby, so that forgetting it is O(its own)
        self.seek_key: tuple[Any, ...] | None = None  # the open seek it waits in
        self.pool_seeks: set[str] = set()  # pools it seeks in
        self.directing: set[str] = set()  # pools it directs
        self.rooms: set[str] = set()  # rooms it holds a seat in
        self.observing: set[Match] = set()  # matches whose result it is told (a director)
        self.account: str | None = None  # the registered name it authenticated as
        self.address: str | None = None  # the client address it is counted under
        self.budget: ClientBudget | None = None  # its message and failed-credential budgets
        self.last_received = trio.current_time()
        self._limited_told = -math.inf  # when it was last told it is rate-limited
        self.refused = 0  # messages held back for its rate since it was last within it
        self.limited_since = math.inf  # when it first went over its rate (inf: it is not)

    def __repr__(self) -> str:
        return f"<Connection {self.id} {self.name!r} {self.peer}>"

    async def receive(self) -> ClientMessage:
        """The next validated message (ProtocolError / ConnectionClosed otherwise)."""
        body = await self.reader.read_frame()
        self.last_received = trio.current_time()
        return self.decoder.decode(body)

    def send(self, message: msgspec.Struct, *, urgent: bool = True) -> bool:
        """Queue a message; False if the connection is gone or was too slow."""
        return self.send_frame(encode_message(message), urgent=urgent)

    def send_frame(self, frame: bytes, *, urgent: bool = True) -> bool:
        """Queue an encoded frame without waiting.

        A non-urgent frame (a mover's copy of its own move) waits up to
        `LAZY_FLUSH` seconds to travel with the next frame to this client:
        one system call instead of two, and no delay to anything the client
        must act on.
        """
        if self.closed:
            return False
        if len(self._queue) >= self._limit or self._queued_bytes + len(frame) > self._max_bytes:
            log.warning("slow_consumer", conn=self.id, name=self.name)
            # the one frame allowed past the limit: why the connection closes
            self._queue.append(
                encode_message(
                    Error(
                        code="slow_consumer",
                        message=f"more than {self._limit} frames or {self._max_bytes} bytes"
                        " waiting to be read",
                        fatal=True,
                    )
                )
            )
            self.close("slow_consumer")
            return False
        self._queue.append(frame)
        self._queued_bytes += len(frame)
        if urgent or self._flusher is None:
            self.flush()
        else:
            self._flusher.pending.add(self)
        return True

    def flush(self) -> None:
        """Send everything queued now: written at once if the socket takes it, else by the writer."""
        queue = self._queue
        if not queue:
            return
        if self._socket is not None and not self._sending and not self.closed:
            data = b"".join(queue) if len(queue) > 1 else queue[0]
            queue.clear()
            self._queued_bytes = 0
            try:
                sent = os.write(self._socket.fileno(), data)
            except BlockingIOError:
                sent = 0
            except OSError:  # reset, broken pipe: the connection is gone
                self.close("connection_lost")
                return
            if sent == len(data):
                return
            queue.append(data[sent:])
            self._queued_bytes = len(data) - sent
            self._sending = True  # the rest waits for the client to read
        self._urgent = True
        self._wake.set()

    def rate_limited(self, now: float, wait: float) -> None:
        """A message over the client's rate is held back; say so at most once a second."""
        self.refused += 1
        self.limited_since = min(self.limited_since, now)
        if now - self._limited_told >= 1.0:
            self._limited_told = now
            self.send(
                Error(
                    code="rate_limited",
                    message=f"over the message rate: {self.refused} held back so far;"
                    f" the next is served in {wait:.2f}s",
                )
            )

    def send_error(
        self, code: str, message: str, *, fatal: bool = False, match: str | None = None
    ) -> None:
        self.send(Error(code=code, message=message, fatal=fatal, match=match))
        if fatal:
            self.close(code)

    def fail(self, error: ProtocolError) -> None:
        """Report a protocol violation and close the connection."""
        self.send_error(error.code, error.message, fatal=True)

    def close(self, code: str) -> None:
        """Stop reading; the writer flushes what is queued, then the socket closes."""
        if self.closed:
            return
        self.closed = True
        self.close_code = code
        self._wake.set()
        self.cancel_scope.cancel()

    async def writer(self) -> None:
        """Send queued frames, all that are ready in one write, until closed."""
        stream = self.stream
        queue = self._queue
        try:
            while True:
                if queue and (self._urgent or self.closed):
                    data = b"".join(queue) if len(queue) > 1 else queue[0]
                    queue.clear()
                    self._queued_bytes = 0
                    self._urgent = False
                    self._sending = True
                    await stream.send_all(data)
                    self._sending = False
                    continue
                if self.closed:
                    return
                self._wake = trio.Event()
                await self._wake.wait()
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.close("connection_lost")


def _peer_name(stream: object) -> str:
    inner = getattr(stream, "transport_stream", None)  # TLS: the TCP stream underneath
    socket = getattr(inner if inner is not None else stream, "socket", None)
    if socket is None:
        return "memory"
    try:
        host, port = socket.getpeername()[:2]
    except OSError:
        return "?"
    return f"{host}:{port}"
