"""Property: whatever msgpack a client sends, in any field of any message type, the server
answers with documented frames (an error, or the request's answer) or closes after a
fatal error, and stays up for everyone else. Against a real `arena serve`, over real
sockets, with an independent encoder (the `msgpack` package)."""

from __future__ import annotations

import contextlib
import socket
import struct
from collections.abc import Iterator
from typing import Any

import msgpack
import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol.codec import server_message_decoder
from protocol.messages import CLIENT_TYPES, ClientMessage, Error, Pong
from tests.server.error_table import documented_codes
from tests.server.serverproc import ServerProcess, start_server

FIELDS = sorted({name for cls in ClientMessage.__args__ for name in cls.__struct_fields__})

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**64 - 1)
    | st.floats(allow_nan=True)
    | st.text(max_size=20)
    | st.binary(max_size=20)
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.text(max_size=8) | st.integers(-(2**63), 2**63 - 1), inner, max_size=4)
    ),
    max_leaves=12,
)
messages = st.fixed_dictionaries(
    {"type": st.sampled_from(sorted(CLIENT_TYPES)) | values},
    optional=dict.fromkeys(FIELDS, values),
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    tmp = tmp_path_factory.mktemp("fuzz")
    process = start_server(
        tmp / "arena.sqlite",
        log=tmp / "serve.log",
        extra=["--move-time", "5"],
    )
    yield process
    process.signal(15)


def _frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def _exchange(port: int, body: bytes) -> tuple[list[Any], bool]:
    """Hello, the fuzzed frame, then a ping: (server messages received, closed by the server)."""
    decoder = server_message_decoder()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        hello = msgspec.msgpack.encode({"type": "hello", "version": 1, "name": "fuzz"})
        sock.sendall(_frame(hello) + _frame(body))
        with contextlib.suppress(OSError):  # closed already: what it said is checked below
            sock.sendall(_frame(msgspec.msgpack.encode({"type": "ping", "id": 424242})))
        received: list[Any] = []
        buffer = b""
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                return received, True
            buffer += chunk
            while len(buffer) >= 4 and len(buffer) >= 4 + struct.unpack(">I", buffer[:4])[0]:
                size = struct.unpack(">I", buffer[:4])[0]
                message = decoder.decode(buffer[4 : 4 + size])  # every frame is a valid message
                buffer = buffer[4 + size :]
                received.append(message)
                if isinstance(message, Pong) and message.id == 424242:
                    return received, False


def _check(received: list[Any], closed: bool) -> None:
    codes = documented_codes()
    for message in received:
        if isinstance(message, Error):
            assert message.code in codes, message
            assert message.fatal in codes[message.code], message
    if closed:  # never closed without saying why
        assert received and isinstance(received[-1], Error) and received[-1].fatal, received


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(message=messages)
def test_any_message_gets_a_documented_answer(
    server: ServerProcess, message: dict[Any, Any]
) -> None:
    body = msgpack.packb(message, use_bin_type=True, strict_types=False)
    _check(*_exchange(server.port, body))


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(body=st.binary(min_size=1, max_size=64))
def test_any_bytes_get_a_documented_answer(server: ServerProcess, body: bytes) -> None:
    _check(*_exchange(server.port, body))


@pytest.mark.parametrize(
    "body",
    [
        b"\x91" * 5000 + b"\xc0",  # nesting far deeper than the decoder allows
        b"\x82\xa4type\xa4ping\xa2\xff\xfe\xc0",  # a key that is not UTF-8
        b"\x81\xa4type\xa2\xc3\x28",  # a type that is not UTF-8
    ],
)
def test_pathological_frames(server: ServerProcess, body: bytes) -> None:
    received, closed = _exchange(server.port, body)
    _check(received, closed)
    assert closed and received[-1].code == "bad_message"


def test_the_server_is_still_up_for_others(server: ServerProcess) -> None:
    assert server.alive()
    received, closed = _exchange(server.port, msgspec.msgpack.encode({"type": "list"}))
    assert not closed and received
