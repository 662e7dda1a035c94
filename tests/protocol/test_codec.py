"""Framing and message validation at the wire boundary."""

from __future__ import annotations

import struct

import msgpack
import pytest
import trio
import trio.lowlevel
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.codec import (
    ConnectionClosed,
    FrameReader,
    ProtocolError,
    client_message_decoder,
    encode_frame,
    encode_message,
    server_message_decoder,
)
from protocol.messages import (
    Error,
    Hello,
    MatchEnd,
    MatchStart,
    Move,
    Seek,
    TimeControl,
    Turn,
    Update,
)


def test_worked_example_from_the_spec() -> None:
    # docs/PROTOCOL.md shows exactly these bytes
    frame = encode_message(Move(match="m0001-8b1bbb", ply=0, move=4))
    assert frame.hex(" ") == (
        "00 00 00 29 84 a4 74 79 70 65 a4 6d 6f 76 65 a5 6d 61 74 63 68 ac 6d 30 30 30 31"
        " 2d 38 62 31 62 62 62 a3 70 6c 79 00 a4 6d 6f 76 65 04"
    )
    # and any msgpack implementation reads it
    assert msgpack.unpackb(frame[4:]) == {
        "type": "move",
        "match": "m0001-8b1bbb",
        "ply": 0,
        "move": 4,
    }


SERVER_MESSAGES = [
    MatchStart(
        match="m1",
        game="connect4",
        options={"width": 7},
        seat=1,
        players=["a", "b"],
        time_control=TimeControl(1.0, 0.2),
        token="t",
        state={"board": ["...."]},
        ply=0,
        to_move=0,
    ),
    Turn(match="m1", ply=3, state=[1, 2], legal_moves=[0, 1, 2], time_left=0.75),
    Update(match="m1", ply=4, seat=1, move=3, notation="4", state={}, think_time=0.1),
    Update("m1", 5, 0, 2, "3", {}, 0.2, eval=0.5, depth=7, visits=900, pv=["3", "3", "4"]),
    MatchEnd(
        match="m1", ply=9, scores=[0.5, 0.5], winner=None, termination="board_full", reason="draw"
    ),
    Error(code="bad_request", message="no", fatal=False),
]


@pytest.mark.parametrize("message", SERVER_MESSAGES, ids=lambda m: type(m).__name__)
def test_server_messages_round_trip(message: object) -> None:
    frame = encode_message(message)  # type: ignore[arg-type]
    (length,) = struct.unpack(">I", frame[:4])
    assert length == len(frame) - 4
    assert server_message_decoder().decode(frame[4:]) == message
    assert isinstance(msgpack.unpackb(frame[4:]), dict)


def test_client_messages_validate_fields() -> None:
    decoder = client_message_decoder()
    seek = decoder.decode(msgpack.packb({"type": "seek", "game": "connect4", "move_time": 1}))
    assert seek == Seek(game="connect4", move_time=1.0)
    # unknown extra keys are ignored (forward compatibility)
    hello = decoder.decode(msgpack.packb({"type": "hello", "version": 1, "name": "a", "x": 1}))
    assert hello == Hello(version=1, name="a")
    cases = [
        ({"type": "seek", "game": "connect4", "move_time": -1}, "bad_message"),
        ({"type": "seek", "game": "connect4", "move_time": "fast"}, "bad_message"),
        ({"type": "move", "match": "m", "ply": -1, "move": 1}, "bad_message"),
        ({"type": "move", "match": "m", "ply": 0, "move": 1, "pv": ["a"] * 65}, "bad_message"),
        ({"type": "hello", "version": 1, "name": ""}, "bad_message"),
        ({"type": "hello", "version": 1, "name": "a", "role": "admin"}, "bad_message"),
        ({"type": "welcome"}, "unknown_type"),  # a server message is not a client message
        ({"type": 7}, "bad_message"),  # a type must be a string (PROTOCOL.md)
        ({"type": [1, 2]}, "bad_message"),
        ({"type": {"a": 1}}, "bad_message"),
        ([1, 2, 3], "bad_message"),
    ]
    for payload, code in cases:
        with pytest.raises(ProtocolError) as info:
            decoder.decode(msgpack.packb(payload))
        assert info.value.code == code, payload
    for body in [b"\xc1", b"\x81", b"\x92\x01", msgpack.packb({"type": "ping"}) + b"\x00"]:
        with pytest.raises(ProtocolError) as info:
            decoder.decode(body)
        assert info.value.code == "bad_message"


def test_deeply_nested_payload_is_rejected_not_crashing() -> None:
    body = b"\x81\xa4type\xa4move" + b"\x91" * 100_000 + b"\x00"
    with pytest.raises(ProtocolError):
        client_message_decoder().decode(body)


async def read_all(data: bytes, chunks: list[int], max_frame: int = 1024) -> list[bytes]:
    send, receive = trio.testing.memory_stream_pair()
    reader = FrameReader(receive, max_frame)
    frames: list[bytes] = []

    async def feed() -> None:
        position = 0
        for size in chunks:
            await send.send_all(data[position : position + size])
            position += size
            await trio.lowlevel.checkpoint()
        await send.send_all(data[position:])
        await send.aclose()

    error: ProtocolError | None = None
    async with trio.open_nursery() as nursery:
        nursery.start_soon(feed)
        while True:
            try:
                frames.append(await reader.read_frame())
            except ConnectionClosed:
                break
            except ProtocolError as exc:
                error = exc
                nursery.cancel_scope.cancel()
                break
    if error is not None:
        raise error
    return frames


@settings(max_examples=50, deadline=None)
@given(
    bodies=st.lists(st.binary(min_size=1, max_size=300), min_size=1, max_size=8),
    chunks=st.lists(st.integers(min_value=1, max_value=64), max_size=30),
)
def test_frames_survive_any_split(bodies: list[bytes], chunks: list[int]) -> None:
    data = b"".join(encode_frame(body) for body in bodies)
    assert trio.run(read_all, data, chunks) == bodies


async def test_frame_limits() -> None:
    with pytest.raises(ProtocolError) as info:
        await read_all(struct.pack(">I", 1025) + b"x" * 1025, [])
    assert info.value.code == "frame_too_large"
    with pytest.raises(ProtocolError) as info:
        await read_all(struct.pack(">I", 0), [])
    assert info.value.code == "bad_frame"
    # a truncated frame is a closed connection, not a hang
    send, receive = trio.testing.memory_stream_pair()
    await send.send_all(struct.pack(">I", 10) + b"abc")
    await send.aclose()
    with pytest.raises(ConnectionClosed, match="middle of a frame"):
        await FrameReader(receive).read_frame()
