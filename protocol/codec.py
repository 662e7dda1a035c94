"""Framing and (de)serialisation: 4-byte big-endian length + one msgpack map.

Why here: both ends share exactly one implementation of the wire format, and
every decode failure becomes a `ProtocolError` with a code from docs/PROTOCOL.md
at this boundary, so the server's logic never sees a malformed value.
"""

from __future__ import annotations

import os
import struct
from typing import Any, Generic, TypeVar

import msgspec
import trio

from protocol.errors import ConnectionClosed as ConnectionClosed
from protocol.errors import ProtocolError as ProtocolError
from protocol.messages import CLIENT_TYPES, SERVER_TYPES, ClientMessage, ServerMessage

DEFAULT_MAX_FRAME = 64 * 1024
HEADER = struct.Struct(">I")
RECEIVE_CHUNK = 64 * 1024

T = TypeVar("T")


_encoder = msgspec.msgpack.Encoder()


def encode_message(message: msgspec.Struct) -> bytes:
    """One complete frame (header + body) for `message`."""
    body = _encoder.encode(message)
    return HEADER.pack(len(body)) + body


def encode_frame(body: bytes) -> bytes:
    """Prefix an already-encoded msgpack body with its length header."""
    return HEADER.pack(len(body)) + body


class MessageDecoder(Generic[T]):
    """Validate one frame body into a typed message, or raise ProtocolError."""

    def __init__(self, message_type: Any, known_types: frozenset[str]) -> None:
        self._decoder: msgspec.msgpack.Decoder[T] = msgspec.msgpack.Decoder(message_type)
        self._known = known_types

    def decode(self, body: bytes) -> T:
        # first the whole frame, untyped: the typed pass skips unknown keys
        # without looking at them, and every byte must be valid (UTF-8 in
        # keys and strings, bounded nesting) wherever it is (~0.5 us a frame)
        try:
            raw = msgspec.msgpack.decode(body)
        except Exception as exc:  # malformed msgpack, invalid UTF-8, too deep: all one error
            raise ProtocolError("bad_message", f"malformed msgpack: {exc}") from None
        try:
            return self._decoder.decode(body)
        except msgspec.ValidationError as exc:
            raise self._classify(raw, str(exc)) from None
        except Exception as exc:  # pragma: no cover - decodable a moment ago
            raise ProtocolError("bad_message", f"malformed msgpack: {exc}") from None

    def _classify(self, raw: Any, detail: str) -> ProtocolError:
        if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
            return ProtocolError(
                "bad_message", f"a message must be a map with a string 'type' key ({detail})"
            )
        kind = raw["type"]
        if kind not in self._known:
            return ProtocolError("unknown_type", f"unknown message type {kind[:64]!r}")
        return ProtocolError("bad_message", f"bad {kind!r} message: {detail}")


def client_message_decoder() -> MessageDecoder[ClientMessage]:
    """Decoder for what clients send (used by the server)."""
    return MessageDecoder(ClientMessage, CLIENT_TYPES)


def server_message_decoder() -> MessageDecoder[ServerMessage]:
    """Decoder for what the server sends (used by clients)."""
    return MessageDecoder(ServerMessage, SERVER_TYPES)


class FrameReader:
    """Reads length-prefixed frames from a Trio stream with a bounded buffer.

    On a plain POSIX socket it waits until the socket is readable and then
    reads, instead of `receive_some`'s read-first: a peer that answers turns
    has nothing waiting when the previous frame has just been read, so the
    first read would fail every time (one system call per message saved).
    """

    def __init__(self, stream: trio.abc.ReceiveStream, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self._stream = stream
        self._max_frame = max_frame
        self._buffer = bytearray()
        socket = getattr(stream, "socket", None)
        self._socket = (
            socket if isinstance(stream, trio.SocketStream) and os.name == "posix" else None
        )

    async def read_frame(self) -> bytes:
        """The next frame's body. Raises ConnectionClosed or ProtocolError.

        No awaits while a whole frame is buffered; the common case (one read
        brings exactly one frame) returns a slice of what was read without
        going through the buffer.
        """
        body = self.buffered_frame()
        while body is None:
            data = await self._receive(self.read_size())
            if not data:
                raise self.end_of_stream()
            body = self.push(data)
        return body

    def push(self, data: bytes | bytearray) -> bytes | None:
        """Take bytes read from the stream; the first whole frame's body, if there is one now.

        Call `buffered_frame` for the frames after it. Raises ProtocolError
        for a bad length header.
        """
        size = HEADER.size
        if not self._buffer and len(data) > size:
            end = size + self._checked_length(HEADER.unpack_from(data)[0])
            if len(data) == end:
                return bytes(data[size:]) if isinstance(data, bytearray) else data[size:]
        self._buffer += data
        return self.buffered_frame()

    def buffered_frame(self) -> bytes | None:
        """The next whole frame's body from the buffer, or None while it is incomplete."""
        buffer = self._buffer
        size = HEADER.size
        have = len(buffer)
        if have < size:
            return None
        end = size + self._checked_length(HEADER.unpack_from(buffer)[0])
        if have < end:
            return None
        body = bytes(memoryview(buffer)[size:end])
        del buffer[:end]
        return body

    @property
    def socket(self) -> Any:
        """The plain POSIX socket read underneath, or None (TLS, in-memory streams)."""
        return self._socket

    @property
    def buffered(self) -> int:
        """Bytes read but not yet returned as frames."""
        return len(self._buffer)

    def read_size(self) -> int:
        """How much to read next: at least the rest of the frame begun, never more than one
        maximal frame plus its header (the buffer stays bounded)."""
        buffer = self._buffer
        size = HEADER.size
        have = len(buffer)
        want = size - have if have < size else size + HEADER.unpack_from(buffer)[0] - have
        return min(max(RECEIVE_CHUNK, want), self._max_frame + size)

    def end_of_stream(self) -> ConnectionClosed:
        """What the stream's end means here: clean between frames, or in the middle of one."""
        if not self._buffer:
            return ConnectionClosed("peer closed the connection")
        return ConnectionClosed("peer closed the connection in the middle of a frame")

    def _checked_length(self, length: int) -> int:
        if length == 0:
            raise ProtocolError("bad_frame", "frame length 0 (a frame holds one msgpack map)")
        if length > self._max_frame:
            raise ProtocolError(
                "frame_too_large", f"frame of {length} bytes exceeds the limit of {self._max_frame}"
            )
        return length

    async def _receive(self, want: int) -> bytes | bytearray:
        try:
            if self._socket is not None:
                return await self._read_socket(want)
            return await self._stream.receive_some(want)
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            raise ConnectionClosed(f"connection lost: {exc}") from None

    async def _read_socket(self, want: int) -> bytes:
        socket = self._socket
        assert socket is not None
        while True:
            await trio.lowlevel.wait_readable(socket)
            try:
                return os.read(socket.fileno(), want)
            except BlockingIOError:  # a spurious wake-up: wait again
                continue
