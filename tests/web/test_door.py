"""The web port without hypercorn's internals: all of it served by hypercorn's public `serve`.

The front door (server/web/door.py) lends connections to hypercorn's
internal connection handler (server/web/hyper.py). A hypercorn release that
moved or changed it must not break the web port: the server logs one warning
and serves pages, the API and the WebSocket (its ASGI endpoint) through
hypercorn alone.
"""

from __future__ import annotations

import sys

import hypercorn.trio.tcp_server
import pytest
import structlog
from trio_websocket import ConnectionRejected

from tests.web.helpers import get, running_web, ws_client


class ChangedTCPServer:
    """A later hypercorn's handler, with parameters the front door does not know."""

    def __init__(self, app: object, config: object, context: object, stream: object) -> None:
        raise AssertionError("must not be called")


@pytest.mark.parametrize("change", ["module gone", "signature changed"])
async def test_without_hypercorns_internals_the_port_is_hypercorns(
    change: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if change == "module gone":  # importing it fails, as after a rename
        monkeypatch.setitem(sys.modules, "hypercorn.trio.tcp_server", None)
    else:
        monkeypatch.setattr(hypercorn.trio.tcp_server, "TCPServer", ChangedTCPServer)
    with structlog.testing.capture_logs() as logs:
        async with running_web(None) as running:
            warnings = [log for log in logs if log["log_level"] == "warning"]
            assert [log["event"] for log in warnings] == ["web_door_unavailable"]
            assert "TCPServer" in warnings[0]["reason"] or "tcp_server" in warnings[0]["reason"]
            status, live = await get(running.url + "/api/live")
            assert status == 200 and "matches" in live
            async with ws_client(running) as client:  # the ASGI endpoint
                await client.hello("ann")
                await client.send({"type": "ping", "id": 7})
                assert await client.expect("pong") == {"type": "pong", "id": 7}
            with pytest.raises(ConnectionRejected):  # its origin check, as the door's
                async with ws_client(running, origin="http://evil.example"):
                    pass
