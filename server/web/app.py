"""The web app (Starlette, an ASGI app) and its server (server/web/door.py, hypercorn).

Routes: the pages (one shell, `static/index.html`, for every page path), the
static assets shipped in the package, ``/ws`` (the protocol over a
WebSocket, served by `ArenaServer.handle_connection`; upgrades are taken by
the front door before they reach this app, save one on a kept-alive HTTP
connection, or all of them when hypercorn's internals the front door uses
are missing: server/web/hyper.py), ``/api/...`` (read only, server/web/api.py)
and ``POST /engine`` (start an engine for a human). Everything runs in the
arena server's own Trio process.
"""

from __future__ import annotations

import functools
import logging
from pathlib import Path
from typing import Any

import hypercorn.config
import hypercorn.trio
import msgspec
import structlog
import trio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles

from games import make_game
from server.app import ArenaServer
from server.web.api import Api, json_response
from server.web.config import WebConfig, header, origin_allowed
from server.web.door import FrontDoor, serve_door
from server.web.engines import EngineError, EngineLauncher, EngineRequest
from server.web.hyper import http_connections
from server.web.stream import MSGPACK_SUBPROTOCOL, SUBPROTOCOLS, WebSocketStream

log = structlog.get_logger("arena.web")

STATIC = Path(__file__).parent / "static"
PAGES = (
    "/",
    "/watch/{match}",
    "/replay/{match}",
    "/play",
    "/tournament/{tournament}",
    "/ladders",
    "/ladders/{ladder}",
    "/ladders/{ladder}/bots/{bot:path}",
)
MAX_ENGINE_BODY = 4096


class ProtocolEndpoint:
    """``/ws``: one protocol connection per WebSocket (an ASGI app)."""

    def __init__(self, server: ArenaServer, config: WebConfig) -> None:
        self.server = server
        self.config = config

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        first = await receive()
        if first.get("type") != "websocket.connect":
            return
        if not origin_allowed(scope, self.config.origins):
            log.info("websocket_refused", origin=header(scope, b"origin"))
            await send({"type": "websocket.close", "code": 1008})  # HTTP 403
            return
        offered = scope.get("subprotocols") or []
        chosen = next((p for p in offered if p in SUBPROTOCOLS), None)
        await send({"type": "websocket.accept", "subprotocol": chosen})
        stream = WebSocketStream(
            receive, send, json=chosen != MSGPACK_SUBPROTOCOL, client=scope.get("client")
        )
        peer = f"{stream.client[0]}:{stream.client[1]}" if stream.client else None
        await self.server.handle_connection(stream, peer=peer)


class EngineRequestBody(msgspec.Struct, forbid_unknown_fields=True):
    engine: str
    game: str
    options: dict[str, Any] = msgspec.field(default_factory=dict)
    move_time: float | None = None
    seat: int = 1  # the engine's seat


def create_app(server: ArenaServer, config: WebConfig, engines: EngineLauncher) -> Starlette:
    """The ASGI app for `server` (which must be running when requests arrive)."""
    api = Api(server, config)

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    async def start_engine(request: Request) -> Response:
        if not origin_allowed(request.scope, config.origins):
            return json_response({"error": "cross-origin request refused"}, 403)
        body = await request.body()
        if len(body) > MAX_ENGINE_BODY:
            return json_response({"error": "request too large"}, 413)
        try:
            wanted = msgspec.json.decode(body, type=EngineRequestBody)
        except msgspec.DecodeError as exc:
            return json_response({"error": f"bad engine request: {exc}"}, 400)
        try:
            game = make_game(wanted.game, wanted.options)
        except ValueError as exc:
            return json_response({"error": str(exc)}, 400)
        if not 0 <= wanted.seat < game.num_players:
            return json_response({"error": f"seat must be in 0..{game.num_players - 1}"}, 400)
        move_time = wanted.move_time
        if move_time is not None and not 0 < move_time <= server.config.max_move_time:
            return json_response(
                {"error": f"move_time must be in (0, {server.config.max_move_time:g}]"}, 400
            )
        try:
            room = engines.launch(
                EngineRequest(wanted.engine, game.name, game.options, move_time, wanted.seat)
            )
        except EngineError as exc:
            return json_response({"error": exc.message}, exc.status)
        return json_response({"room": room, "engine": wanted.engine, "seat": wanted.seat}, 202)

    routes: list[Any] = [Route(path, page) for path in PAGES]
    routes += api.routes()
    routes += [
        Route("/engine", start_engine, methods=["POST"]),
        WebSocketRoute("/ws", ProtocolEndpoint(server, config)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return Starlette(routes=routes)


def _tcp_address(server: ArenaServer) -> tuple[str, int]:
    host = server.config.host
    if host in {"", "0.0.0.0", "::"}:
        host = "127.0.0.1"
    assert server.port is not None, "the TCP server is not listening"
    return host, server.port


async def serve_web(
    server: ArenaServer,
    config: WebConfig,
    *,
    task_status: trio.TaskStatus[str] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the web app until cancelled; reports its base URL (``http://host:port``).

    `server` must already be serving (its lobby and TCP port exist).
    """

    def room_waiting(room: str) -> bool:
        return server.lobby is not None and room in server.lobby.rooms

    launcher = EngineLauncher(
        config.engines,
        address=lambda: _tcp_address(server),
        room_waiting=room_waiting,
        limit=config.engine_limit,
        wait=config.engine_wait,
    )
    app = create_app(server, config, launcher)
    hyper = hypercorn.config.Config()
    host = f"[{config.host}]" if ":" in config.host else config.host
    hyper.bind = [f"{host}:{config.port}"]
    hyper.websocket_max_message_size = config.max_message
    hyper.accesslog = None
    hyper.errorlog = logging.getLogger("arena.web.hypercorn")
    hyper.graceful_timeout = 1.0
    http = http_connections(app, hyper)
    async with trio.open_nursery() as nursery:
        await nursery.start(launcher.run)
        if isinstance(http, str):  # hypercorn's internals changed: all of the port is its own
            log.warning("web_door_unavailable", reason=http, websocket="asgi")
            asgi: Any = app  # hypercorn's ASGI types are narrower than Starlette's own
            binds = await nursery.start(functools.partial(hypercorn.trio.serve, asgi, hyper))
            port = int(binds[0].rpartition(":")[2])
        else:
            door = FrontDoor(server, config, http)
            listeners = await nursery.start(serve_door, door, config.host, config.port)
            port = listeners[0].socket.getsockname()[1]
        url = f"http://{host}:{port}"
        log.info("web_listening", url=url, engines=sorted(config.engines))
        task_status.started(url)
