"""A scripted protocol client and a server fixture for the server tests."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import trio

from protocol.codec import FrameReader, encode_frame, server_message_decoder
from protocol.messages import PROTOCOL_VERSION, Hello, ServerMessage, Welcome
from server.app import ArenaServer
from server.config import MatchPolicy, ServerConfig
from server.store import Store

RECEIVE_LIMIT = 10.0


class RawClient:
    """Speaks the protocol by hand: send any dict or bytes, receive typed messages."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.reader = FrameReader(stream, 1 << 20)
        self.decoder = server_message_decoder()

    @classmethod
    async def connect(cls, port: int) -> RawClient:
        return cls(await trio.open_tcp_stream("127.0.0.1", port))

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
                except trio.BrokenResourceError:
                    return True
                if not data:
                    return True

    async def aclose(self) -> None:
        await self.stream.aclose()


@contextlib.asynccontextmanager
async def running_server(
    *,
    db: str | None = None,
    policy: MatchPolicy | None = None,
    **config: Any,
) -> AsyncIterator[ArenaServer]:
    """An ArenaServer on 127.0.0.1, port 0, cancelled on exit."""
    store = Store(db) if db else None
    server = ArenaServer(
        ServerConfig(port=0, db=db, policy=policy or MatchPolicy(), **config), store=store
    )
    async with trio.open_nursery() as nursery:
        await nursery.start(server.serve)
        yield server
        nursery.cancel_scope.cancel()
    if store is not None:
        store.close()
