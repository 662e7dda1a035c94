"""The server over real TCP sockets: matches, arbitration, records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
import structlog
import structlog.testing
import trio

from games import make_game
from protocol.messages import Error, MatchEnd, MatchStart, Seeking, Turn, Update
from server.config import MatchPolicy
from store import SqliteDatabase
from tests.server.harness import RawClient, running_server, seek_and_play, start_pair


async def test_two_clients_play_tictactoe_to_the_end(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.sqlite")
    async with running_server(db=db, policy=MatchPolicy(move_time=5)) as server:
        assert server.port is not None
        clients = [await RawClient.connect(server.port) for _ in range(2)]
        for i, client in enumerate(clients):
            await client.hello(f"p{i}")
            await client.send({"type": "seek", "game": "tictactoe"})
            assert isinstance(await client.expect(Seeking), Seeking)
        starts = [await c.expect(MatchStart) for c in clients]
        by_seat = {s.seat: c for s, c in zip(starts, clients, strict=True)}
        match_id = starts[0].match
        # X plays the top row: a3 b3 c3 -> cells 0, 1, 2; O plays 3, 4
        script = [0, 3, 1, 4, 2]
        for ply, cell in enumerate(script):
            mover = by_seat[ply % 2]
            turn = await mover.expect(Turn, skip=(Update,))
            assert turn.ply == ply and cell in turn.legal_moves
            await mover.send({"type": "move", "match": match_id, "ply": ply, "move": cell})
        ends = [await c.expect(MatchEnd, skip=(Update,)) for c in clients]
        assert ends[0].winner == 0 and ends[0].scores == [1.0, 0.0]
        assert ends[0].termination == "line"
    store = SqliteDatabase(db)
    record = store.get_match(match_id)
    assert record is not None and record.status == "finished" and record.winner == 0
    assert [m.move for m in store.get_moves(match_id)] == script


async def test_shutdown_records_open_matches_as_aborted(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.sqlite")
    async with running_server(db=db) as server:
        assert server.port is not None
        clients = [await RawClient.connect(server.port) for _ in range(2)]
        match_id, seats, _ = await start_pair(clients)
        await seats[0].expect(Turn)
        await seats[0].send({"type": "move", "match": match_id, "ply": 0, "move": 4})
        await seats[1].expect(Turn, skip=(Update,))
    record = SqliteDatabase(db).get_match(match_id)
    assert record is not None
    assert record.status == "aborted" and record.termination == "aborted" and record.plies == 1
    assert [m.notation for m in SqliteDatabase(db).get_moves(match_id)] == ["b2"]


async def test_twenty_concurrent_matches_record_correct_outcomes(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.sqlite")
    game = make_game("tictactoe")
    ends: dict[tuple[str, int], MatchEnd] = {}
    async with running_server(db=db) as server:
        assert server.port is not None
        port = server.port

        async def one_player(i: int) -> None:
            start, end = await seek_and_play(port, f"r{i}", i)
            assert start.seat is not None
            ends[(start.match, start.seat)] = end

        async with trio.open_nursery() as nursery:
            for i in range(40):
                nursery.start_soon(one_player, i)
    store = SqliteDatabase(db)
    matches = {m.id: m for m in store.list_matches(limit=100)}
    assert len(matches) == 20
    for (match_id, _seat), end in ends.items():
        record = matches[match_id]
        assert record.status == "finished"
        assert record.scores == end.scores and record.winner == end.winner
        # replaying the recorded moves gives the recorded outcome
        state = game.initial_state()
        for move in store.get_moves(match_id):
            assert game.to_move(state) == move.seat
            state = game.play(state, game.decode_move(move.move))
        outcome = game.outcome(state)
        assert outcome is not None and list(outcome.scores) == record.scores
        assert record.plies == len(store.get_moves(match_id))


async def test_one_log_line_per_move_and_match_end_with_match_and_seat() -> None:
    with structlog.testing.capture_logs() as logs:
        async with running_server() as server:
            assert server.port is not None
            clients = [await RawClient.connect(server.port) for _ in range(2)]
            match_id, seats, _ = await start_pair(clients)
            for ply, cell in enumerate([0, 3, 1, 4, 2]):
                mover = seats[ply % 2]
                await mover.expect(Turn, skip=(Update,))
                await mover.send({"type": "move", "match": match_id, "ply": ply, "move": cell})
            await seats[0].expect(MatchEnd, skip=(Update,))
    moves = [e for e in logs if e["event"] == "move"]
    assert [(e["match"], e["seat"], e["ply"]) for e in moves] == [
        (match_id, ply % 2, ply) for ply in range(5)
    ]
    ends = [e for e in logs if e["event"] == "match_end"]
    assert len(ends) == 1 and ends[0]["match"] == match_id and ends[0]["result"] == "1-0"
    assert sum(e["event"] == "connected" for e in logs) == 2


async def test_match_start_carries_the_moves_so_far_to_late_spectators_and_rejoiners() -> None:
    async with running_server() as server:
        assert server.port is not None
        a, b = await RawClient.connect(server.port), await RawClient.connect(server.port)
        match, seats, starts = await start_pair([a, b])
        assert all(start.moves == [] for start in starts)
        for ply, cell in enumerate([4, 0, 8]):
            mover = seats[ply % 2]
            await mover.expect(Turn, skip=(Update,))
            await mover.send({"type": "move", "match": match, "ply": ply, "move": cell})
        assert (await seats[1].expect(Turn, skip=(Update,))).ply == 3
        watcher = await RawClient.connect(server.port)
        await watcher.hello("late", role="spectator")
        await watcher.send({"type": "spectate", "match": match})
        late = await watcher.expect(MatchStart)
        assert late.moves == [4, 0, 8]
        assert late.notations == ["b2", "a3", "c1"]  # as each update named them
        token = next(s.token for s in starts if s.seat == 1)
        back = await RawClient.connect(server.port)
        await back.hello("p1-again")
        await back.send({"type": "rejoin", "token": token})
        start: MatchStart = await back.expect(MatchStart)
        assert start.seat == 1 and start.ply == 3 and start.moves == [4, 0, 8]


async def test_a_moves_evaluation_is_relayed_and_checked() -> None:
    async with running_server() as server:
        assert server.port is not None
        a, b = await RawClient.connect(server.port), await RawClient.connect(server.port)
        match, by_seat, _ = await start_pair([a, b])
        first, second = by_seat[0], by_seat[1]
        turn: Turn = await first.expect(Turn)
        await first.send(
            {"type": "move", "match": match, "ply": 0, "move": turn.legal_moves[0], "eval": 0.7}
        )
        update: Update = await second.expect(Update)
        assert update.eval == 0.7 and update.seat == 0
        turn = await second.expect(Turn)
        await second.send(
            {"type": "move", "match": match, "ply": 1, "move": turn.legal_moves[0], "eval": 1.5}
        )
        error = await second.expect(Error)
        assert error.code == "bad_message" and error.fatal  # an evaluation is 0..1


async def test_move_info_is_relayed_and_recorded_with_the_move(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.sqlite")
    pv = ["b2", "a1", "c3"]
    async with running_server(db=db, store_writer="process") as server:
        assert server.port is not None
        a, b = await RawClient.connect(server.port), await RawClient.connect(server.port)
        match, by_seat, _ = await start_pair([a, b])
        first, second = by_seat[0], by_seat[1]
        await first.expect(Turn)
        info = {"eval": 0.62, "depth": 14, "visits": 2**53, "pv": pv}
        await first.send({"type": "move", "match": match, "ply": 0, "move": 4, **info})
        update: Update = await second.expect(Update)
        assert (update.eval, update.depth, update.visits, update.pv) == (0.62, 14, 2**53, pv)
        await second.expect(Turn)
        await second.send({"type": "move", "match": match, "ply": 1, "move": 0})
        own = msgspec.msgpack.decode(await first.reader.read_frame())  # the mover's copy
        assert own["type"] == "update" and own["seat"] == 0 and own["pv"] == pv
        raw = msgspec.msgpack.decode(await first.reader.read_frame())  # no info: no keys
        assert raw["type"] == "update" and raw["seat"] == 1
        assert not {"eval", "depth", "visits", "pv", "clocks"} & raw.keys()
        await first.expect(Turn)
        await first.send({"type": "move", "match": match, "ply": 2, "move": 8, "depth": 0})
        await second.expect(Turn, skip=(Update,))
        await second.send({"type": "resign", "match": match})
        assert (await first.expect(MatchEnd, skip=(Update,))).recorded
    store = SqliteDatabase(db)  # what the writer process committed, read from the file
    moves = store.get_moves(match)
    store.close()
    assert [(m.eval, m.depth, m.visits, m.pv) for m in moves] == [
        (0.62, 14, 2**53, tuple(pv)),
        (None, None, None, ()),
        (None, 0, None, ()),
    ]
    assert [m.notation for m in moves] == ["b2", "a3", "c1"]


@pytest.mark.parametrize(
    "info",
    [
        {"eval": -0.01},
        {"depth": -1},
        {"depth": 10_001},
        {"depth": 1.5},
        {"visits": 2**53 + 1},
        {"visits": -3},
        {"pv": ["a1"] * 65},
        {"pv": ["x" * 33]},
        {"pv": [""]},
        {"pv": "b2 a1"},
        {"pv": [4]},
    ],
    ids=lambda info: "-".join(f"{k}={str(v)[:12]}" for k, v in info.items()),
)
async def test_out_of_range_move_info_is_a_bad_message(info: dict[str, Any]) -> None:
    async with running_server() as server:
        assert server.port is not None
        a, b = await RawClient.connect(server.port), await RawClient.connect(server.port)
        match, by_seat, _ = await start_pair([a, b])
        await by_seat[0].expect(Turn)
        await by_seat[0].send({"type": "move", "match": match, "ply": 0, "move": 4, **info})
        error = await by_seat[0].expect(Error)
        assert error.code == "bad_message" and error.fatal  # as for an evaluation out of 0..1
        assert next(iter(info)) in error.message


async def test_spectate_all_follows_the_running_match_and_every_later_one() -> None:
    async with running_server(max_spectating=1) as server:
        assert server.port is not None
        a, b = await RawClient.connect(server.port), await RawClient.connect(server.port)
        first, by_seat, _ = await start_pair([a, b])
        follower = await RawClient.connect(server.port)
        await follower.hello("everything", role="spectator")
        await follower.send({"type": "spectate", "match": "*"})
        assert (await follower.expect(MatchStart)).match == first  # being played already
        # at its limit (1 match): the next match is skipped, and named
        start, _ = await _play_one(server.port, seed=1)
        skipped: Error = await follower.expect(Error)
        assert skipped.code == "limit_reached" and not skipped.fatal
        assert skipped.match == start.match
        await by_seat[0].send({"type": "resign", "match": first})
        assert (await follower.expect(MatchEnd, skip=(Update,))).match == first
        # below its limit again: a match that starts now is followed from its start
        start, end = await _play_one(server.port, seed=2)
        assert (await follower.expect(MatchStart)).match == start.match
        followed: MatchEnd = await follower.expect(MatchEnd, skip=(Update,))
        assert followed.match == start.match and followed.scores == end.scores


async def _play_one(port: int, seed: int) -> tuple[MatchStart, MatchEnd]:
    async with trio.open_nursery() as nursery:
        results: list[tuple[MatchStart, MatchEnd]] = []

        async def player(name: str, offset: int) -> None:
            results.append(await seek_and_play(port, name, seed + offset))

        nursery.start_soon(player, f"x{seed}", 0)
        nursery.start_soon(player, f"y{seed}", 100)
    return results[0]
