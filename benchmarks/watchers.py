"""Many spectators of one match in one process, over TCP or the web app's WebSocket.

The client side of `benchmarks.spectators`: it must cost little, so that the
server, not the spectators, is what the benchmark measures. No Trio and no
task per spectator: one epoll loop reads every socket, splits frames by their
length and looks at a frame's first bytes to count it as an ``update``; only
other frames (``match_start``, ``match_end``, ``ping``, ``error``) are
decoded.

    python -m benchmarks.watchers tcp HOST PORT MATCH N
    python -m benchmarks.watchers ws|ws-json HOST PORT MATCH N

It prints ``ready`` once every spectator has its ``match_start``, and when
every one has its ``match_end`` (or was dropped) one JSON line: updates
received, dropped spectators, and for a sample of them when (``time.monotonic``,
shared by the processes of one machine) each ply's update arrived.
"""

from __future__ import annotations

import base64
import json
import os
import select
import socket
import struct
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import msgspec

from protocol.codec import HEADER, encode_message
from protocol.messages import PROTOCOL_VERSION, Hello, Pong, Spectate

#: spectators whose arrival times are kept (the latency sample)
SAMPLE = 20
_UPDATE_MSGPACK = b"\xa4type\xa6update"
_UPDATE_JSON = b'"type":"update"'


@dataclass
class Watcher:
    sock: socket.socket
    websocket: bool
    sample: bool
    buffer: bytearray = field(default_factory=bytearray)
    started: bool = False
    ended: bool = False
    dropped: bool = False
    updates: int = 0
    arrivals: dict[int, float] = field(default_factory=dict)

    def send(self, body: bytes, *, text: bool = False) -> None:
        if self.websocket:
            self.sock.sendall(ws_frame(body, text=text))
        else:
            self.sock.sendall(HEADER.pack(len(body)) + body)

    def bodies(self) -> list[tuple[bytes, bool]]:
        """Complete messages in the buffer: (body, is text), taken out of it."""
        found: list[tuple[bytes, bool]] = []
        buffer = self.buffer
        start = 0
        while True:
            if self.websocket:
                parsed = ws_parse(buffer, start)
                if parsed is None:
                    break
                opcode, body_start, end = parsed
                if opcode == 8:  # close
                    self.dropped = True
                    break
                if opcode in (1, 2):
                    found.append((bytes(buffer[body_start:end]), opcode == 1))
            else:
                if len(buffer) - start < 4:
                    break
                (length,) = HEADER.unpack_from(buffer, start)
                end = start + 4 + length
                if len(buffer) < end:
                    break
                found.append((bytes(buffer[start + 4 : end]), False))
            start = end
        del buffer[:start]
        return found


def ws_frame(payload: bytes, *, text: bool) -> bytes:
    """A masked client frame (RFC 6455 5.2)."""
    mask = os.urandom(4)
    head = bytes([0x81 if text else 0x82])
    n = len(payload)
    if n < 126:
        head += bytes([0x80 | n])
    elif n < 65536:
        head += bytes([0x80 | 126]) + struct.pack(">H", n)
    else:
        head += bytes([0x80 | 127]) + struct.pack(">Q", n)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + masked


def ws_parse(buffer: bytearray, start: int) -> tuple[int, int, int] | None:
    """(opcode, payload start, end) of the unmasked server frame at `start`, if complete."""
    have = len(buffer) - start
    if have < 2:
        return None
    opcode, length = buffer[start] & 0x0F, buffer[start + 1] & 0x7F
    offset = start + 2
    if length == 126:
        if have < 4:
            return None
        (length,) = struct.unpack_from(">H", buffer, offset)
        offset += 2
    elif length == 127:
        if have < 10:
            return None
        (length,) = struct.unpack_from(">Q", buffer, offset)
        offset += 8
    if len(buffer) < offset + length:
        return None
    return opcode, offset, offset + length


def connect(host: str, port: int, mode: str, match: str, sample: bool) -> Watcher:
    sock = socket.create_connection((host, port))
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    websocket = mode.startswith("ws")
    if websocket:
        key = base64.b64encode(os.urandom(16)).decode()
        protocol = "arena.json" if mode == "ws-json" else "arena.msgpack"
        sock.sendall(
            (
                f"GET /ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                f"Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: {protocol}\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                raise SystemExit("the web server closed during the WebSocket handshake")
            head += chunk
        status, _, rest = head.partition(b"\r\n\r\n")
        if b" 101 " not in status.split(b"\r\n")[0]:
            raise SystemExit(f"WebSocket handshake refused: {status[:200]!r}")
        watcher = Watcher(sock, True, sample, bytearray(rest))
    else:
        watcher = Watcher(sock, False, sample)
    hello = Hello(PROTOCOL_VERSION, "watcher", role="spectator", client="benchmarks.watchers")
    for message in (hello, Spectate(match)):
        body = encode_message(message)[HEADER.size :]
        if mode == "ws-json":
            watcher.send(json.dumps(msgspec.msgpack.decode(body)).encode(), text=True)
        else:
            watcher.send(body)
    sock.setblocking(False)
    return watcher


def handle(watcher: Watcher, body: bytes, text: bool) -> None:
    head = body[:24]
    if (_UPDATE_JSON if text else _UPDATE_MSGPACK) in head:
        watcher.updates += 1
        if watcher.sample:
            update = json.loads(body) if text else msgspec.msgpack.decode(body)
            watcher.arrivals[int(update["ply"])] = time.monotonic()
        return
    message: Any = json.loads(body) if text else msgspec.msgpack.decode(body)
    kind = message.get("type")
    if kind == "match_start":
        watcher.started = True
    elif kind == "match_end":
        watcher.ended = True
    elif kind == "ping":
        pong = encode_message(Pong(message.get("id", 0)))[HEADER.size :]
        watcher.sock.setblocking(True)
        if text:
            watcher.send(json.dumps(msgspec.msgpack.decode(pong)).encode(), text=True)
        else:
            watcher.send(pong)
        watcher.sock.setblocking(False)
    elif kind == "error" and message.get("fatal"):
        watcher.dropped = True


def main() -> None:
    mode, host, port, match, count = sys.argv[1:6]
    watchers = [
        connect(host, int(port), mode, match, index < SAMPLE) for index in range(int(count))
    ]
    by_fd = {w.sock.fileno(): w for w in watchers}
    epoll = select.epoll()
    for fd in by_fd:
        epoll.register(fd, select.EPOLLIN)
    told_ready = False
    open_ = len(watchers)
    while open_:
        for fd, _ in epoll.poll(1.0):
            watcher = by_fd[fd]
            try:
                data = os.read(fd, 1 << 18)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if data:
                watcher.buffer += data
                for body, text in watcher.bodies():
                    handle(watcher, body, text)
            if not data or watcher.ended or watcher.dropped:
                if not watcher.ended:
                    watcher.dropped = True
                epoll.unregister(fd)
                watcher.sock.close()
                open_ -= 1
        if not told_ready and all(w.started or w.dropped for w in watchers):
            print("ready", flush=True)
            told_ready = True
    print(
        json.dumps(
            {
                "updates": [w.updates for w in watchers],
                "dropped": sum(w.dropped for w in watchers),
                "arrivals": [w.arrivals for w in watchers if w.sample],
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
