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
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

import msgspec
import structlog
import trio

from protocol.codec import FrameReader, ProtocolError, client_message_decoder, encode_message
from protocol.messages import ClientMessage, Error

if TYPE_CHECKING:
    from server.limits import ClientBudget

log = structlog.get_logger("arena.server")

_ids = itertools.count(1)

#: longest delay of a non-urgent frame (it usually leaves sooner, with the next frame)
LAZY_FLUSH = 0.05
#: ... and while the event loop is busy (see `LazyFlusher`)
LAZY_FLUSH_BUSY = 0.25
#: the event loop counts as busy when it spent more than this share of a tick
#: working, or when a tick came more than `BUSY_LATE` late (it was short of CPU)
BUSY_SHARE, BUSY_LATE = 0.75, 0.005


class SharedFrames:
    """Encoded frames that several connections send: a match's update to its spectators.

    `frames` are the protocol's length-prefixed frames (what a TCP client
    reads); a connection with another wire framing (a WebSocket the server
    holds: server/web/websocket.py) converts them once per framing, here,
    and every such connection writes the same converted bytes.
    """

    __slots__ = ("_wire", "count", "frames")

    def __init__(self, frames: bytes, count: int) -> None:
        self.frames = frames
        self.count = count
        self._wire: dict[str, bytes] = {}

    def wire(self, framing: str, convert: Callable[[bytes], bytes]) -> bytes:
        """The frames in `framing`, converted by `convert` the first time it is asked for."""
        found = self._wire.get(framing)
        if found is None:
            found = self._wire[framing] = convert(self.frames)
        return found


class Flushable(Protocol):
    """What the `LazyFlusher` holds: a connection, or a match's spectators (server/fanout.py)."""

    lazy_generation: int | None

    def flush(self) -> None: ...


class LazyFlusher:
    """Sends every connection's waiting non-urgent frames within `LAZY_FLUSH` seconds.

    One task for the whole server, instead of a timer per connection per move.
    It ticks every `LAZY_FLUSH / 2` and keeps generations of pending
    connections, so a frame queued just before a tick still gets its chance to
    ride with the client's next frame (usually a few milliseconds away).

    Adaptive under load: when the event loop is busy (it spent more than
    `BUSY_SHARE` of a tick working, or a tick came more than `BUSY_LATE` late
    because the loop had more ready work than CPU), a client's next frame is
    far more than a few milliseconds away (every round trip waits for the
    loop), so waiting frames are given up to `LAZY_FLUSH_BUSY` instead, for
    as long as the loop stays busy and a little after: one system call per
    move instead of two exactly when the server is short of CPU. Nothing
    waits on these frames (a mover's copy of its own move; its clock is not
    running).
    """

    def __init__(self) -> None:
        self._generation = 0  # the number of the generation now collecting
        self._pending: set[Flushable] = set()
        # older generations, oldest first: (number, when it began collecting, connections)
        self._generations: collections.deque[tuple[int, float, set[Flushable]]] = (
            collections.deque()
        )

    def hold(self, conn: Flushable) -> None:
        """`conn` has a frame waiting: flush it when its generation's time is up."""
        if conn.lazy_generation is None:  # else an older frame already waits, and counts
            conn.lazy_generation = self._generation
            self._pending.add(conn)

    async def run(self) -> None:
        tick = LAZY_FLUSH / 2
        began, cpu = trio.current_time(), time.thread_time()
        busy_until = -math.inf
        while True:
            await trio.sleep(tick)
            now, now_cpu = trio.current_time(), time.thread_time()
            late = now - began - tick
            if late > BUSY_LATE or now_cpu - cpu > BUSY_SHARE * (now - began):
                busy_until = now + LAZY_FLUSH_BUSY
            busy = now < busy_until
            cpu = now_cpu
            self._generations.append((self._generation, began, self._pending))
            self._generation += 1
            self._pending = set()
            began = now
            window = (LAZY_FLUSH_BUSY if busy else LAZY_FLUSH) - tick / 2
            while self._generations and now - self._generations[0][1] >= window:
                number, _, conns = self._generations.popleft()
                for conn in conns:
                    if conn.lazy_generation == number:  # else its frames already left
                        conn.flush()


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
        # a stream with a wire framing of its own (a WebSocket the server holds) takes
        # protocol frames converted by its `wire_frames`, and queues its control frames here
        self._wire: Callable[[bytes], bytes] | None = getattr(stream, "wire_frames", None)
        self.framing: str = getattr(stream, "framing", "frames")
        attach = getattr(stream, "attach_writer", None)
        if attach is not None:
            attach(self.send_wire)
        self.reader = FrameReader(stream, max_frame)
        self.decoder = client_message_decoder()
        self._queue: collections.deque[bytes] = collections.deque()
        self._limit = queue
        self._max_bytes = max_bytes
        self._queued_bytes = 0
        self._queued_frames = 0  # frames in `_queue` (a shared write may hold several)
        self._wake = trio.Event()
        self._urgent = False
        self._flusher = flusher
        self.lazy_generation: int | None = None  # set while a non-urgent frame waits
        # a plain socket that can be written without blocking (POSIX only; not TLS)
        self._socket = getattr(stream, "socket", None) if os.name == "posix" else None
        self._sending = False  # the writer task owns the socket until its queue is empty
        self.name = "?"
        self.role = "unknown"
        #: the client said a person plays here (``hello.human``): Go marks dead stones
        self.human = False
        self.peer = _peer_name(stream)
        self.closed = False
        self.close_code: str | None = None
        self.cancel_scope = trio.CancelScope()
        self.account: str | None = None  # the registered name it authenticated as
        self.address: str | None = None  # the client address it is counted under
        self.budget: ClientBudget | None = None  # its message and failed-credential budgets
        self.shared_budget: ClientBudget | None = None  # its address's
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
        if self._wire is not None:
            frame = self._wire(frame)
        if not self._admit(len(frame), 1):
            return False
        self._queue.append(frame)
        if urgent or self._flusher is None:
            self.flush()
        else:
            self._flusher.hold(self)
        return True

    def send_wire(self, data: bytes) -> bool:
        """Queue bytes already in this connection's wire framing (a WebSocket's pong), urgent."""
        if not self._admit(len(data), 1):
            return False
        self._queue.append(data)
        self.flush()
        return True

    def send_shared(self, shared: SharedFrames) -> bool:
        """Send frames that every spectator of a match gets (the same bytes), now.

        The spectators' path (server/fanout.py): when nothing waits for this
        client and the socket takes it all, one write and nothing else.
        """
        count = shared.count
        frames = shared.frames if self._wire is None else shared.wire(self.framing, self._wire)
        if (
            not self._queue
            and self._socket is not None
            and not self._sending
            and not self.closed
            and len(frames) <= self._max_bytes
        ):
            try:
                sent = os.write(self._socket.fileno(), frames)
            except BlockingIOError:
                sent = 0
            except OSError:  # reset, broken pipe: the connection is gone
                self.close("connection_lost")
                return False
            if sent == len(frames):
                return True
            rest = frames[sent:] if sent else frames
            self._queue.append(rest)
            self._queued_bytes, self._queued_frames = len(rest), 1
            self._sending = True  # the rest waits for the client to read
            self._urgent = True
            self._wake.set()
            return True
        if not self._admit(len(frames), count):
            return False
        self._queue.append(frames)
        self.flush()
        return True

    def _admit(self, size: int, count: int) -> bool:
        """Count `count` frames of `size` bytes into the queue; False (and closed) if the
        client is too slow for them."""
        if self.closed:
            return False
        if self._queued_frames + count > self._limit or self._queued_bytes + size > self._max_bytes:
            log.warning("slow_consumer", conn=self.id, name=self.name)
            # the one frame allowed past the limit: why the connection closes
            error = encode_message(
                Error(
                    code="slow_consumer",
                    message=f"more than {self._limit} frames or {self._max_bytes} bytes"
                    " waiting to be read",
                    fatal=True,
                )
            )
            self._queue.append(error if self._wire is None else self._wire(error))
            self.close("slow_consumer")
            return False
        self._queued_bytes += size
        self._queued_frames += count
        return True

    def flush(self) -> None:
        """Send everything queued now: written at once if the socket takes it, else by the writer."""
        queue = self._queue
        if not queue:
            return
        self.lazy_generation = None
        if self._socket is not None and not self._sending and not self.closed:
            data = b"".join(queue) if len(queue) > 1 else queue[0]
            queue.clear()
            self._queued_bytes = self._queued_frames = 0
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
            self._queued_bytes, self._queued_frames = len(data) - sent, 1
            self._sending = True  # the rest waits for the client to read
        self._urgent = True
        self._wake.set()

    def rate_limited(self, now: float, wait: float, limit: str = "message_rate") -> None:
        """A message over the client's rate (the setting `limit`) is held back; say so at
        most once a second."""
        self.refused += 1
        self.limited_since = min(self.limited_since, now)
        if now - self._limited_told >= 1.0:
            self._limited_told = now
            self.send(
                Error(
                    code="rate_limited",
                    message=f"over the message rate ({limit}): {self.refused} held back so far;"
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
                    self._queued_bytes = self._queued_frames = 0
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
        name = socket.getpeername()
    except OSError:
        return "?"
    if not isinstance(name, tuple):  # a Unix socket: a path, or '' for a socketpair
        return str(name) or "local"
    return f"{name[0]}:{name[1]}"
