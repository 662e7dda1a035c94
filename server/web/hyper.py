"""Hypercorn's per-connection HTTP handler, used without hypercorn's listener loop.

Why: the web port's front door (server/web/door.py) reads a connection's
first request head itself and hands every connection that is not a
``GET /ws`` upgrade to hypercorn as if hypercorn had accepted it. Hypercorn
has no public API for that, so this module uses its internals
(`hypercorn.trio.tcp_server.TCPServer`, `WorkerContext`, `ConnectionState`,
`hypercorn.utils.wrap_app`), checked for the shape they have in the tested
releases (0.17, 0.18) when the web port starts: `http_connections` returns
None with the reason when they are missing or changed, and the web port is
then served by hypercorn's public `serve` alone (server/web/app.py: the ASGI
WebSocket endpoint, slower, one warning logged), never half-working.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import hypercorn.config
import trio

#: the parameters `TCPServer` takes in the releases this was tested with
TCP_SERVER_PARAMETERS = ["app", "config", "context", "state", "stream"]


class HttpConnections:
    """Serves one accepted connection's HTTP with hypercorn (`await handler(stream)`)."""

    def __init__(self, app: Any, hyper: hypercorn.config.Config) -> None:
        """Raises ImportError, AttributeError or TypeError if hypercorn's internals changed."""
        tcp_server = importlib.import_module("hypercorn.trio.tcp_server").TCPServer
        worker_context = importlib.import_module("hypercorn.trio.worker_context").WorkerContext
        connection_state = importlib.import_module("hypercorn.typing").ConnectionState
        wrap_app = importlib.import_module("hypercorn.utils").wrap_app
        parameters = list(inspect.signature(tcp_server).parameters)
        if parameters != TCP_SERVER_PARAMETERS:
            raise TypeError(f"hypercorn's TCPServer takes {parameters}")
        if not inspect.iscoroutinefunction(getattr(tcp_server, "run", None)):
            raise TypeError("hypercorn's TCPServer has no run()")
        self._tcp_server = tcp_server
        self._state = connection_state
        self._app = wrap_app(app, hyper.wsgi_max_body_size, "asgi")
        self._hyper = hyper
        self._context = worker_context(None)

    async def __call__(self, stream: trio.abc.Stream) -> None:
        # hypercorn types the stream as an SSLStream; it takes any stream
        server = self._tcp_server(self._app, self._hyper, self._context, self._state({}), stream)
        await server.run()


def http_connections(app: Any, hyper: hypercorn.config.Config) -> HttpConnections | str:
    """Hypercorn's connection handler for `app`, or why this hypercorn has none to lend."""
    try:
        return HttpConnections(app, hyper)
    except (ImportError, AttributeError, TypeError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
