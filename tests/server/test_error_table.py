"""docs/PROTOCOL.md's error table and the server agree: every row is driven over a real socket."""

from __future__ import annotations

import re
import struct
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import msgspec
import pytest
import trio

from protocol.codec import encode_frame
from protocol.messages import Directing, Error, MatchStart, Paired, PoolStatus, Seeking, Welcome
from server.app import ArenaServer
from server.config import MatchPolicy
from tests.server.harness import RawClient, running_server

PROTOCOL = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"


def documented() -> dict[str, set[bool]]:
    """code -> the fatal flags the table gives it."""
    rows: dict[str, set[bool]] = {}
    section = PROTOCOL.read_text().split("### Error codes", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and (match := re.fullmatch(r"`([a-z_]+)`", cells[2])):
            rows.setdefault(match.group(1), set()).add(cells[3] == "yes")
    return rows


#: every client of a scenario stays open until the test ends (a dropped one leaves its seat)
_OPEN: list[RawClient] = []


async def _client(port: int, name: str = "x", role: str = "player") -> RawClient:
    client = await RawClient.connect(port)
    _OPEN.append(client)
    await client.hello(name, role)
    return client


async def _first_error(client: RawClient) -> Error:
    while True:
        message = await client.receive()
        if isinstance(message, Error):
            return message


async def _raw(port: int, body: bytes, *, hello: bool = True) -> Error:
    client = await RawClient.connect(port) if not hello else await _client(port)
    await client.send_raw(body)
    return await _first_error(client)


async def _sends(port: int, *messages: dict[str, Any], role: str = "player") -> Error:
    """Send `messages` on one connection; the first error it gets."""
    client = await _client(port, role=role)
    for message in messages:
        await client.send(message)
    return await _first_error(client)


async def _hello(port: int, **fields: Any) -> Error:
    client = await RawClient.connect(port)
    await client.send({"type": "hello", "version": 1, "name": "n", **fields})
    return await _first_error(client)


def _frame(message: dict[str, Any]) -> bytes:
    return encode_frame(msgspec.msgpack.encode(message))


DIRECT = {
    "type": "direct",
    "pool": "q",
    "owner": "key-1",
    "players": [{"name": "a", "secret": "s"}, {"name": "b", "secret": "s"}],
}
PAIR = {"type": "pair", "pool": "q", "seats": ["a", "b"], "game": "tictactoe"}


async def _seated(port: int) -> tuple[RawClient, RawClient, MatchStart]:
    a, b = await _client(port, "a"), await _client(port, "b")
    for client in (a, b):
        await client.send({"type": "seek", "game": "tictactoe", "move_time": 30})
    start: MatchStart = await a.expect(MatchStart, skip=(Seeking,))
    await b.expect(MatchStart, skip=(Seeking,))
    return a, b, start


async def bad_frame(port: int, _: ArenaServer) -> Error:
    return await _raw(port, struct.pack(">I", 0))


async def frame_too_large(port: int, _: ArenaServer) -> Error:
    return await _raw(port, struct.pack(">I", 1 << 30))


async def bad_message(port: int, _: ArenaServer) -> Error:
    return await _raw(port, encode_frame(b"\xc1"))


async def unknown_type(port: int, _: ArenaServer) -> Error:
    return await _raw(port, _frame({"type": "fly"}))


async def handshake_required(port: int, _: ArenaServer) -> Error:
    return await _raw(port, _frame({"type": "fly"}), hello=False)


async def handshake_timeout(port: int, _: ArenaServer) -> Error:
    return await _first_error(await RawClient.connect(port))


async def too_many_connections(port: int, _: ArenaServer) -> Error:
    held = [await _client(port, f"h{i}") for i in range(2)]
    assert held
    return await _first_error(await RawClient.connect(port))


async def unsupported_version(port: int, _: ArenaServer) -> Error:
    return await _hello(port, version=2)


async def bad_password(port: int, _: ArenaServer) -> Error:
    await _hello_ok(port, "registered", "the password")
    return await _hello(port, name="registered", password="not the password")


async def _hello_ok(port: int, name: str, password: str) -> None:
    client = await RawClient.connect(port)
    await client.send({"type": "hello", "version": 1, "name": name, "password": password})
    await client.expect(Welcome)


async def name_registered(port: int, _: ArenaServer) -> Error:
    await _hello_ok(port, "registered", "the password")
    return await _hello(port, name="registered")


async def registration_required(port: int, _: ArenaServer) -> Error:
    return await _hello(port, name="newcomer")


async def registration_closed(port: int, _: ArenaServer) -> Error:
    return await _hello(port, name="newcomer", password="long enough")


async def accounts_unavailable(port: int, _: ArenaServer) -> Error:
    return await _hello(port, password="long enough")


async def rate_limited(port: int, _: ArenaServer) -> Error:
    return await _raw(port, b"".join(_frame({"type": "ping"}) for _ in range(200)))


async def bad_request(port: int, _: ArenaServer) -> Error:
    return await _sends(port, {"type": "seek", "game": "chess"})


async def slow_consumer(port: int, _: ArenaServer) -> Error:
    client = await _client(port)
    requests = _frame({"type": "status"}) * 500
    # ask without reading until the server stops reading us (a send blocks), then read
    # at once: the server gives a closing connection FLUSH_TIMEOUT (2 s) to take its
    # last frames, the one saying why among them
    with trio.move_on_after(20):
        try:
            while True:
                with trio.move_on_after(1.0) as blocked:
                    await client.send_raw(requests)
                if blocked.cancelled_caught:
                    break
        except trio.BrokenResourceError:
            pass  # it closed already
    return await _first_error(client)


async def idle_timeout(port: int, _: ArenaServer) -> Error:
    client = await _client(port)
    while True:  # never answer the pings
        message = await client.receive()
        if isinstance(message, Error):
            return message


async def replaced(port: int, _: ArenaServer) -> Error:
    a, _b, start = await _seated(port)
    thief = await _client(port, "a2")
    await thief.send({"type": "rejoin", "token": start.token})
    return await _first_error(a)


async def server_shutdown(port: int, server: ArenaServer) -> Error:
    client = await _client(port)
    server.announce_shutdown()
    return await _first_error(client)


async def store_unavailable(port: int, server: ArenaServer) -> Error:
    server.recorder._pending_results = server.config.max_pending_results  # a full queue
    return await _sends(port, {"type": "seek", "game": "tictactoe"})


async def wrong_role(port: int, _: ArenaServer) -> Error:
    return await _sends(port, {"type": "seek", "game": "tictactoe"}, role="spectator")


async def bad_secret(port: int, _: ArenaServer) -> Error:
    await _sends_ok(port, DIRECT)
    return await _sends(port, {"type": "seek", "game": "tictactoe", "pool": "q", "secret": "?"})


async def _sends_ok(port: int, message: dict[str, Any]) -> RawClient:
    client = await _client(port, "director")
    await client.send(message)
    await client.expect(Directing)
    return client


async def limit_reached(port: int, _: ArenaServer) -> Error:
    return await _sends(port, {**DIRECT, "pool": "p1"}, {**DIRECT, "pool": "p2"})


async def seat_taken(port: int, _: ArenaServer) -> Error:
    join = {"type": "join", "room": "r", "game": "connect4", "seat": 0}
    await (await _client(port, "first")).send(join)
    return await _sends(port, join)


async def room_mismatch(port: int, _: ArenaServer) -> Error:
    first = await _client(port, "first")
    await first.send({"type": "join", "room": "r", "game": "connect4"})
    await first.expect(Seeking)
    return await _sends(port, {"type": "join", "room": "r", "game": "reversi"})


async def bad_token(port: int, _: ArenaServer) -> Error:
    return await _sends(port, {"type": "rejoin", "token": "nope"})


async def unknown_match(port: int, _: ArenaServer) -> Error:
    return await _sends(port, {"type": "spectate", "match": "m9"})


async def not_in_match(port: int, _: ArenaServer) -> Error:
    _a, _b, start = await _seated(port)
    return await _sends(port, {"type": "resign", "match": start.match})


async def not_your_turn(port: int, _: ArenaServer) -> Error:
    a, b, start = await _seated(port)
    waiting = b if start.to_move == start.seat else a
    await waiting.send({"type": "move", "match": start.match, "ply": 0, "move": 0})
    return await _first_error(waiting)


async def not_owner(port: int, _: ArenaServer) -> Error:
    await _sends_ok(port, DIRECT)
    return await _sends(port, {**DIRECT, "owner": "key-2"})


async def director_replaced(port: int, _: ArenaServer) -> Error:
    first = await _sends_ok(port, DIRECT)
    await _sends_ok(port, DIRECT)
    return await _first_error(first)


async def not_director(port: int, _: ArenaServer) -> Error:
    return await _sends(port, PAIR)


async def not_available(port: int, _: ArenaServer) -> Error:
    director = await _sends_ok(port, DIRECT)
    await director.send(PAIR)
    return await _first_error(director)


async def stale_position(port: int, _: ArenaServer) -> Error:
    director = await _sends_ok(port, DIRECT)
    for name in ("a", "b"):
        seeker = await _client(port, name)
        await seeker.send({"type": "seek", "game": "tictactoe", "pool": "q", "secret": "s"})
        await seeker.expect(Seeking)
    while True:
        status: PoolStatus = await director.expect(PoolStatus)
        if sum(status.idle.values()) == 2:
            break
    await director.send({**PAIR, "move_time": 30})
    paired: Paired = await director.expect(Paired, skip=(PoolStatus,))
    await director.send(
        {
            "type": "adjudicate",
            "match": paired.match,
            "ply": 5,
            "winner": 0,
            "termination": "proven",
        }
    )
    return await _first_error(director)


ACCOUNTS = {"bad_password", "name_registered", "registration_required", "registration_closed"}
#: code -> (scenario, server settings)
SCENARIOS: dict[str, tuple[Callable[[int, ArenaServer], Awaitable[Error]], dict[str, Any]]] = {
    "bad_frame": (bad_frame, {}),
    "frame_too_large": (frame_too_large, {}),
    "bad_message": (bad_message, {}),
    "unknown_type": (unknown_type, {}),
    "handshake_required": (handshake_required, {}),
    "handshake_timeout": (handshake_timeout, {"handshake_timeout": 0.2}),
    "too_many_connections": (too_many_connections, {"max_connections_per_address": 2}),
    "unsupported_version": (unsupported_version, {}),
    "bad_password": (bad_password, {}),
    "name_registered": (name_registered, {}),
    "registration_required": (registration_required, {"accounts": "registered"}),
    "registration_closed": (registration_closed, {"registration": False}),
    "accounts_unavailable": (accounts_unavailable, {}),
    "rate_limited": (rate_limited, {"message_burst": 50.0}),
    "bad_request": (bad_request, {}),
    "slow_consumer": (
        slow_consumer,
        {"max_buffered_bytes": 4096, "message_rate": 1e7, "message_burst": 1e7},
    ),
    "idle_timeout": (idle_timeout, {"ping_interval": 0.1, "idle_timeout": 0.3}),
    "replaced": (replaced, {}),
    "server_shutdown": (server_shutdown, {}),
    "store_unavailable": (store_unavailable, {}),
    "wrong_role": (wrong_role, {}),
    "bad_secret": (bad_secret, {}),
    "limit_reached": (limit_reached, {"max_pools_per_connection": 1}),
    "seat_taken": (seat_taken, {}),
    "room_mismatch": (room_mismatch, {}),
    "bad_token": (bad_token, {}),
    "unknown_match": (unknown_match, {}),
    "not_in_match": (not_in_match, {}),
    "not_your_turn": (not_your_turn, {}),
    "not_owner": (not_owner, {}),
    "director_replaced": (director_replaced, {}),
    "not_director": (not_director, {}),
    "not_available": (not_available, {}),
    "stale_position": (stale_position, {}),
}


def test_every_documented_code_has_a_scenario_and_every_scenario_is_documented() -> None:
    assert set(documented()) == set(SCENARIOS)


@pytest.mark.parametrize("code", sorted(SCENARIOS))
async def test_the_server_answers_as_documented(code: str, tmp_path: Path) -> None:
    scenario, settings = SCENARIOS[code]
    db = str(tmp_path / "arena.sqlite") if code in ACCOUNTS else None
    async with running_server(db=db, policy=MatchPolicy(move_time=30.0), **settings) as server:
        assert server.port is not None
        with trio.fail_after(20):
            error = await scenario(server.port, server)
    _OPEN.clear()
    assert error.code == code, error
    assert error.fatal in documented()[code], error
