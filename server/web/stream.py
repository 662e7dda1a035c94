"""A WebSocket seen as a `trio.abc.Stream` of protocol frames.

Why: the server's session logic reads and writes length-prefixed msgpack
frames (protocol/codec.py). Presenting each WebSocket message as one such
frame lets a browser use `ArenaServer.handle_connection` unchanged: the same
frame limits, message validation, roles and error codes as a TCP client.

Framing on the WebSocket: one protocol message per WebSocket message, either
a binary message holding the msgpack map, or a text message holding the same
map as JSON. What the server sends uses the framing negotiated by the
subprotocol (``arena.json``, the default, or ``arena.msgpack``).

The adapter parses no HTTP or WebSocket itself: it speaks ASGI messages to
the server library (hypercorn), which does the wire protocol.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import msgspec
import trio

from protocol.codec import HEADER

ASGIMessage = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[ASGIMessage]]
Send = Callable[[ASGIMessage], Awaitable[None]]

JSON_SUBPROTOCOL = "arena.json"
MSGPACK_SUBPROTOCOL = "arena.msgpack"
SUBPROTOCOLS = (JSON_SUBPROTOCOL, MSGPACK_SUBPROTOCOL)

_json_encoder = msgspec.json.Encoder()
_msgpack_encoder = msgspec.msgpack.Encoder()


@functools.lru_cache(maxsize=512)
def body_to_json(body: bytes) -> str:
    """A msgpack body as JSON text (cached: a broadcast sends the same body to everyone)."""
    return _json_encoder.encode(msgspec.msgpack.decode(body)).decode()


def json_to_body(text: str) -> bytes:
    """JSON text as a msgpack body; ValueError with a readable reason if it is not JSON."""
    try:
        value = msgspec.json.decode(text)
    except msgspec.DecodeError as exc:
        raise ValueError(f"malformed JSON: {exc}") from None
    try:
        return _msgpack_encoder.encode(value)
    except (OverflowError, TypeError) as exc:  # e.g. an integer beyond 64 bits
        raise ValueError(f"cannot be a protocol value: {exc}") from None


class WebSocketStream(trio.abc.Stream):
    """An accepted ASGI WebSocket as a byte stream of length-prefixed protocol frames."""

    def __init__(
        self, receive: Receive, send: Send, *, json: bool = True, client: Any = None
    ) -> None:
        self._receive = receive
        self._send = send
        self.json = json
        #: the browser's address (host, port) as the server library saw it
        self.client = tuple(client) if client else None
        self._inbound = bytearray()
        self._outbound = bytearray()
        self._eof = False
        self._closed = False
        self._disconnected = False

    # --- reading: WebSocket messages -> frames ------------------------------------

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        if self._closed:
            raise trio.ClosedResourceError("the WebSocket stream was closed")
        while not self._inbound and not self._eof:
            await self._next_message()
        if not self._inbound:
            return b""
        size = len(self._inbound) if max_bytes is None else min(max_bytes, len(self._inbound))
        chunk = bytes(self._inbound[:size])
        del self._inbound[:size]
        return chunk

    async def _next_message(self) -> None:
        message = await self._receive()
        kind = message.get("type")
        if kind == "websocket.disconnect":
            self._eof = True
            self._disconnected = True
            return
        if kind != "websocket.receive":
            return
        data = message.get("bytes")
        if data is None:
            try:
                data = json_to_body(message.get("text") or "")
            except ValueError as exc:
                await self._refuse(str(exc))
                return
        # an empty message is a frame of length 0: the codec answers bad_frame
        self._inbound += HEADER.pack(len(data)) + data

    async def _refuse(self, reason: str) -> None:
        """A text message that is not JSON: the framing layer's own ``bad_message``."""
        error = {"type": "error", "code": "bad_message", "message": reason, "fatal": True}
        await self._send_message(_msgpack_encoder.encode(error))
        self._eof = True  # the session sees the connection end

    # --- writing: frames -> WebSocket messages ------------------------------------

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self._closed:
            raise trio.ClosedResourceError("the WebSocket stream was closed")
        if self._disconnected:
            raise trio.BrokenResourceError("the WebSocket is disconnected")
        self._outbound += data
        buffer = self._outbound
        while len(buffer) >= HEADER.size:
            (length,) = HEADER.unpack_from(buffer)
            end = HEADER.size + length
            if len(buffer) < end:
                break
            body = bytes(buffer[HEADER.size : end])
            del buffer[:end]
            await self._send_message(body)

    async def _send_message(self, body: bytes) -> None:
        message: ASGIMessage = {"type": "websocket.send"}
        if self.json:
            message["text"] = body_to_json(body)
        else:
            message["bytes"] = body
        # no lock of our own: the server library serialises sends on its socket
        try:
            await self._send(message)
        except OSError as exc:  # the peer went away under the server library
            self._disconnected = True
            raise trio.BrokenResourceError(f"WebSocket send failed: {exc}") from None

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        if self._closed:
            await trio.lowlevel.checkpoint()
            return
        self._closed = True
        if self._disconnected:
            await trio.lowlevel.checkpoint()
            return
        self._disconnected = True
        with trio.move_on_after(1) as scope:
            scope.shield = True
            with contextlib.suppress(OSError):
                await self._send({"type": "websocket.close", "code": 1000})
