"""Spectators on one node watch the matches of another (several servers, one database).

Real processes on a real PostgreSQL: a match is played on node B while
spectators connected to node A watch it, by id (found in the database, or in
A's view of the arena) and with ``spectate "*"``; what they are shown must be
the stored record, move for move, and its result. A match whose node dies is
ended for them by the stored abort.
"""

from __future__ import annotations

import json
import random
import signal
import time
from collections.abc import Sequence
from pathlib import Path

import msgspec
import trio
from trio_websocket import open_websocket_url

from games import make_game
from protocol.messages import (
    Error,
    MatchEnd,
    MatchStart,
    Ping,
    Seeking,
    ServerMessage,
    Turn,
    Update,
)
from store.matches import MatchRecord, MoveRecord
from store.open import open_database
from tests.server.harness import RawClient
from tests.server.serverproc import ServerProcess, start_server

LEASE = "2"  # seconds: ARENA_NODE_LEASE


def node(url: str, tmp_path: Path, name: str, *extra: str) -> ServerProcess:
    return start_server(
        url,
        log=tmp_path / f"{name}.log",
        cwd=tmp_path,
        env={"ARENA_NODE_LEASE": LEASE},
        extra=list(extra),
    )


def web_url(server: ServerProcess) -> str:
    """The web app's address, from the node's log (it starts listening with the server)."""
    assert server.log is not None
    for _ in range(100):
        for line in server.log.read_text(errors="replace").splitlines():
            if '"web_listening"' in line:
                return str(json.loads(line)["url"])
        time.sleep(0.05)
    raise AssertionError("the web app did not start")


async def watch_on_the_web(url: str, match_id: str, seen: list[ServerMessage]) -> None:
    """What the watch page does (server/web/static/live.js): spectate over the WebSocket,
    JSON framing, until the match_end."""
    ws_url = url.replace("http://", "ws://") + "/ws"
    async with open_websocket_url(ws_url, subprotocols=["arena.json"]) as ws:
        await ws.send_message(
            json.dumps({"type": "hello", "version": 1, "name": "web", "role": "spectator"})
        )
        await ws.send_message(json.dumps({"type": "spectate", "match": match_id}))
        while True:
            with trio.fail_after(30):
                message = _json_messages.decode(await ws.get_message())
            if isinstance(message, Ping):
                await ws.send_message(json.dumps({"type": "pong", "id": message.id}))
            elif getattr(message, "match", None) == match_id:
                seen.append(message)
                if isinstance(message, MatchEnd | Error):
                    return


_json_messages = msgspec.json.Decoder(ServerMessage)


def stop(*servers: ServerProcess) -> None:
    for server in servers:
        if server.alive():
            server.process.kill()
            server.process.wait()


async def seated(port: int, tag: str) -> tuple[str, list[RawClient]]:
    """Two players seated in a match on the node at `port` (nobody has moved): connect 5
    on 9x8, a long game (with the seeds below, random players play 35 moves)."""
    clients = []
    for side in "xy":
        client = await RawClient.connect(port)
        await client.hello(f"{side}-{tag}")
        options = {"width": 9, "height": 8, "k": 5}
        await client.send(
            {"type": "seek", "game": "connect4", "options": options, "move_time": 30.0}
        )
        clients.append(client)
    starts = [await client.expect(MatchStart, skip=(Seeking,)) for client in clients]
    return starts[0].match, clients


async def play(client: RawClient, seed: int, pause: float, ends: list[MatchEnd]) -> None:
    """Answer every turn with a random legal move after `pause` seconds, to the match's end."""
    rng = random.Random(seed)
    while True:
        message = await client.receive()
        if isinstance(message, Turn):
            await trio.sleep(pause)
            move = rng.choice(message.legal_moves)
            await client.send(
                {"type": "move", "match": message.match, "ply": message.ply, "move": move}
            )
        elif isinstance(message, MatchEnd):
            ends.append(message)
            return


async def spectator(port: int, name: str) -> RawClient:
    client = await RawClient.connect(port)
    await client.hello(name, role="spectator")
    return client


async def watch(
    client: RawClient, match_id: str, seen: list[ServerMessage], at: list[float] | None = None
) -> None:
    """Keep what the spectator is told of `match_id` until its match_end (and when, in `at`)."""
    while True:
        message = await client.receive()
        if isinstance(message, Ping):
            await client.send({"type": "pong", "id": message.id})
            continue
        if getattr(message, "match", None) != match_id:
            continue
        seen.append(message)
        if at is not None:
            at.append(time.time())
        if isinstance(message, MatchEnd | Error):
            return


def stored(url: str, match_id: str) -> tuple[MatchRecord, list[MoveRecord]]:
    database = open_database(url)
    try:
        record = database.get_match(match_id)
        assert record is not None
        return record, database.get_moves(match_id)
    finally:
        database.close()


def check_feed(seen: Sequence[ServerMessage], record: MatchRecord, moves: list[MoveRecord]) -> int:
    """The feed is a spectator's match_start, an update per move in order and the match_end,
    all equal to the stored record; returns the ply it joined at."""
    assert seen and isinstance(seen[0], MatchStart), seen[:1]
    start = seen[0]
    assert start.seat is None and start.token is None and start.players == record.players
    assert isinstance(seen[-1], MatchEnd), seen[-1]
    updates = seen[1:-1]
    assert all(isinstance(update, Update) for update in updates), updates
    game = make_game(record.game, record.options)
    state = game.initial_state()
    for wire in start.moves:
        state = game.play(state, game.decode_move(wire))
    assert start.ply == len(start.moves) and start.state == game.encode_state(state)
    assert start.notations == [move.notation for move in moves[: start.ply]]
    for ply, update in enumerate(updates, start.ply + 1):
        assert isinstance(update, Update)
        stored_move = moves[ply - 1]
        assert (update.ply, update.seat, update.move) == (ply, stored_move.seat, stored_move.move)
        assert update.notation == stored_move.notation
        state = game.play(state, game.decode_move(update.move))
        assert update.state == game.encode_state(state)
    assert start.moves + [u.move for u in updates if isinstance(u, Update)] == [
        move.move for move in moves
    ]
    end = seen[-1]
    assert (end.ply, end.scores, end.winner) == (len(moves), record.scores, record.winner)
    assert (end.termination, end.reason, end.recorded) == (record.termination, record.reason, True)
    return start.ply


async def test_spectators_on_one_node_watch_a_match_of_another_to_its_end(
    tmp_path: Path, postgres_url: str
) -> None:
    a, b = (
        node(postgres_url, tmp_path, "a", "--web", "127.0.0.1:0"),
        node(postgres_url, tmp_path, "b"),
    )
    try:
        follower = await spectator(a.port, "follower")
        await follower.send({"type": "spectate", "match": "*"})
        match_id, players = await seated(b.port, "b")
        # at once, before A's view of the arena has it: found in the database
        early = await spectator(a.port, "early")
        await early.send({"type": "spectate", "match": match_id})
        first = await early.expect(MatchStart, skip=(Ping,))
        feeds: dict[str, list[ServerMessage]] = {"early": [first], "late": [], "follower": []}
        feeds["web"] = []
        ends: list[MatchEnd] = []
        async with trio.open_nursery() as nursery:
            arrivals: list[float] = [time.time()]
            nursery.start_soon(watch, early, match_id, feeds["early"], arrivals)
            nursery.start_soon(watch, follower, match_id, feeds["follower"])
            for seed, player in enumerate(players):
                nursery.start_soon(play, player, seed, 0.12, ends)
            await trio.sleep(2.5)  # moves written (a second apart) and read: A mirrors them
            late = await spectator(a.port, "late")
            await late.send({"type": "spectate", "match": match_id})
            nursery.start_soon(watch, late, match_id, feeds["late"])
            nursery.start_soon(watch_on_the_web, web_url(a), match_id, feeds["web"])
        record, moves = await trio.to_thread.run_sync(stored, postgres_url, match_id)
        assert record.status == "finished" and len(moves) == record.plies > 20
        joined = {name: check_feed(feed, record, moves) for name, feed in feeds.items()}
        assert joined["early"] == 0 and joined["late"] > 0 and joined["web"] > 0, joined
        # each move reached A's spectator from the database: written within a second by B,
        # read within half a second by A
        behind = sorted(when - move.at for when, move in zip(arrivals[1:], moves, strict=False))
        print(f"behind: median {behind[len(behind) // 2]:.2f}s, max {behind[-1]:.2f}s")
        assert 0 < behind[len(behind) // 2] < 2.0 and behind[-1] < 5.0, behind
        assert ends[0].scores == record.scores and ends[0].termination == record.termination
        for client in (follower, early, late, *players):
            await client.aclose()
    finally:
        stop(a, b)


async def test_a_remote_match_whose_node_dies_ends_aborted_for_its_spectators(
    tmp_path: Path, postgres_url: str
) -> None:
    a, b = node(postgres_url, tmp_path, "a"), node(postgres_url, tmp_path, "b")
    try:
        match_id, players = await seated(b.port, "b")
        watcher = await spectator(a.port, "watcher")
        await watcher.send({"type": "spectate", "match": match_id})
        start = await watcher.expect(MatchStart, skip=(Ping,))
        assert start.match == match_id and start.ply == 0
        unknown = await spectator(a.port, "unknown")
        await unknown.send({"type": "spectate", "match": "m-nothing-here"})
        refused = await unknown.expect(Error, skip=(Ping,))
        assert refused.code == "unknown_match" and not refused.fatal
        b.process.send_signal(signal.SIGKILL)
        b.process.wait()
        # B's lease (2 s) runs out; A reaps it and tells the spectator from the record
        with trio.fail_after(15):
            end = await watcher.expect(MatchEnd, skip=(Ping,))
        assert end.match == match_id and end.termination == "aborted" and end.recorded
        assert end.winner is None and "stopped answering" in end.reason
        for client in (watcher, unknown, *players):
            await client.aclose()
    finally:
        stop(a, b)
