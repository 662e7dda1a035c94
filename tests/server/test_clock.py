"""Clocks with increment and lag compensation (server/clock.py), played on virtual time."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from protocol.messages import Clock, MatchEnd, MatchStart, Seeking, Turn, Update
from server.clock import LAG_QUOTA_MOVES, GameClock
from server.config import MatchPolicy
from server.match_ids import new_match_id
from tests.server.harness import RawClient, memory_server, start_pair


def test_a_move_costs_its_time_less_the_refund_plus_the_increment() -> None:
    clock = GameClock(Clock(60.0, 2.0), lag_margin=0.2, seats=2)
    assert clock.remaining == [60.0, 60.0]
    refund = clock.move_made(0, used=5.0, last_segment=5.0)
    assert refund == 0.2
    assert clock.remaining == [pytest.approx(57.2), 60.0]  # 60 - 5 + 0.2 + 2
    assert clock.view(1, 42.25) == [57.2, 42.25]


def test_the_lag_quota_bounds_the_free_time_over_a_whole_game() -> None:
    margin, moves = 0.2, 200
    clock = GameClock(Clock(600.0, 0.0), lag_margin=margin, seats=2)
    free = sum(clock.move_made(0, used=1.0, last_segment=1.0) for _ in range(moves))
    assert free <= LAG_QUOTA_MOVES * margin + moves * margin / 2 + 1e-9
    assert clock.quota[0] <= clock.quota_max
    # a quick mover is refunded only what it spent
    assert clock.move_made(1, used=0.05, last_segment=0.05) == 0.05


def test_match_ids_are_unique_and_sorted_by_creation() -> None:
    ids = [new_match_id() for _ in range(2000)]
    assert len(set(ids)) == len(ids)
    assert ids == sorted(ids)
    assert all(len(i) == 14 and i.startswith("m") for i in ids)


async def test_a_clocked_match_charges_each_seat_and_flags_at_zero(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with memory_server(policy=MatchPolicy(lag_margin=0.2)) as server:
        a, b = RawClient.in_memory(server), RawClient.in_memory(server)
        clock = {"initial": 10.0, "increment": 2.0}
        match, seats, starts = await start_pair([a, b], clock=clock)
        assert starts[0].time_control.clock == Clock(10.0, 2.0)
        turn: Turn = await seats[0].expect(Turn)
        assert turn.time_left == 10.0 and turn.clocks == [10.0, 10.0] and turn.increment == 2.0
        await trio.sleep(3.0)
        await seats[0].send({"type": "move", "match": match, "ply": 0, "move": 4})
        update: Update = await seats[1].expect(Update)
        assert update.clocks == [pytest.approx(9.2), 10.0]  # 10 - 3 + 0.2 refund + 2
        turn = await seats[1].expect(Turn)
        assert turn.time_left == 10.0 and turn.clocks == [pytest.approx(9.2), 10.0]
        started = trio.current_time()
        end: MatchEnd = await seats[0].expect(MatchEnd, skip=(Update,))
        # the flag falls when the clock and the compensation still available run out
        assert trio.current_time() - started == pytest.approx(10.2)
        assert end.termination == "timeout" and end.winner == 0
        assert "ran out of time (0.166667+2 clock)" in end.reason


async def test_an_any_time_seek_plays_the_other_seekers_clock(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with memory_server() as server:
        human, engine, other = (RawClient.in_memory(server) for _ in range(3))
        await other.hello("other")
        # another board size: listed to the human, but not a partner for the engine
        await other.send(
            {"type": "seek", "game": "tictactoe", "options": {"width": 4}, "move_time": 3.0}
        )
        await other.expect(Seeking)
        await human.hello("human")
        await human.send({"type": "seek", "game": "tictactoe", "clock": {"initial": 300}})
        seeking: Seeking = await human.expect(Seeking)
        assert seeking.clock == Clock(300.0, 0.0)
        # the waiting player is told who else waits, with which time control
        others = [(s.options, s.move_time, s.clock, s.players) for s in seeking.others]
        assert others == [({"width": 4, "height": 3, "k": 3}, 3.0, None, 1)]
        await engine.hello("engine")
        await engine.send({"type": "seek", "game": "tictactoe", "any_time": True})
        acknowledged: Seeking = await engine.expect(Seeking)
        assert acknowledged.any_time and acknowledged.paired and not seeking.paired
        # the human it pairs with is no other seek "not paired with" it; the 4-wide one is
        assert [s.options["width"] for s in acknowledged.others] == [4]
        start: MatchStart = await engine.expect(MatchStart)
        assert sorted(start.players) == ["engine", "human"]
        assert start.time_control.clock == Clock(300.0, 0.0)


async def test_the_servers_default_clock_pairs_a_plain_seek_with_a_clocked_one(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with memory_server(policy=MatchPolicy(clock=Clock(300.0, 3.0))) as server:
        human, engine = RawClient.in_memory(server), RawClient.in_memory(server)
        await human.hello("human")
        await human.send(
            {"type": "seek", "game": "tictactoe", "clock": {"initial": 300, "increment": 3}}
        )
        await human.expect(Seeking)
        await engine.hello("engine")
        await engine.send({"type": "seek", "game": "tictactoe"})  # no time control: the default
        seeking: Seeking = await engine.expect(Seeking)
        assert seeking.clock == Clock(300.0, 3.0)
        start: MatchStart = await engine.expect(MatchStart)
        assert start.time_control.clock == Clock(300.0, 3.0)


def test_the_default_clock_comes_from_the_environment() -> None:
    from server.config import build_config

    assert build_config({}, {"ARENA_TC": "5+3"}).policy.clock == Clock(300.0, 3.0)
    with pytest.raises(ValueError, match="ARENA_TC='fast' is not a valid time control"):
        build_config({}, {"ARENA_TC": "fast"})


async def test_a_room_plays_the_servers_default_clock(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with memory_server(policy=MatchPolicy(clock=Clock(60.0, 1.0))) as server:
        a, b = RawClient.in_memory(server), RawClient.in_memory(server)
        for client, name in ((a, "a"), (b, "b")):
            await client.hello(name)
            await client.send({"type": "join", "room": "r1", "game": "tictactoe"})
            seeking: Seeking = await client.expect(Seeking)
            assert seeking.clock == Clock(60.0, 1.0) and seeking.room == "r1"
        start: MatchStart = await a.expect(MatchStart)
        assert start.time_control.clock == Clock(60.0, 1.0)
