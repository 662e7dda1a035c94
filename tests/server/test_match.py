"""A match's seats (server/match.py): a seat nobody ever took is no result; a seat whose
program failed ends the match as that failure.

A seat paired on another node waits for its player to follow the
``redirect``; when that node died first, nobody ever comes. The match ends
aborted (recorded so, without scores that count), not as a forfeit by a
player who never played, and a seat that was taken and then dropped still
forfeits after the grace.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
import trio.testing

from games import make_game
from protocol.messages import Error, MatchEnd, MatchStart, Ping, Seeking, Turn, Update
from server.app import ArenaServer
from server.config import MatchPolicy
from server.connection import Connection
from store import SqliteDatabase
from tests.server.harness import RawClient, memory_server, start_pair

GRACE = 10.0


async def _waiting_player(server: ArenaServer, name: str) -> tuple[RawClient, Connection]:
    """A connected player (a seek in the lobby) and its connection on the server side."""
    client = RawClient.in_memory(server)
    await client.hello(name)
    await client.send({"type": "seek", "game": "tictactoe", "move_time": 60.0})
    await client.expect(Seeking)
    assert server.lobby is not None
    conn = next(c for c in server.lobby.members if c.name == name)
    return client, conn


@pytest.mark.parametrize("present_seat", [0, 1])
async def test_a_seat_never_taken_aborts_the_match_after_the_grace(
    autojump_clock: trio.testing.MockClock, present_seat: int
) -> None:
    async with memory_server(policy=MatchPolicy(reconnect_grace=GRACE)) as server:
        client, conn = await _waiting_player(server, "here")
        players: list[Connection | str] = ["ghost", "ghost"]
        players[present_seat] = conn
        started = trio.current_time()
        assert server.lobby is not None
        match = server.lobby.start_match(
            make_game("tictactoe"), players, MatchPolicy(move_time=60.0, reconnect_grace=GRACE)
        )
        await client.expect(MatchStart)
        if present_seat == 0:  # it moves; then the empty seat's turn waits
            await client.expect(Turn)
            await client.send({"type": "move", "match": match.id, "ply": 0, "move": 4})
        end: MatchEnd = await client.expect(MatchEnd, skip=(Turn, Update))
        assert trio.current_time() - started == pytest.approx(GRACE)  # from the match's start
        assert end.termination == "aborted" and end.winner is None
        assert "ghost never took its seat within 10s" in end.reason
        assert match.aborted  # recorded with the status "aborted": no result
        await client.aclose()


async def test_a_seat_taken_then_left_still_forfeits(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The seat's player came (``rejoin`` with the token) and then left: a disconnect."""
    async with memory_server(policy=MatchPolicy(reconnect_grace=GRACE)) as server:
        client, conn = await _waiting_player(server, "here")
        assert server.lobby is not None
        match = server.lobby.start_match(
            make_game("tictactoe"),
            [conn, "away"],
            MatchPolicy(move_time=60.0, reconnect_grace=GRACE),
        )
        await client.expect(MatchStart)
        await client.expect(Turn)
        comer = RawClient.in_memory(server)
        await comer.hello("away")
        await comer.send({"type": "rejoin", "token": match.seats[1].token})
        await comer.expect(MatchStart)
        await client.send({"type": "move", "match": match.id, "ply": 0, "move": 4})
        await comer.expect(Turn, skip=(Update,))
        await comer.aclose()
        end = await client.expect(MatchEnd, skip=(Turn, Update))
        assert end.termination == "disconnect" and end.winner == 0
        await client.aclose()


async def test_a_move_waiting_when_a_frozen_server_wakes_is_not_a_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The server's host was frozen (SIGSTOP, a stalled VM) past a turn's deadline while
    the move waited in its socket: the move is read first, not a timeout declared."""
    async with memory_server(policy=MatchPolicy(move_time=1.0, lag_margin=0.2)) as server:
        a, b = RawClient.in_memory(server), RawClient.in_memory(server)
        match, seats, _ = await start_pair([a, b])
        turn = await seats[0].expect(Turn)
        autojump_clock.jump(30.0)  # the process did not run for 30 s
        await seats[0].send({"type": "move", "match": match, "ply": turn.ply, "move": 4})
        update = await seats[1].expect(Update, skip=(Ping,))
        assert update.ply == 1  # played, not lost on time
        # a seat that really does not move still loses on time, a stall or not
        await seats[1].expect(Turn, skip=(Ping,))
        autojump_clock.jump(5.0)
        end = await seats[1].expect(MatchEnd, skip=(Ping,))
        assert end.termination == "timeout" and end.winner == 0
        for client in (a, b):
            await client.aclose()


@pytest.mark.parametrize(
    ("fault", "termination", "words"),
    [
        ("crash", "crash", "crashed"),
        ("stalled", "stalled", "stalled"),
        ("illegal", "illegal_move", "played an illegal move"),
        ("protocol", "protocol_error", "broke its protocol"),
        (None, "resignation", "resigned"),
    ],
)
async def test_a_resign_with_a_fault_ends_the_match_as_that_failure(
    tmp_path: Path, fault: str | None, termination: str, words: str
) -> None:
    """A player whose program failed says so (``resign.fault``): the record names the
    failure, not a resignation, and keeps the reason, made one printable line."""
    db = str(tmp_path / "arena.sqlite")
    async with memory_server(db=db) as server:
        clients = [RawClient.in_memory(server), RawClient.in_memory(server)]
        match, seats, starts = await start_pair(clients)
        words = f"{starts[0].players[1]} {words}: engine pg: engine exited (code 3)"
        said = "engine pg:\n engine\x1b exited\x07 (code 3)"  # hostile: a newline, controls
        resign = {"type": "resign", "match": match, "reason": said}
        await seats[1].send(resign if fault is None else {**resign, "fault": fault})
        ends = [await seats[s].expect(MatchEnd, skip=(Turn,)) for s in (0, 1)]
        for client in clients:
            await client.aclose()
    assert {(e.termination, e.winner, e.reason) for e in ends} == {(termination, 0, words)}
    store = SqliteDatabase(db)
    try:
        record = store.get_match(match)
    finally:
        store.close()
    assert record is not None
    assert (record.termination, record.winner, record.reason) == (termination, 0, words)


@pytest.mark.parametrize("fault", ["timeout", "resignation", "", 3])
async def test_a_fault_the_protocol_does_not_name_is_a_bad_message(fault: object) -> None:
    """Only a player's own failures can be declared (never the server's `timeout`)."""
    async with memory_server() as server:
        clients = [RawClient.in_memory(server), RawClient.in_memory(server)]
        match, seats, _ = await start_pair(clients)
        await seats[1].send({"type": "resign", "match": match, "fault": fault})
        error: Error = await seats[1].expect(Error, skip=(Turn,))
        assert error.code == "bad_message" and error.fatal
        for client in clients:
            await client.aclose()
