"""The web port's front door: WebSocket upgrades to ``/ws`` here, everything else to hypercorn.

Why: the server must hold a protocol WebSocket's socket itself to write a
match's update to every spectator as the same pre-encoded bytes
(server/web/websocket.py); through ASGI each message is a call, a frame and
a write of its own. So each connection to the web port is read up to the end
of its first request head (bounded in size and time):

* ``GET /ws`` with a valid WebSocket upgrade (RFC 6455 section 4.2.1) is
  answered here: the same origin check and subprotocols as the ASGI endpoint
  (server/web/app.py), no extensions, then `ArenaServer.handle_connection`
  on a `RawWebSocketStream`;
* anything else (pages, the JSON API, ``POST /engine``, a malformed or
  oversized head) goes to hypercorn's connection handler with the bytes
  already read put back in front, exactly as if hypercorn had accepted it.
  A later upgrade on a kept-alive HTTP connection is served by the ASGI
  endpoint, as before: same messages and limits, only slower.

The handshake is read and validated by wsproto (`upgrade_request`), as are
the frames after it (server/web/websocket.py). Hypercorn's connection handler
comes from server/web/hyper.py, the one place that depends on hypercorn's
internals; without it the whole port is hypercorn's (server/web/app.py).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

import structlog
import trio
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, RejectConnection, Request
from wsproto.utilities import RemoteProtocolError

from server.web.config import origin_allowed
from server.web.stream import MSGPACK_SUBPROTOCOL, SUBPROTOCOLS
from server.web.websocket import RawWebSocketStream

if TYPE_CHECKING:
    from server.app import ArenaServer
    from server.web.config import WebConfig

log = structlog.get_logger("arena.web")

#: the longest request head read here; a longer one is hypercorn's to refuse
MAX_HEAD = 16 * 1024
#: seconds a new connection has to send its first request head (hypercorn's keep-alive
#: timeout for an idle connection); one that sends nothing at all is closed
HEAD_TIMEOUT = 5.0


class ReplayStream(trio.abc.Stream):
    """A TCP stream with bytes already read put back in front of what comes next."""

    def __init__(self, stream: trio.SocketStream, prefix: bytes) -> None:
        self._stream = stream
        self._prefix = prefix
        self.socket = stream.socket  # hypercorn reads the peer's address from it

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        if self._prefix:
            size = len(self._prefix) if max_bytes is None else max_bytes
            chunk, self._prefix = self._prefix[:size], self._prefix[size:]
            await trio.lowlevel.checkpoint()
            return chunk
        return await self._stream.receive_some(max_bytes)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self._stream.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self._stream.wait_send_all_might_not_block()

    async def send_eof(self) -> None:
        await self._stream.send_eof()

    async def aclose(self) -> None:
        await self._stream.aclose()


def upgrade_request(read: bytes) -> tuple[Request, WSConnection] | None:
    """The WebSocket opening handshake for ``/ws`` in `read`, as wsproto validated it
    (RFC 6455 section 4.2.1), and the wsproto connection to accept it on; else None."""
    protocol = WSConnection(ConnectionType.SERVER)
    try:
        protocol.receive_data(read)
        event = next(protocol.events(), None)
    except (RemoteProtocolError, UnicodeError):  # not a (valid) upgrade: hypercorn answers it
        return None
    if not isinstance(event, Request) or event.target.partition("?")[0] != "/ws":
        return None
    return event, protocol


class FrontDoor:
    """Serves the web port: `handle` one accepted connection."""

    def __init__(
        self,
        server: ArenaServer,
        config: WebConfig,
        http: Callable[[trio.abc.Stream], Awaitable[None]],
    ) -> None:
        """`http` serves a connection's HTTP (hypercorn's handler, server/web/hyper.py)."""
        self.server = server
        self.config = config
        self._serve_http = http

    async def handle(self, stream: trio.SocketStream) -> None:
        """Serve one connection; whatever goes wrong ends that connection only."""
        try:
            await self._handle(stream)
        except Exception as exc:  # contained: an escaping error would stop the web port
            log.error("web_connection_crashed", error=repr(exc), exc_info=True)
            await trio.aclose_forcefully(stream)

    async def _handle(self, stream: trio.SocketStream) -> None:
        read = b""
        with trio.move_on_after(HEAD_TIMEOUT):
            try:
                while b"\r\n\r\n" not in read and len(read) < MAX_HEAD:
                    chunk = await stream.receive_some(MAX_HEAD)
                    if not chunk:
                        break
                    read += chunk
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                await trio.aclose_forcefully(stream)
                return
        if not read:  # silent, or gone
            await trio.aclose_forcefully(stream)
            return
        upgrade = upgrade_request(read)
        if upgrade is not None:
            await self._websocket(stream, *upgrade, read.partition(b"\r\n\r\n")[2])
            return
        # not ours: hypercorn's, as if it had accepted the connection itself
        replay = ReplayStream(stream, read)
        await self._serve_http(replay)

    async def _websocket(
        self, stream: trio.SocketStream, request: Request, protocol: WSConnection, rest: bytes
    ) -> None:
        headers = [*request.extra_headers, (b"host", request.host.encode("idna"))]
        try:
            if not origin_allowed({"headers": headers}, self.config.origins):
                origin = dict(request.extra_headers).get(b"origin", b"")
                log.info("websocket_refused", origin=origin.decode("latin-1"))
                refusal = RejectConnection(status_code=403, headers=[(b"connection", b"close")])
                await stream.send_all(protocol.send(refusal))
                await trio.aclose_forcefully(stream)
                return
            chosen = next((p for p in request.subprotocols if p in SUBPROTOCOLS), None)
            # no extensions: the frames must be the same bytes for every client
            await stream.send_all(protocol.send(AcceptConnection(subprotocol=chosen)))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await trio.aclose_forcefully(stream)
            return
        assert protocol.connection is not None  # accepted
        websocket = RawWebSocketStream(
            stream,
            protocol.connection,
            json=chosen != MSGPACK_SUBPROTOCOL,
            max_message=self.config.max_message,
            buffered=rest,
        )
        try:
            host, port = stream.socket.getpeername()[:2]
        except OSError:  # gone already
            await trio.aclose_forcefully(stream)
            return
        await self.server.handle_connection(websocket, peer=f"{host}:{port}")


async def serve_door(
    door: FrontDoor,
    host: str,
    port: int,
    *,
    task_status: trio.TaskStatus[list[trio.SocketListener]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Listen on (host, port) and let `door` handle every connection, until cancelled."""
    listeners = await trio.open_tcp_listeners(port, host=host or None)
    async with trio.open_nursery() as nursery:
        task_status.started(listeners)
        await trio.serve_listeners(door.handle, listeners, handler_nursery=nursery)
