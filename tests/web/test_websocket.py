"""The web port's own WebSocket (server/web/door.py, websocket.py), byte by byte.

A real server with its web app on real sockets; the client writes RFC 6455
frames by hand, so the cases a library would never send (unmasked frames,
fragments, control frames, oversized or broken messages) are driven too.
"""

from __future__ import annotations

import base64
import json
import os
import struct
from pathlib import Path
from typing import Any

import msgspec
import trio

from server.web.websocket import accept_token
from tests.server.harness import RawClient, play_randomly, start_pair
from tests.web.helpers import Running, running_web, ws_client


def client_frame(opcode: int, payload: bytes, *, final: bool = True, mask: bool = True) -> bytes:
    first = (0x80 if final else 0) | opcode
    size = len(payload)
    if size < 126:
        head = struct.pack(">BB", first, (0x80 if mask else 0) | size)
    elif size < 1 << 16:
        head = struct.pack(">BBH", first, (0x80 if mask else 0) | 126, size)
    else:
        head = struct.pack(">BBQ", first, (0x80 if mask else 0) | 127, size)
    if not mask:
        return head + payload
    key = os.urandom(4)
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


class RawSocket:
    """A WebSocket client written by hand over a trio TCP stream."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.buffer = b""

    @classmethod
    async def open(cls, running: Running, protocol: str = "arena.json") -> RawSocket:
        port = int(running.url.rpartition(":")[2])
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        await stream.send_all(
            (
                f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {protocol}\r\n"
                "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n\r\n"
            ).encode()
        )
        client = cls(stream)
        head = await client.until(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 101 "), head
        assert f"Sec-WebSocket-Accept: {accept_token(key)}".encode() in head
        assert b"extensions" not in head.lower()  # no compression: the same bytes for all
        return client

    async def until(self, marker: bytes) -> bytes:
        with trio.fail_after(10):
            while marker not in self.buffer:
                chunk = await self.stream.receive_some(65536)
                assert chunk, f"closed before {marker!r}: {self.buffer!r}"
                self.buffer += chunk
        head, _, self.buffer = self.buffer.partition(marker)
        return head + marker

    async def frame(self) -> tuple[int, bytes]:
        """The next server frame: (opcode, payload); server frames are never masked."""
        with trio.fail_after(10):
            while True:
                if len(self.buffer) >= 2:
                    assert not self.buffer[1] & 0x80, "a server frame must not be masked"
                    size, offset = self.buffer[1] & 0x7F, 2
                    if size == 126 and len(self.buffer) >= 4:
                        (size,) = struct.unpack_from(">H", self.buffer, 2)
                        offset = 4
                    elif size == 127 and len(self.buffer) >= 10:
                        (size,) = struct.unpack_from(">Q", self.buffer, 2)
                        offset = 10
                    if (size < 126 or offset > 2) and len(self.buffer) >= offset + size:
                        opcode = self.buffer[0] & 0x0F
                        payload = self.buffer[offset : offset + size]
                        self.buffer = self.buffer[offset + size :]
                        return opcode, payload
                chunk = await self.stream.receive_some(65536)
                if not chunk:
                    return -1, b""  # closed
                self.buffer += chunk

    async def send(self, message: dict[str, Any]) -> None:
        await self.stream.send_all(client_frame(0x1, json.dumps(message).encode()))

    async def message(self) -> dict[str, Any]:
        opcode, payload = await self.frame()
        assert opcode == 0x1, (opcode, payload)
        return dict(json.loads(payload))


async def test_a_fragmented_hello_and_a_ping_in_between(tmp_path: Path) -> None:
    async with running_web(None) as running:
        client = await RawSocket.open(running)
        hello = json.dumps({"type": "hello", "version": 1, "name": "ann"}).encode()
        await client.stream.send_all(
            client_frame(0x1, hello[:10], final=False)
            + client_frame(0x9, b"are you there")  # a ping between the fragments
            + client_frame(0x0, hello[10:])
        )
        assert await client.frame() == (0xA, b"are you there")  # the pong, first
        assert (await client.message())["type"] == "welcome"
        await client.send({"type": "ping", "id": 3})
        assert await client.message() == {"type": "pong", "id": 3}
        await client.stream.send_all(client_frame(0x8, struct.pack(">H", 1000)))
        opcode, payload = await client.frame()
        assert opcode == 0x8 and payload[:2] == struct.pack(">H", 1000)  # echoed
        assert await client.frame() == (-1, b"")  # then closed


async def test_frames_a_client_must_not_send_close_with_their_code() -> None:
    cases = [
        (client_frame(0x1, b'{"type":"hello"}', mask=False), 1002),  # not masked
        (client_frame(0x1, b"\xff\xfe"), 1007),  # text that is not UTF-8
        # a message above the 256 KiB limit: refused once its bytes pass it (wsproto hands
        # a frame's payload over as it arrives; the limit is counted on what arrived)
        (client_frame(0x2, os.urandom(256 * 1024 + 1)), 1009),
        (client_frame(0x0, b"{}"), 1002),  # a continuation of nothing
        (bytes([0xC1, 0x80]) + os.urandom(4), 1002),  # RSV1: compression was not agreed
    ]
    async with running_web(None) as running:
        for data, code in cases:
            client = await RawSocket.open(running)
            await client.stream.send_all(data)
            opcode, payload = await client.frame()
            assert (opcode, payload[:2]) == (0x8, struct.pack(">H", code)), data[:16]
            assert await client.frame() == (-1, b"")


async def test_malformed_json_is_the_protocols_bad_message() -> None:
    async with running_web(None) as running:
        client = await RawSocket.open(running)
        await client.stream.send_all(client_frame(0x1, b"{nope"))
        error = await client.message()
        assert error["code"] == "bad_message" and error["fatal"]
        assert "malformed JSON" in error["message"]


async def test_websocket_and_tcp_spectators_see_the_same_messages(tmp_path: Path) -> None:
    async with running_web(tmp_path / "arena.sqlite") as running:
        port = running.server.port
        assert port is not None
        players = [await RawClient.connect(port) for _ in range(2)]
        options = {"width": 15, "height": 15, "k": 5}
        match, by_seat, _ = await start_pair(players, game="gomoku", options=options)
        tcp = await RawClient.connect(port)
        await tcp.hello("tcp", role="spectator")
        await tcp.send({"type": "spectate", "match": match})
        seen: dict[str, list[Any]] = {}
        async with (
            ws_client(running, json_framing=False) as binary,
            ws_client(running) as text,
        ):
            for client in (binary, text):
                await client.hello("ws", role="spectator")
                await client.send({"type": "spectate", "match": match})
                await client.expect("match_start")

            async def read_ws(name: str, client: Any) -> None:
                seen[name] = []
                while not seen[name] or seen[name][-1]["type"] != "match_end":
                    seen[name].append(await client.receive())

            async def read_tcp() -> None:
                seen["tcp"] = []
                assert b"match_start" in (await tcp.reader.read_frame())[:24]
                while not seen["tcp"] or seen["tcp"][-1]["type"] != "match_end":
                    seen["tcp"].append(msgspec.msgpack.decode(await tcp.reader.read_frame()))

            async with trio.open_nursery() as nursery:
                nursery.start_soon(read_ws, "msgpack", binary)
                nursery.start_soon(read_ws, "json", text)
                nursery.start_soon(read_tcp)
                for seat, player in by_seat.items():
                    nursery.start_soon(play_randomly, player, seat)
        assert seen["msgpack"] == seen["tcp"]
        # JSON has no float/int distinction to keep: compare through JSON
        assert seen["json"] == json.loads(json.dumps(seen["tcp"]))
        assert [m["ply"] for m in seen["tcp"][:-1]] == list(range(1, len(seen["tcp"])))


async def test_pages_and_the_api_still_come_from_the_web_app() -> None:
    async with running_web(None) as running:
        port = int(running.url.rpartition(":")[2])
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        request = b"GET /api/live HTTP/1.1\r\nHost: x\r\n\r\n"
        await stream.send_all(request[:9])  # a head in pieces
        await trio.sleep(0.05)
        await stream.send_all(request[9:] + request)  # and a second request kept alive
        data = b""
        with trio.fail_after(10):
            while data.count(b"HTTP/1.1 200") < 2:
                data += await stream.receive_some(65536)
        assert b'"matches"' in data
