"""A scripted protocol client and a server fixture for the server tests."""

from __future__ import annotations

import contextlib
import random
import socket
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import trio
import trio.testing

from protocol.codec import FrameReader, encode_frame, server_message_decoder
from protocol.messages import (
    PROTOCOL_VERSION,
    Hello,
    MatchEnd,
    MatchStart,
    Seeking,
    ServerMessage,
    Turn,
    Welcome,
)
from server.app import ArenaServer
from server.config import MatchPolicy, ServerConfig
from store import SqliteDatabase

RECEIVE_LIMIT = 30.0


class RawClient:
    """Speaks the protocol by hand: send any dict or bytes, receive typed messages."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.reader = FrameReader(stream, 1 << 20)
        self.decoder = server_message_decoder()

    @classmethod
    async def connect(cls, port: int, *, receive_buffer: int | None = None) -> RawClient:
        """Connect to 127.0.0.1:`port`; `receive_buffer` sets the socket's SO_RCVBUF before
        connecting (a small one: little of what the server sends fits in the kernel)."""
        if receive_buffer is None:
            return cls(await trio.open_tcp_stream("127.0.0.1", port))
        sock = trio.socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        await sock.connect(("127.0.0.1", port))
        return cls(trio.SocketStream(sock))

    @classmethod
    def in_memory(cls, server: ArenaServer) -> RawClient:
        """A client connected to `server` through an in-memory stream (virtual-time tests)."""
        client_end, server_end = trio.testing.memory_stream_pair()
        server.start_connection(server_end)
        return cls(client_end)

    async def send(self, message: dict[str, Any] | msgspec.Struct) -> None:
        await self.stream.send_all(encode_frame(msgspec.msgpack.encode(message)))

    async def send_raw(self, data: bytes) -> None:
        await self.stream.send_all(data)

    async def receive(self) -> ServerMessage:
        with trio.fail_after(RECEIVE_LIMIT):
            return self.decoder.decode(await self.reader.read_frame())

    async def expect(self, kind: type[Any], *, skip: tuple[type[Any], ...] = ()) -> Any:
        """The next message, which must be `kind` (messages of types in `skip` are skipped)."""
        while True:
            message = await self.receive()
            if isinstance(message, kind):
                return message
            if not isinstance(message, skip):
                raise AssertionError(f"expected {kind.__name__}, got {message!r}")

    async def hello(self, name: str, role: str = "player") -> Welcome:
        await self.send(Hello(version=PROTOCOL_VERSION, name=name, role=role))  # type: ignore[arg-type]
        welcome: Welcome = await self.expect(Welcome)
        return welcome

    async def closed(self) -> bool:
        """True once the server has closed the connection (EOF)."""
        with trio.fail_after(RECEIVE_LIMIT):
            while True:
                try:
                    data = await self.stream.receive_some(65536)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    return True
                if not data:
                    return True

    async def aclose(self) -> None:
        await self.stream.aclose()


@contextlib.asynccontextmanager
async def _server(
    start: str, db: str | None, policy: MatchPolicy | None, config: dict[str, Any]
) -> AsyncIterator[ArenaServer]:
    store = SqliteDatabase(db) if db else None
    server = ArenaServer(
        ServerConfig(port=0, db=db, policy=policy or MatchPolicy(), **config), store=store
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(getattr(server, start))
        yield server
        nursery.cancel_scope.cancel()
    if store is not None:
        store.close()


def running_server(
    *, db: str | None = None, policy: MatchPolicy | None = None, **config: Any
) -> contextlib.AbstractAsyncContextManager[ArenaServer]:
    """An ArenaServer on 127.0.0.1, port 0, cancelled on exit."""
    return _server("serve", db, policy, config)


def memory_server(
    *, policy: MatchPolicy | None = None, db: str | None = None, **config: Any
) -> contextlib.AbstractAsyncContextManager[ArenaServer]:
    """An ArenaServer without a listener, for in-memory clients on virtual time."""
    return _server("serve_unlistened", db, policy, config)


async def start_pair(
    clients: list[RawClient], game: str = "tictactoe", **seek: Any
) -> tuple[str, dict[int, RawClient], list[MatchStart]]:
    """Hello + seek for each client; returns the match id and the clients by seat."""
    for i, client in enumerate(clients):
        await client.hello(f"p{i}")
        await client.send({"type": "seek", "game": game, **seek})
        await client.expect(Seeking)
    starts = [await c.expect(MatchStart) for c in clients]
    by_seat = {s.seat: c for s, c in zip(starts, clients, strict=True)}
    assert None not in by_seat
    return starts[0].match, by_seat, starts


async def play_randomly(client: RawClient, seed: int) -> MatchEnd:
    """Answer every turn with a random legal move until the match ends."""
    rng = random.Random(seed)
    while True:
        message = await client.receive()
        if isinstance(message, Turn):
            move = rng.choice(message.legal_moves)
            await client.send(
                {"type": "move", "match": message.match, "ply": message.ply, "move": move}
            )
        elif isinstance(message, MatchEnd):
            return message


async def seek_and_play(
    port: int, name: str, seed: int, game: str = "tictactoe"
) -> tuple[MatchStart, MatchEnd]:
    """A random player: connect, seek one match of `game`, play it out, close."""
    client = await RawClient.connect(port)
    await client.hello(name)
    await client.send({"type": "seek", "game": game})
    start: MatchStart = await client.expect(MatchStart, skip=(Seeking,))
    end = await play_randomly(client, seed)
    await client.aclose()
    return start, end
