"""The protocol over a WebSocket whose socket the server holds itself (RFC 6455).

Why not through the ASGI server: there every WebSocket message a client is
sent costs an ASGI call, a frame built for that one connection and a task's
write; a spectator cost about 180 µs of server CPU per update. Here the
server owns the socket after the upgrade, so an update is turned into
WebSocket frames once per match (`wire_frames`, cached per match and per
framing by server/fanout.py) and those bytes are written to every
WebSocket spectator as they are to a TCP one.

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

import base64
import contextlib
import hashlib
import struct
from collections.abc import Callable

import msgspec
import trio

from protocol.codec import HEADER
from server.web.stream import body_to_json, json_to_body

GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
TEXT, BINARY, CLOSE, PING, PONG, CONTINUATION = 0x1, 0x2, 0x8, 0x9, 0xA, 0x0
RECEIVE_CHUNK = 64 * 1024

_msgpack = msgspec.msgpack.Encoder()


def accept_token(key: str) -> str:
    """``Sec-WebSocket-Accept`` for a client's ``Sec-WebSocket-Key``."""
    return base64.b64encode(hashlib.sha1(key.encode("ascii") + GUID).digest()).decode("ascii")


def frame(opcode: int, payload: bytes) -> bytes:
    """One unmasked, final server frame."""
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


class WebSocketError(Exception):
    """The client broke RFC 6455: the stream closes with `code` (1002, 1007, 1009)."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


def _unmask(payload: bytes, mask: bytes) -> bytes:
    size = len(payload)
    if not size:
        return payload
    key = (mask * (size // 4 + 1))[:size]
    return (int.from_bytes(payload, "little") ^ int.from_bytes(key, "little")).to_bytes(
        size, "little"
    )


class RawWebSocketStream(trio.abc.Stream):
    """An upgraded WebSocket on a socket the server holds, as a stream of protocol frames."""

    def __init__(
        self,
        stream: trio.SocketStream,
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
        self._max_message = max_message
        self._raw = bytearray(buffered)  # received, not yet parsed into frames
        self._inbound = bytearray()  # protocol frames ready for `receive_some`
        self._message = bytearray()  # a fragmented message being assembled
        self._message_text: bool | None = None
        self._eof = False
        self._closed = False
        self._close_sent = False
        self._write: Callable[[bytes], object] | None = None

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
            try:
                self._parse()
            except WebSocketError as exc:
                self._control(CLOSE, struct.pack(">H", exc.code) + exc.reason.encode()[:120])
                self._eof = True
                break
            if self._inbound or self._eof:
                break
            data = await self.transport.receive_some(RECEIVE_CHUNK)
            if not data:
                self._eof = True
                break
            self._raw += data
        if not self._inbound:
            return b""
        size = len(self._inbound) if max_bytes is None else min(max_bytes, len(self._inbound))
        chunk = bytes(self._inbound[:size])
        del self._inbound[:size]
        return chunk

    def _parse(self) -> None:
        """Every whole client frame in `_raw`: messages to `_inbound`, control frames answered."""
        raw = self._raw
        while len(raw) >= 2 and not self._eof:
            first, second = raw[0], raw[1]
            if first & 0x70:
                raise WebSocketError(1002, "no extension was negotiated (RSV bits set)")
            if not second & 0x80:
                raise WebSocketError(1002, "client frames must be masked")
            final, opcode, size = bool(first & 0x80), first & 0x0F, second & 0x7F
            offset = 2
            if size == 126:
                if len(raw) < 4:
                    return
                (size,) = struct.unpack_from(">H", raw, 2)
                offset = 4
            elif size == 127:
                if len(raw) < 10:
                    return
                (size,) = struct.unpack_from(">Q", raw, 2)
                offset = 10
            if size > self._max_message or len(self._message) + size > self._max_message:
                raise WebSocketError(1009, f"a message is at most {self._max_message} bytes")
            if len(raw) < offset + 4 + size:
                return
            mask = bytes(raw[offset : offset + 4])
            payload = _unmask(bytes(raw[offset + 4 : offset + 4 + size]), mask)
            del raw[: offset + 4 + size]
            if opcode >= 0x8:
                if not final or size > 125:
                    raise WebSocketError(1002, "a control frame is final and at most 125 bytes")
                if opcode == CLOSE:
                    self._control(CLOSE, payload[:2])
                    self._eof = True
                    return
                if opcode == PING:
                    self._control(PONG, payload)
                elif opcode != PONG:
                    raise WebSocketError(1002, f"unknown control opcode {opcode}")
                continue
            if opcode == CONTINUATION:
                if self._message_text is None:
                    raise WebSocketError(1002, "a continuation without a message")
            elif opcode in (TEXT, BINARY):
                if self._message_text is not None:
                    raise WebSocketError(1002, "a new message inside a fragmented one")
                self._message_text = opcode == TEXT
            else:
                raise WebSocketError(1002, f"unknown opcode {opcode}")
            self._message += payload
            if final:
                self._deliver(bytes(self._message), self._message_text)
                self._message.clear()
                self._message_text = None

    def _deliver(self, data: bytes, text: bool | None) -> None:
        if text:
            try:
                data = json_to_body(data.decode("utf-8"))
            except UnicodeDecodeError:
                raise WebSocketError(1007, "a text message must be UTF-8") from None
            except ValueError as exc:  # the framing layer's own bad_message, as on ASGI
                error = {"type": "error", "code": "bad_message", "message": str(exc), "fatal": True}
                self._control_message(_msgpack.encode(error))
                self._eof = True
                return
        # an empty message is a frame of length 0: the codec answers bad_frame
        self._inbound += HEADER.pack(len(data)) + data

    def _control(self, opcode: int, payload: bytes) -> None:
        if self._write is not None and not self._close_sent:
            self._close_sent = opcode == CLOSE
            self._write(frame(opcode, payload))

    def _control_message(self, body: bytes) -> None:
        if self._write is not None:
            self._write(self.wire_frames(HEADER.pack(len(body)) + body))

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
        if not self._close_sent:
            self._close_sent = True
            with trio.move_on_after(1) as scope:
                scope.shield = True
                with contextlib.suppress(
                    trio.BrokenResourceError, trio.ClosedResourceError, trio.BusyResourceError
                ):
                    await self.transport.send_all(frame(CLOSE, struct.pack(">H", 1000)))
        await self.transport.aclose()
