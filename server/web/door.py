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

Hypercorn's connection handler (`hypercorn.trio.tcp_server.TCPServer`) is
used directly, without its listener loop: the one place this module depends
on hypercorn's internals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import hypercorn.config
import structlog
import trio
from hypercorn.trio.tcp_server import TCPServer
from hypercorn.trio.worker_context import WorkerContext
from hypercorn.typing import ConnectionState
from hypercorn.utils import wrap_app

from server.web.config import origin_allowed
from server.web.stream import MSGPACK_SUBPROTOCOL, SUBPROTOCOLS
from server.web.websocket import RawWebSocketStream, accept_token

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


def parse_head(head: bytes) -> tuple[str, str, dict[bytes, bytes]] | None:
    """(method, target, headers by lower-case name) of an HTTP/1.1 request head, or None."""
    lines = head.split(b"\r\n")
    request = lines[0].split(b" ")
    if len(request) != 3 or request[2] != b"HTTP/1.1":
        return None
    headers: dict[bytes, bytes] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(b":")
        if not colon or not name or name != name.strip():
            return None
        key = name.lower()
        value = value.strip()
        headers[key] = headers[key] + b", " + value if key in headers else value
    try:
        return request[0].decode("ascii"), request[1].decode("ascii"), headers
    except UnicodeDecodeError:
        return None


def _tokens(value: bytes | None) -> list[str]:
    if value is None:
        return []
    return [t.strip().lower() for t in value.decode("latin-1").split(",") if t.strip()]


def is_upgrade(method: str, target: str, headers: dict[bytes, bytes]) -> bool:
    """A WebSocket opening handshake for ``/ws`` (RFC 6455 section 4.2.1)."""
    return (
        method == "GET"
        and target.partition("?")[0] == "/ws"
        and "websocket" in _tokens(headers.get(b"upgrade"))
        and "upgrade" in _tokens(headers.get(b"connection"))
        and headers.get(b"sec-websocket-version") == b"13"
        and bool(headers.get(b"sec-websocket-key"))
        and b"host" in headers
    )


class FrontDoor:
    """Serves the web port: `handle` one accepted connection."""

    def __init__(
        self,
        server: ArenaServer,
        config: WebConfig,
        app: Any,
        hyper: hypercorn.config.Config,
    ) -> None:
        self.server = server
        self.config = config
        self._hyper = hyper
        self._app = wrap_app(app, hyper.wsgi_max_body_size, "asgi")
        self._context = WorkerContext(None)

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
        head, found, rest = read.partition(b"\r\n\r\n")
        parsed = parse_head(head) if found else None
        if parsed is not None and is_upgrade(*parsed):
            await self._websocket(stream, parsed[2], rest)
            return
        # not ours: hypercorn's, as if it had accepted the connection itself
        replay = ReplayStream(stream, read)  # hypercorn types it SSLStream; it takes any stream
        await TCPServer(self._app, self._hyper, self._context, ConnectionState({}), replay)  # type: ignore[arg-type]

    async def _websocket(
        self, stream: trio.SocketStream, headers: dict[bytes, bytes], rest: bytes
    ) -> None:
        scope = {"headers": list(headers.items())}
        try:
            if not origin_allowed(scope, self.config.origins):
                log.info("websocket_refused", origin=headers.get(b"origin", b"").decode("latin-1"))
                await stream.send_all(
                    b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
                )
                await trio.aclose_forcefully(stream)
                return
            offered = [
                p.strip()
                for p in headers.get(b"sec-websocket-protocol", b"").decode("latin-1").split(",")
            ]
            chosen = next((p for p in offered if p in SUBPROTOCOLS), None)
            key = headers[b"sec-websocket-key"].decode("latin-1").strip()
            response = (
                "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Accept: {accept_token(key)}\r\n"
            )
            if chosen is not None:
                response += f"Sec-WebSocket-Protocol: {chosen}\r\n"
            await stream.send_all((response + "\r\n").encode("latin-1"))
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            await trio.aclose_forcefully(stream)
            return
        websocket = RawWebSocketStream(
            stream,
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
