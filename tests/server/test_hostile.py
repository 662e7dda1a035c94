"""Hostile and broken clients: each gets the documented error, nobody else suffers."""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
import trio

from protocol.messages import Error, Illegal, MatchEnd, MatchStart, Turn, Update, Welcome
from server.config import MatchPolicy
from store import SqliteDatabase
from tests.server.harness import RawClient, memory_server, running_server, start_pair


async def expect_fatal(client: RawClient, code: str) -> Error:
    error: Error = await client.expect(Error)
    assert error.code == code, error
    assert error.fatal
    assert await client.closed()
    return error


@pytest.mark.parametrize(
    ("payload", "code"),
    [
        (struct.pack(">I", 5) + b"\xc1\xc1\xc1\xc1\xc1", "bad_message"),  # invalid msgpack
        (struct.pack(">I", 0xFFFFFFFF), "frame_too_large"),  # oversize length
        (struct.pack(">I", 0), "bad_frame"),  # empty frame
        (struct.pack(">I", 3) + b"\x93\x01\x02", "bad_message"),  # not a map ([1, 2] truncated)
    ],
)
async def test_garbage_gets_an_error_and_the_server_keeps_serving(
    payload: bytes, code: str
) -> None:
    async with running_server() as server:
        assert server.port is not None
        bad = await RawClient.connect(server.port)
        await bad.send_raw(payload)
        await expect_fatal(bad, code)
        # the server still serves others
        good = await RawClient.connect(server.port)
        assert isinstance(await good.hello("after"), Welcome)


async def test_garbage_after_handshake() -> None:
    async with running_server() as server:
        assert server.port is not None
        client = await RawClient.connect(server.port)
        await client.hello("x")
        await client.send_raw(b"GET / HTTP/1.1\r\n\r\n")  # 'GET ' = a 1.2 GB length
        await expect_fatal(client, "frame_too_large")


@pytest.mark.parametrize(
    ("message", "code"),
    [
        ({"type": "hello", "version": "1", "name": "x"}, "bad_message"),  # wrong-typed field
        ({"type": "hello", "name": "x"}, "bad_message"),  # missing field
        ({"type": "hello", "version": 1, "name": "x" * 1000}, "bad_message"),  # too long
        ({"type": "launch_missiles"}, "handshake_required"),  # PROTOCOL.md: not a hello
        ({"kind": "hello"}, "bad_message"),  # no type key
        ({"type": "seek", "game": "tictactoe"}, "handshake_required"),
        ({"type": "hello", "version": 99, "name": "x"}, "unsupported_version"),
    ],
)
async def test_bad_first_messages(message: dict[str, object], code: str) -> None:
    async with running_server() as server:
        assert server.port is not None
        client = await RawClient.connect(server.port)
        await client.send(message)
        await expect_fatal(client, code)


async def test_handshake_timeout(autojump_clock: trio.testing.MockClock) -> None:
    async with memory_server(handshake_timeout=5.0) as server:
        client = RawClient.in_memory(server)
        start = trio.current_time()
        await expect_fatal(client, "handshake_timeout")
        assert trio.current_time() - start == pytest.approx(5.0)


async def test_wrong_typed_move_field_closes_only_that_connection(tmp_path: Path) -> None:
    db = str(tmp_path / "a.sqlite")
    async with running_server(db=db, policy=MatchPolicy(reconnect_grace=0.5)) as server:
        assert server.port is not None
        a, b = await RawClient.connect(server.port), await RawClient.connect(server.port)
        match, seats, _ = await start_pair([a, b])
        turn = await seats[0].expect(Turn)
        await seats[0].send({"type": "move", "match": match, "ply": "zero", "move": 4})
        await expect_fatal(seats[0], "bad_message")
        end: MatchEnd = await seats[1].expect(MatchEnd, skip=(Update,))
        assert end.termination == "protocol_error" and end.winner == 1
        assert turn.ply == 0
    record = SqliteDatabase(db).get_match(match)
    assert record is not None and record.status == "finished" and record.winner == 1


async def test_out_of_turn_and_foreign_match_moves_are_refused() -> None:
    async with running_server() as server:
        assert server.port is not None
        clients = [await RawClient.connect(server.port) for _ in range(4)]
        match1, seats1, _ = await start_pair(clients[:2])
        match2, seats2, _ = await start_pair(clients[2:])
        await seats1[0].expect(Turn)
        # O moves when it is X's turn
        await seats1[1].send({"type": "move", "match": match1, "ply": 0, "move": 4})
        error = await seats1[1].expect(Error)
        assert error.code == "not_your_turn" and not error.fatal
        # X of match 1 tries to move in match 2
        await seats1[0].send({"type": "move", "match": match2, "ply": 0, "move": 4})
        error = await seats1[0].expect(Error)
        assert error.code == "not_in_match"
        await seats1[0].send({"type": "move", "match": "nope", "ply": 0, "move": 4})
        assert (await seats1[0].expect(Error)).code == "unknown_match"
        # a stale ply from the right seat
        await seats1[0].send({"type": "move", "match": match1, "ply": 3, "move": 4})
        assert (await seats1[0].expect(Error)).code == "not_your_turn"
        # the match goes on normally
        await seats1[0].send({"type": "move", "match": match1, "ply": 0, "move": 4})
        update = await seats1[1].expect(Update)
        assert update.ply == 1 and update.move == 4 and update.notation == "b2"
        turn = await seats1[1].expect(Turn)
        assert turn.ply == 1 and 4 not in turn.legal_moves
        # and match 2 was not disturbed
        turn2 = await seats2[0].expect(Turn)
        assert turn2.ply == 0


async def test_illegal_move_forfeits_by_default() -> None:
    async with running_server() as server:
        assert server.port is not None
        a, b = await RawClient.connect(server.port), await RawClient.connect(server.port)
        match, seats, _ = await start_pair([a, b])
        await seats[0].expect(Turn)
        await seats[0].send({"type": "move", "match": match, "ply": 0, "move": 4})
        await seats[1].expect(Turn, skip=(Update,))
        await seats[1].send({"type": "move", "match": match, "ply": 1, "move": 4})  # occupied
        illegal: Illegal = await seats[1].expect(Illegal, skip=(Update,))
        assert illegal.kind == "illegal" and illegal.retries_left == 0 and "b2" in illegal.reason
        end: MatchEnd = await seats[1].expect(MatchEnd)
        assert end.termination == "illegal_move" and end.winner == 0 and end.scores == [1.0, 0.0]
        assert (await seats[0].expect(MatchEnd, skip=(Update,))).winner == 0


async def test_illegal_move_retries_policy_and_invalid_moves() -> None:
    async with running_server(policy=MatchPolicy(illegal_retries=1)) as server:
        assert server.port is not None
        a, b = await RawClient.connect(server.port), await RawClient.connect(server.port)
        match, seats, _ = await start_pair([a, b])
        await seats[0].expect(Turn)
        await seats[0].send({"type": "move", "match": match, "ply": 0, "move": "b2"})
        illegal: Illegal = await seats[0].expect(Illegal)
        assert illegal.kind == "invalid" and illegal.retries_left == 1
        turn = await seats[0].expect(Turn)
        assert turn.ply == 0 and turn.time_left <= 1.0
        await seats[0].send({"type": "move", "match": match, "ply": 0, "move": 99})
        illegal = await seats[0].expect(Illegal)
        assert illegal.kind == "invalid" and illegal.retries_left == 0
        end: MatchEnd = await seats[0].expect(MatchEnd)
        assert end.termination == "illegal_move" and end.winner == 1


async def test_stalled_move_times_out(autojump_clock: trio.testing.MockClock) -> None:
    policy = MatchPolicy(move_time=1.0, lag_margin=0.2)
    async with memory_server(policy=policy) as server:
        a, b = RawClient.in_memory(server), RawClient.in_memory(server)
        match, seats, _ = await start_pair([a, b])
        turn = await seats[0].expect(Turn)
        assert turn.time_left == 1.0
        start = trio.current_time()
        end: MatchEnd = await seats[1].expect(MatchEnd)
        assert trio.current_time() - start == pytest.approx(1.2)
        assert end.termination == "timeout" and end.winner == 1 and end.match == match


async def test_move_within_lag_margin_is_accepted(autojump_clock: trio.testing.MockClock) -> None:
    async with memory_server(policy=MatchPolicy(move_time=1.0, lag_margin=0.2)) as server:
        a, b = RawClient.in_memory(server), RawClient.in_memory(server)
        match, seats, _ = await start_pair([a, b])
        await seats[0].expect(Turn)
        await trio.sleep(1.15)
        await seats[0].send({"type": "move", "match": match, "ply": 0, "move": 0})
        update: Update = await seats[1].expect(Update)
        assert update.think_time == pytest.approx(1.15)


async def test_disconnect_forfeits_after_grace(autojump_clock: trio.testing.MockClock) -> None:
    async with memory_server(policy=MatchPolicy(reconnect_grace=10.0)) as server:
        a, b = RawClient.in_memory(server), RawClient.in_memory(server)
        _match, seats, _ = await start_pair([a, b])
        await seats[0].expect(Turn)
        start = trio.current_time()
        await seats[0].aclose()
        end: MatchEnd = await seats[1].expect(MatchEnd)
        assert end.termination == "disconnect" and end.winner == 1
        assert trio.current_time() - start == pytest.approx(10.0)


async def test_reconnect_with_token_resumes(autojump_clock: trio.testing.MockClock) -> None:
    policy = MatchPolicy(move_time=5.0, reconnect_grace=10.0)
    async with memory_server(policy=policy) as server:
        a, b = RawClient.in_memory(server), RawClient.in_memory(server)
        match, seats, starts = await start_pair([a, b])
        token = next(s.token for s in starts if s.seat == 0)
        assert token is not None
        await seats[0].expect(Turn)
        await trio.sleep(2.0)  # think 2 s, then drop
        await seats[0].aclose()
        await trio.sleep(3.0)  # away 3 s: the clock is paused
        back = RawClient.in_memory(server)
        await back.hello("p0-again")
        await back.send({"type": "rejoin", "token": token})
        start: MatchStart = await back.expect(MatchStart)
        assert start.match == match and start.seat == 0 and start.ply == 0
        turn: Turn = await back.expect(Turn)
        assert turn.time_left == pytest.approx(3.0)
        await back.send({"type": "move", "match": match, "ply": 0, "move": 4})
        update: Update = await seats[1].expect(Update)
        assert update.move == 4
        # a bad token is refused without closing the connection
        await back.send({"type": "rejoin", "token": "forged"})
        assert (await back.expect(Error, skip=(Update,))).code == "bad_token"


async def test_second_connection_with_token_replaces_the_first() -> None:
    async with running_server() as server:
        assert server.port is not None
        a, b = await RawClient.connect(server.port), await RawClient.connect(server.port)
        match, seats, starts = await start_pair([a, b])
        token = next(s.token for s in starts if s.seat == 0)
        await seats[0].expect(Turn)
        thief = await RawClient.connect(server.port)
        await thief.hello("p0-laptop")
        await thief.send({"type": "rejoin", "token": token})
        await expect_fatal(seats[0], "replaced")
        assert (await thief.expect(MatchStart)).seat == 0
        turn: Turn = await thief.expect(Turn)
        await thief.send({"type": "move", "match": match, "ply": turn.ply, "move": 0})
        assert (await seats[1].expect(Update)).move == 0


async def test_resign_and_spectator_sees_every_move() -> None:
    async with running_server() as server:
        assert server.port is not None
        a, b = await RawClient.connect(server.port), await RawClient.connect(server.port)
        match, seats, _ = await start_pair([a, b])
        watcher = await RawClient.connect(server.port)
        await watcher.hello("watcher", role="spectator")
        await watcher.send({"type": "seek", "game": "tictactoe"})
        assert (await watcher.expect(Error)).code == "wrong_role"
        await watcher.send({"type": "spectate", "match": match})
        start: MatchStart = await watcher.expect(MatchStart)
        assert start.seat is None and start.token is None
        for ply, cell in enumerate([4, 0, 8]):
            mover = seats[ply % 2]
            await mover.expect(Turn, skip=(Update,))
            await mover.send({"type": "move", "match": match, "ply": ply, "move": cell})
        await seats[1].send({"type": "resign", "match": match})
        seen = []
        while True:
            message = await watcher.receive()
            if isinstance(message, MatchEnd):
                break
            assert isinstance(message, Update)
            seen.append(message.move)
        assert seen == [4, 0, 8]
        assert message.termination == "resignation" and message.winner == 0
