"""Spectators fanned out (server/fanout.py): one encoding per match, the same bytes for each.

Real server, real TCP sockets: spectators read the raw byte stream the server
writes them, so "the same bytes" is checked byte for byte.
"""

from __future__ import annotations

import random
import socket
from typing import Any

import msgspec
import trio

from protocol.messages import Error, MatchEnd, MatchStart, Turn, Update
from tests.server.harness import RawClient, play_randomly, running_server, start_pair

BIG: dict[str, Any] = {"game": "gomoku", "options": {"width": 19, "height": 19, "k": 5}}


async def watcher(
    port: int, match: str, *, name: str = "watcher", receive_buffer: int | None = None
) -> RawClient:
    client = await RawClient.connect(port, receive_buffer=receive_buffer)
    await client.hello(name, role="spectator")
    await client.send({"type": "spectate", "match": match})
    return client


async def bodies_until_match_end(client: RawClient) -> list[bytes]:
    """The bodies of every frame after the spectator's match_start, through match_end."""
    start = await client.expect(MatchStart)
    assert start.seat is None
    bodies = []
    with trio.fail_after(30):
        while True:
            body = await client.reader.read_frame()
            bodies.append(body)
            if b"match_end" in body[:24]:
                return bodies


async def test_every_spectator_reads_the_same_bytes_in_order() -> None:
    async with running_server() as server:
        assert server.port is not None
        players = [await RawClient.connect(server.port) for _ in range(2)]
        match, by_seat, _ = await start_pair(players, **BIG)
        watchers = [await watcher(server.port, match) for _ in range(5)]
        streams: list[list[bytes]] = []
        async with trio.open_nursery() as nursery:
            for seat, player in by_seat.items():
                nursery.start_soon(play_randomly, player, seat)

            async def read(client: RawClient) -> None:
                streams.append(await bodies_until_match_end(client))

            for client in watchers:
                nursery.start_soon(read, client)
        assert all(stream == streams[0] for stream in streams)  # byte for byte the same
        messages = [msgspec.msgpack.decode(body) for body in streams[0]]
        updates = [m for m in messages if m["type"] == "update"]
        assert [u["ply"] for u in updates] == list(range(1, len(updates) + 1))
        assert messages[-1]["type"] == "match_end" and messages[-1]["ply"] == len(updates)


async def test_a_late_spectator_gets_the_moves_after_its_match_start_once() -> None:
    async with running_server() as server:
        assert server.port is not None
        players = [await RawClient.connect(server.port) for _ in range(2)]
        match, by_seat, _ = await start_pair(players, **BIG)
        early = await watcher(server.port, match)
        await early.expect(MatchStart)
        late: RawClient | None = None
        late_start: MatchStart | None = None
        for ply in range(6):  # six moves by hand, then the late one arrives
            mover = by_seat[ply % 2]
            turn: Turn = await mover.expect(Turn, skip=(Update,))
            await mover.send(
                {"type": "move", "match": match, "ply": ply, "move": turn.legal_moves[ply]}
            )
            if ply == 3:
                late = await watcher(server.port, match)
                late_start = await late.expect(MatchStart)
        assert late is not None and late_start is not None
        await by_seat[0].send({"type": "resign", "match": match})
        seen = []
        while True:
            message = await late.receive()
            if isinstance(message, MatchEnd):
                break
            assert isinstance(message, Update)
            seen.append(message.ply)
        assert seen == list(range(late_start.ply + 1, 7))  # no update twice, none missing
        assert len(late_start.moves) == late_start.ply


async def play_paced(client: RawClient, seed: int) -> None:
    """A random player that moves every 2 ms: a spectator that reads keeps up (it runs
    in this test's event loop, beside the server), one that never reads falls behind."""
    rng = random.Random(seed)
    while True:
        message = await client.receive()
        if isinstance(message, Turn):
            await trio.sleep(0.002)
            move = rng.choice(message.legal_moves)
            await client.send(
                {"type": "move", "match": message.match, "ply": message.ply, "move": move}
            )
        elif isinstance(message, MatchEnd):
            return


async def test_a_spectator_that_does_not_read_is_dropped_and_nobody_else_notices() -> None:
    async with running_server(max_buffered_bytes=64 * 1024) as server:
        assert server.port is not None
        players = [await RawClient.connect(server.port) for _ in range(2)]
        long_game: dict[str, Any] = {
            "game": "gomoku",
            "options": {"width": 26, "height": 26, "k": 6},
        }
        match, by_seat, _ = await start_pair(players, **long_game)
        stuck = await watcher(server.port, match, name="stuck", receive_buffer=4096)
        # small kernel buffers on both ends: a few updates fill them, then the server's queue
        conn = next(c for c in server.open_connections if c.name == "stuck")
        conn.reader.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        reading = await watcher(server.port, match)
        ends: list[list[bytes]] = []
        async with trio.open_nursery() as nursery:
            for seat, player in by_seat.items():
                nursery.start_soon(play_paced, player, seat)

            async def read() -> None:
                ends.append(await bodies_until_match_end(reading))

            nursery.start_soon(read)
        assert ends  # the reading spectator saw the whole match
        assert conn.closed and conn.close_code == "slow_consumer"
        codes = []
        with trio.fail_after(30):
            while True:
                message = await stuck.receive()
                if isinstance(message, Error):
                    codes.append(message.code)
                    break
        assert codes == ["slow_consumer"]
        assert await stuck.closed()
