"""The protocol over the WebSocket (server/web/stream.py), over real sockets.

The same messages, validation, limits and error codes as TCP: no privileged path.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import trio
from trio_websocket import ConnectionClosed, ConnectionRejected, open_websocket_url

from server.web.stream import body_to_json, json_to_body
from tests.web.helpers import Client, play_out, running_web, ws_client


def test_json_and_msgpack_bodies_round_trip() -> None:
    body = json_to_body('{"type": "move", "match": "m1", "ply": 0, "move": 4}')
    assert json.loads(body_to_json(body)) == {"type": "move", "match": "m1", "ply": 0, "move": 4}
    with pytest.raises(ValueError, match="malformed JSON"):
        json_to_body("{nope")
    with pytest.raises(ValueError, match="cannot be a protocol value"):
        json_to_body(str(2**70))


async def test_two_browsers_play_a_whole_match_in_json(tmp_path: Path) -> None:
    async with (
        running_web(tmp_path / "arena.sqlite") as running,
        ws_client(running) as alice,
        ws_client(running) as bob,
        ws_client(running) as watcher,
    ):
        welcome = await alice.hello("alice")
        assert welcome["version"] == 1 and welcome["max_frame"] == 65536
        await bob.hello("bob")
        await watcher.hello("watcher", role="spectator")
        for client in (alice, bob):
            await client.send({"type": "seek", "game": "tictactoe", "move_time": 5})
            assert (await client.expect("seeking"))["game"] == "tictactoe"
        starts = [await alice.expect("match_start"), await bob.expect("match_start")]
        assert {s["seat"] for s in starts} == {0, 1} and all(s["token"] for s in starts)
        await watcher.send({"type": "spectate", "match": starts[0]["match"]})
        spectated = await watcher.expect("match_start")
        assert spectated["seat"] is None and spectated["token"] is None
        async with trio.open_nursery() as nursery:
            ends: list[dict[str, object]] = []

            async def play(client: Client, start: dict[str, object]) -> None:
                ends.append(await play_out(client, start))

            nursery.start_soon(play, alice, starts[0])
            nursery.start_soon(play, bob, starts[1])
        seen = []
        while (message := await watcher.receive())["type"] != "match_end":
            assert message["type"] == "update"
            seen.append(message["notation"])
        assert message["termination"] in {"line", "board_full"}
        assert len(seen) == message["ply"] and ends[0]["scores"] == message["scores"]


async def test_msgpack_framing(tmp_path: Path) -> None:
    async with running_web(None) as running, ws_client(running, json_framing=False) as client:
        await client.hello("packed")
        await client.send({"type": "ping", "id": 7})
        assert await client.expect("pong") == {"type": "pong", "id": 7}


async def test_bad_json_is_a_fatal_bad_message(tmp_path: Path) -> None:
    async with running_web(None) as running, ws_client(running) as client:
        await client.ws.send_message("{this is not json")
        error = await client.expect("error")
        assert (error["code"], error["fatal"]) == ("bad_message", True)
        assert "malformed JSON" in error["message"]
        with pytest.raises(ConnectionClosed):
            await client.receive()


async def test_same_validation_and_error_codes_as_tcp(tmp_path: Path) -> None:
    async with running_web(None) as running:
        async with ws_client(running) as client:  # first message must be hello
            await client.send({"type": "seek", "game": "tictactoe"})
            error = await client.expect("error")
            assert (error["code"], error["fatal"]) == ("handshake_required", True)
        async with ws_client(running) as client:  # a wrong field type
            await client.send({"type": "hello", "version": "one", "name": "x"})
            assert (await client.expect("error"))["code"] == "bad_message"
        async with ws_client(running) as client:
            await client.hello("curious")
            await client.send({"type": "launch_missiles"})
            assert (await client.expect("error"))["code"] == "unknown_type"
        async with ws_client(running) as spectator:  # spectators are read-only
            await spectator.hello("eve", role="spectator")
            await spectator.send({"type": "seek", "game": "tictactoe"})
            error = await spectator.expect("error")
            assert (error["code"], error["fatal"]) == ("wrong_role", False)
            await spectator.send({"type": "resign", "match": "m1"})
            assert (await spectator.expect("error"))["code"] == "wrong_role"
        async with ws_client(running) as client:  # a message above max_frame
            await client.hello("big")
            await client.send({"type": "seek", "game": "x" * 70_000})
            error = await client.expect("error")
            assert (error["code"], error["fatal"]) == ("frame_too_large", True)


async def test_foreign_origin_is_refused(tmp_path: Path) -> None:
    async with running_web(None, origins=("http://allowed.example",)) as running:
        with pytest.raises(ConnectionRejected) as rejected:
            async with ws_client(running, origin="http://evil.example"):
                pass
        assert rejected.value.status_code == 403
        same = running.url  # the page's own origin
        async with ws_client(running, origin=same) as client:
            await client.hello("me")
        async with ws_client(running, origin="http://allowed.example") as client:
            await client.hello("friend")


async def test_a_reload_rejoins_the_seat_with_its_token(tmp_path: Path) -> None:
    async with running_web(None) as running, ws_client(running) as bob:
        await bob.hello("bob")
        async with ws_client(running) as alice:
            await alice.hello("alice")
            for client in (alice, bob):
                await client.send({"type": "seek", "game": "connect4", "move_time": 30})
                await client.expect("seeking")
            start = await alice.expect("match_start")
            await bob.expect("match_start")
        # alice's page is gone (a reload): a new WebSocket presents the token
        async with open_websocket_url(running.ws_url, subprotocols=["arena.json"]) as ws:
            again = Client(ws)
            await again.hello("alice")
            await again.send({"type": "rejoin", "token": start["token"]})
            back = await again.expect("match_start")
            assert (back["match"], back["seat"], back["token"]) == (
                start["match"],
                start["seat"],
                start["token"],
            )
            if back["to_move"] == back["seat"]:
                assert (await again.expect("turn"))["ply"] == 0
