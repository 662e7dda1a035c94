"""One client connection: a frame reader and a writer task behind a bounded queue.

Why a queue: the match task must never wait on a client's socket. Sending is
`send()` without blocking; a client that falls `send_queue` frames behind is
too slow to play and is disconnected (``slow_consumer``) instead of delaying
anyone else. Frames are encoded once and the same bytes go to every
recipient of a broadcast.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

import msgspec
import structlog
import trio

from protocol.codec import FrameReader, ProtocolError, client_message_decoder, encode_message
from protocol.messages import ClientMessage, Error

if TYPE_CHECKING:
    from server.match import Match

log = structlog.get_logger("arena.server")

_ids = itertools.count(1)


class Connection:
    """A connected client, from accept to close."""

    def __init__(
        self, stream: trio.SocketStream | trio.abc.Stream, *, max_frame: int, queue: int
    ) -> None:
        self.id = f"c{next(_ids)}"
        self.stream = stream
        self.reader = FrameReader(stream, max_frame)
        self.decoder = client_message_decoder()
        self._out_send, self._out_receive = trio.open_memory_channel[bytes](queue)
        self.name = "?"
        self.role = "unknown"
        self.peer = _peer_name(stream)
        self.closed = False
        self.close_code: str | None = None
        self.cancel_scope = trio.CancelScope()
        # (match, seat) pairs this connection currently holds
        self.seats: set[tuple[Match, int]] = set()
        self.watching: set[Match] = set()
        self.last_received = trio.current_time()

    def __repr__(self) -> str:
        return f"<Connection {self.id} {self.name!r} {self.peer}>"

    async def receive(self) -> ClientMessage:
        """The next validated message (ProtocolError / ConnectionClosed otherwise)."""
        body = await self.reader.read_frame()
        self.last_received = trio.current_time()
        return self.decoder.decode(body)

    def send(self, message: msgspec.Struct) -> bool:
        """Queue a message; False if the connection is gone or was too slow."""
        return self.send_frame(encode_message(message))

    def send_frame(self, frame: bytes) -> bool:
        """Queue an encoded frame without waiting."""
        if self.closed:
            return False
        try:
            self._out_send.send_nowait(frame)
        except trio.WouldBlock:
            log.warning("slow_consumer", conn=self.id, name=self.name)
            self.close("slow_consumer")
            return False
        except (trio.ClosedResourceError, trio.BrokenResourceError):
            return False
        return True

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
        self._out_send.close()
        self.cancel_scope.cancel()

    async def writer(self) -> None:
        """Send queued frames (coalescing what is ready) until closed."""
        stream = self.stream
        receive = self._out_receive
        try:
            async for frame in receive:
                chunks = [frame]
                while len(chunks) < 64:
                    try:
                        chunks.append(receive.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):
                        break
                await stream.send_all(b"".join(chunks) if len(chunks) > 1 else frame)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            self.close("connection_lost")


def _peer_name(stream: object) -> str:
    socket = getattr(stream, "socket", None)
    if socket is None:
        return "memory"
    try:
        host, port = socket.getpeername()[:2]
    except OSError:
        return "?"
    return f"{host}:{port}"
