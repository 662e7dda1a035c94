"""Test helpers for the web app: an in-process server, a WebSocket client, HTTP GETs."""

from __future__ import annotations

import contextlib
import json
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import trio
from trio_websocket import WebSocketConnection, open_websocket_url

from server.app import ArenaServer
from server.config import MatchPolicy, ServerConfig
from server.web import WebConfig, serve_web
from store.open import open_database


@dataclass
class Running:
    server: ArenaServer
    url: str  # http://127.0.0.1:PORT

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"


@contextlib.asynccontextmanager
async def running_web(
    db: Path | None, *, move_time: float = 1.0, **web: Any
) -> AsyncIterator[Running]:
    """An arena server with its web app, both on free ports, in this Trio run."""
    store = None if db is None else open_database(str(db), check=True, make_directory=True)
    config = ServerConfig(port=0, db=None if db is None else str(db), policy=MatchPolicy(move_time))
    server = ArenaServer(config, store=store)
    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.serve)
            url = await nursery.start(serve_web, server, WebConfig(port=0, **web))
            yield Running(server, url)
            nursery.cancel_scope.cancel()
    finally:
        if store is not None:
            store.close()


class Client:
    """One protocol connection over the WebSocket (JSON or msgpack framing)."""

    def __init__(self, ws: WebSocketConnection, *, json_framing: bool = True) -> None:
        self.ws = ws
        self.json = json_framing

    async def send(self, message: dict[str, Any]) -> None:
        if self.json:
            await self.ws.send_message(json.dumps(message))
        else:
            await self.ws.send_message(msgspec.msgpack.encode(message))

    async def receive(self) -> dict[str, Any]:
        """The next message that is not a ping (pings are answered)."""
        while True:
            with trio.fail_after(10):
                data = await self.ws.get_message()
            if self.json:
                assert isinstance(data, str), f"expected a text message, got {data!r}"
                message = json.loads(data)
            else:
                assert isinstance(data, bytes), f"expected a binary message, got {data!r}"
                message = msgspec.msgpack.decode(data)
            if message["type"] == "ping":
                await self.send({"type": "pong", "id": message["id"]})
                continue
            return dict(message)

    async def expect(self, kind: str) -> dict[str, Any]:
        message = await self.receive()
        assert message["type"] == kind, f"expected {kind!r}, got {message!r}"
        return message

    async def hello(self, name: str, role: str = "player") -> dict[str, Any]:
        await self.send({"type": "hello", "version": 1, "name": name, "role": role})
        return await self.expect("welcome")


@contextlib.asynccontextmanager
async def ws_client(
    running: Running, *, json_framing: bool = True, origin: str | None = None
) -> AsyncIterator[Client]:
    protocol = "arena.json" if json_framing else "arena.msgpack"
    headers = [] if origin is None else [(b"Origin", origin.encode())]
    async with open_websocket_url(
        running.ws_url, subprotocols=[protocol], extra_headers=headers
    ) as ws:
        yield Client(ws, json_framing=json_framing)


async def play_out(
    client: Client, start: dict[str, Any], info: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Play the first legal move at every turn until `match_end`; returns it.

    `info` (move info: eval, depth, visits, pv) is sent with every move.
    """
    while True:
        message = await client.receive()
        if message["type"] == "turn":
            await client.send(
                {
                    "type": "move",
                    "match": message["match"],
                    "ply": message["ply"],
                    "move": message["legal_moves"][0],
                    **(info or {}),
                }
            )
        elif message["type"] == "match_end":
            assert message["match"] == start["match"]
            return message


def http_get(url: str) -> tuple[int, Any]:
    """GET `url` (blocking; call it in a thread): the status and the decoded JSON body."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def http_post(url: str, body: dict[str, Any], origin: str | None = None) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json"}
    if origin is not None:
        headers["Origin"] = origin
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def get(url: str) -> tuple[int, Any]:
    return await trio.to_thread.run_sync(http_get, url)


async def post(url: str, body: dict[str, Any], origin: str | None = None) -> tuple[int, Any]:
    return await trio.to_thread.run_sync(http_post, url, body, origin)
