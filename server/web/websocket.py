"""The protocol over a WebSocket whose socket the server holds itself (RFC 6455).

Why not through the ASGI server: there every WebSocket message a client is
sent costs an ASGI call, a frame built for that one connection and a task's
write; a spectator cost about 180 µs of server CPU per update. Here the
server owns the socket after the upgrade, so an update is turned into
WebSocket frames once per match (`wire_frames`, cached per match and per
framing by server/fanout.py) and those bytes are written to every
WebSocket spectator as they are to a TCP one.

What clients send is read by wsproto (python-hyper's WebSocket protocol
library, the one hypercorn uses): unmasking, fragments, control frames, the
close handshake, UTF-8 of text messages, RSV bits, and the close codes of
what breaks RFC 6455 (1002, 1007). Only the message size limit (1009, as the
ASGI endpoint's) is counted here, as a message's parts arrive. The outbound
side stays the server's own: wsproto's `send` builds a frame per connection,
and a match's update must be the same bytes for every spectator; so data
frames are built once (`frame`, `wire_frames`) and never pass through
wsproto. That keeps wsproto's state consistent: its outbound state is only
the opcode of a fragmented message it sends (never used here) and the close
state, which changes only through `send(CloseConnection)` and received close
frames; pongs and closes are built by wsproto and written through the
connection's own queue, so they never land inside another frame.

`RawWebSocketStream` presents the connection to `ArenaServer.handle_connection`
as server/web/stream.py's adapter does (same framing rules, same errors):

* reading: each client message (binary: a msgpack map; text: the same map
  as JSON) becomes one length-prefixed protocol frame;
* writing: what `Connection` queues is already wire bytes (`wire_frames`
  applied to each protocol frame), so `send_all` writes them unchanged.

No extension is negotiated (no compression: frames must be the same bytes
for every client). Control frames: a ``ping`` is answered with a ``pong``
through the connection's own queue (`attach_writer`), never in the middle of
another frame; a ``close`` is answered and ends the stream.
"""

from __future__ import annotations

import contextlib
import struct
from collections.abc import Callable

import msgspec
import trio
from wsproto.connection import Connection as WsConnection
from wsproto.connection import ConnectionState
from wsproto.events import CloseConnection, Message, Ping, TextMessage
from wsproto.utilities import generate_accept_token

from protocol.codec import HEADER
from server.web.stream import body_to_json, json_to_body

TEXT, BINARY, CLOSE = 0x1, 0x2, 0x8
RECEIVE_CHUNK = 64 * 1024

_msgpack = msgspec.msgpack.Encoder()


def accept_token(key: str) -> str:
    """``Sec-WebSocket-Accept`` for a client's ``Sec-WebSocket-Key`` (wsproto's)."""
    return generate_accept_token(key.encode("ascii")).decode("ascii")


def frame(opcode: int, payload: bytes) -> bytes:
    """One unmasked, final server frame: built once, written to every spectator."""
    size = len(payload)
    if size < 126:
        head = struct.pack(">BB", 0x80 | opcode, size)
    elif size < 1 << 16:
        head = struct.pack(">BBH", 0x80 | opcode, 126, size)
    else:
        head = struct.pack(">BBQ", 0x80 | opcode, 127, size)
    return head + payload


def wire_frames(frames: bytes, *, json: bool) -> bytes:
    """Length-prefixed protocol frames as WebSocket messages: one each, text (JSON) or binary."""
    out = []
    offset, end = 0, len(frames)
    while offset < end:
        (length,) = HEADER.unpack_from(frames, offset)
        body = frames[offset + HEADER.size : offset + HEADER.size + length]
        offset += HEADER.size + length
        if json:
            out.append(frame(TEXT, body_to_json(body).encode()))
        else:
            out.append(frame(BINARY, body))
    return out[0] if len(out) == 1 else b"".join(out)


class RawWebSocketStream(trio.abc.Stream):
    """An upgraded WebSocket on a socket the server holds, as a stream of protocol frames.

    `protocol` is wsproto's connection once the handshake is accepted
    (server/web/door.py); `buffered` is what the client sent after its
    request head.
    """

    def __init__(
        self,
        stream: trio.SocketStream,
        protocol: WsConnection,
        *,
        json: bool,
        max_message: int,
        buffered: bytes = b"",
    ) -> None:
        self.transport = stream
        #: the socket underneath: `Connection` writes wire bytes to it directly
        self.socket = stream.socket
        self.json = json
        #: the key of this connection's wire framing in a shared batch (server/fanout.py)
        self.framing = "ws-json" if json else "ws-msgpack"
        self._protocol = protocol
        self._max_message = max_message
        self._inbound = bytearray()  # protocol frames ready for `receive_some`
        self._parts: list[bytes] = []  # the parts of a message being assembled
        self._size = 0  # their bytes
        self._eof = False
        self._closed = False
        self._write: Callable[[bytes], object] | None = None
        if buffered:
            protocol.receive_data(buffered)

    # --- for `Connection` ---------------------------------------------------------

    def wire_frames(self, frames: bytes) -> bytes:
        """Protocol frames in this connection's WebSocket framing."""
        return wire_frames(frames, json=self.json)

    def attach_writer(self, write: Callable[[bytes], object]) -> None:
        """How control frames (a pong, a close) join the connection's outgoing queue."""
        self._write = write

    # --- reading ---------------------------------------------------------------------

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self._closed:
            raise trio.ClosedResourceError("the WebSocket stream was closed")
        while not self._inbound and not self._eof:
            self._events()
            if self._inbound or self._eof:
                break
            data = await self.transport.receive_some(RECEIVE_CHUNK)
            if not data:
                self._eof = True
                break
            self._protocol.receive_data(data)
        if not self._inbound:
            return b""
        size = len(self._inbound) if max_bytes is None else min(max_bytes, len(self._inbound))
        chunk = bytes(self._inbound[:size])
        del self._inbound[:size]
        return chunk

    def _events(self) -> None:
        """What wsproto read: messages to `_inbound`, pings answered, a close ends the stream."""
        protocol = self._protocol
        for event in protocol.events():
            if isinstance(event, Message):
                data = event.data.encode("utf-8") if isinstance(event, TextMessage) else event.data
                self._size += len(data)
                if self._size > self._max_message:
                    self._close(1009, f"a message is at most {self._max_message} bytes")
                    return
                self._parts.append(bytes(data))
                if event.message_finished:
                    message = b"".join(self._parts)
                    self._parts.clear()
                    self._size = 0
                    self._deliver(message, isinstance(event, TextMessage))
                    if self._eof:
                        return
            elif isinstance(event, Ping):
                self._control(protocol.send(event.response()))
            elif isinstance(event, CloseConnection):
                if protocol.state is ConnectionState.REMOTE_CLOSING:  # the client's close
                    self._control(protocol.send(event.response()))
                    self._eof = True
                else:  # what the client sent broke RFC 6455 (wsproto's code: 1002, 1007)
                    self._close(event.code, event.reason or "")
                return
            # a Pong (an answer to nothing the server sent) is ignored

    def _deliver(self, data: bytes, text: bool) -> None:
        if text:
            try:
                data = json_to_body(data.decode("utf-8"))  # wsproto checked the UTF-8
            except ValueError as exc:  # the framing layer's own bad_message, as on ASGI
                error = {"type": "error", "code": "bad_message", "message": str(exc), "fatal": True}
                body = _msgpack.encode(error)
                self._control(self.wire_frames(HEADER.pack(len(body)) + body))
                self._eof = True
                return
        # an empty message is a frame of length 0: the codec answers bad_frame
        self._inbound += HEADER.pack(len(data)) + data

    def _close(self, code: int, reason: str) -> None:
        """Fail the connection: a close frame with `code`, and no more reading."""
        self._eof = True
        if self._protocol.state is ConnectionState.OPEN:
            self._control(self._protocol.send(CloseConnection(code=code, reason=reason[:120])))

    def _control(self, data: bytes) -> None:
        """Bytes for the client through the connection's queue: in order with the rest."""
        if self._write is not None and data:
            self._write(data)

    # --- writing: wire bytes, as `Connection` prepared them ------------------------

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self._closed:
            raise trio.ClosedResourceError("the WebSocket stream was closed")
        await self.transport.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.transport.wait_send_all_might_not_block()

    async def aclose(self) -> None:
        if self._closed:
            await trio.lowlevel.checkpoint()
            return
        self._closed = True
        if self._protocol.state is ConnectionState.OPEN:
            closing = self._protocol.send(CloseConnection(code=1000))
            with trio.move_on_after(1) as scope:
                scope.shield = True
                with contextlib.suppress(
                    trio.BrokenResourceError, trio.ClosedResourceError, trio.BusyResourceError
                ):
                    await self.transport.send_all(closing)
        await self.transport.aclose()
