"""Two people mark and agree on dead stones after two passes in Go (server/match.py).

Real sockets for the conversation (marking, disagreeing, a stale accept, resuming,
agreeing, the stored result); virtual time for the marking deadline, a resignation
and a seat that leaves while the stones are marked.
"""

from __future__ import annotations

import io
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing

from games.go import Go
from player.watch import Spectator
from protocol.messages import (
    PROTOCOL_VERSION,
    Error,
    Hello,
    MatchEnd,
    MatchStart,
    Ping,
    Resumed,
    Scoring,
    Seeking,
    Turn,
    Update,
    Welcome,
)
from server.config import MatchPolicy
from tests.server.harness import RawClient, memory_server, running_server

GAME = Go(size=5, komi=0.5)
OPTIONS = {"size": 5, "komi": 0.5}
#: Black walls column C, White column D, then White drops a stone at A3 in Black's area;
#: the last pass (White's) is the second in a row
MOVES = ["C1", "D1", "C2", "D2", "C3", "D3", "C4", "D4", "C5", "D5", "pass", "A3", "pass", "pass"]
A3 = GAME.parse_move("A3")
C3 = GAME.parse_move("C3")
COLUMN_C = sorted(GAME.parse_move(f"C{row}") for row in range(1, 6))


def port(server: Any) -> int:
    assert server.port is not None
    return int(server.port)


async def seat_pair(
    clients: list[RawClient], *, human: bool = True, move_time: float = 30
) -> tuple[str, dict[int, RawClient]]:
    """Hello (`human`) and a seek of 5×5 Go for each client: the match and its seats."""
    for i, client in enumerate(clients):
        await client.send(
            Hello(version=PROTOCOL_VERSION, name=f"person{i}", human=human, client="test")
        )
        await client.expect(Welcome)
        await client.send(
            {"type": "seek", "game": "go", "options": OPTIONS, "move_time": move_time}
        )
        await client.expect(Seeking)
    starts = [await c.expect(MatchStart) for c in clients]
    return starts[0].match, {s.seat: c for s, c in zip(starts, clients, strict=True)}


async def play(match: str, seats: dict[int, RawClient], moves: list[str], ply: int = 0) -> None:
    """Each move by the seat whose turn it is (each waits for its `turn`)."""
    for text in moves:
        seat = seats[ply % 2]
        turn: Turn = await seat.expect(Turn, skip=(Update,))
        assert turn.ply == ply
        move = GAME.parse_move(text)
        await seat.send({"type": "move", "match": match, "ply": ply, "move": move})
        ply += 1


async def scoring(client: RawClient) -> Scoring:
    found: Scoring = await client.expect(Scoring, skip=(Update,))
    return found


async def both(seats: dict[int, RawClient]) -> list[Scoring]:
    return [await scoring(seats[0]), await scoring(seats[1])]


async def send(client: RawClient, **message: Any) -> None:
    await client.send(message)


def stored(db: Path, match: str) -> tuple[Any, ...]:
    with sqlite3.connect(db) as conn:
        row = conn.execute(
            "SELECT winner, termination, reason, points, plies FROM matches WHERE id = ?", (match,)
        ).fetchone()
        moves = conn.execute("SELECT COUNT(*) FROM moves WHERE match_id = ?", (match,)).fetchone()[
            0
        ]
    return (*row, moves)


async def test_two_people_mark_disagree_resume_and_agree_over_sockets(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    async with running_server(db=str(db)) as server:
        clients = [await RawClient.connect(port(server)) for _ in range(2)]
        match, seats = await seat_pair(clients)
        watcher = await RawClient.connect(port(server))
        await watcher.hello("watcher", role="spectator")
        await send(watcher, type="spectate", match=match)
        printed = io.StringIO()
        spectator = Spectator(out=printed)  # what `arena watch` prints of it
        spectator.handle(await watcher.expect(MatchStart))
        black, white = seats[0], seats[1]
        await play(match, seats, MOVES)

        # White's pass is held: both seats and the spectator are asked to mark
        first = await both(seats)
        assert first[0] == first[1]
        assert first[0].ply == 13 and first[0].dead == [] and first[0].accepted == [False, False]
        assert first[0].area == [5, 11] and first[0].points == [-6.5, 6.5]  # as it stands
        assert 29 < first[0].time_left <= 60

        # a move now is refused; marking an empty point is refused; the phase goes on
        await send(black, type="move", match=match, ply=13, move=0)
        refused: Error = await black.expect(Error)
        assert refused.code == "not_your_turn" and "marked" in refused.message
        await send(black, type="mark", match=match, point=GAME.parse_move("B2"))
        refused = await black.expect(Error)
        assert refused.code == "bad_mark" and refused.message == "no stone on B2 to mark"

        # Black marks White's stone at A3: the count takes it off
        await send(black, type="mark", match=match, point=A3)
        marked = await both(seats)
        assert marked[0].dead == [A3] and marked[0].area == [15, 10]
        assert marked[0].points == [4.5, -4.5]

        # White accepts what it saw before: stale, answered with the current marking
        await send(white, type="accept", match=match, dead=[])
        refused = await white.expect(Error)
        assert refused.code == "stale_marking"
        assert (await scoring(white)).dead == [A3]

        # Black accepts; White disagrees by marking Black's whole wall dead: Black's
        # acceptance is withdrawn
        await send(black, type="accept", match=match, dead=[A3])
        assert [s.accepted for s in await both(seats)] == [[True, False]] * 2
        await send(white, type="mark", match=match, point=C3)
        disputed = await both(seats)
        assert disputed[0].dead == sorted([A3, *COLUMN_C]) and disputed[0].accepted == [
            False,
            False,
        ]

        # White resumes: its pass is withdrawn and it is to move again
        await send(white, type="resume", match=match)
        resumed: Resumed = await black.expect(Resumed, skip=(Scoring,))
        assert (resumed.ply, resumed.seat) == (13, 1)
        assert (await white.expect(Resumed, skip=(Scoring,))).seat == 1
        await send(black, type="accept", match=match, dead=[A3])
        refused = await black.expect(Error)
        assert refused.code == "not_marking"

        # White passes again: marking starts afresh, and this time both agree
        await play(match, seats, ["pass"], ply=13)
        again = await both(seats)
        assert again[0].dead == [] and again[0].ply == 13
        await send(white, type="mark", match=match, point=A3)
        await both(seats)
        await send(white, type="accept", match=match, dead=[A3])
        await both(seats)
        await send(black, type="accept", match=match, dead=[A3])
        ends: list[MatchEnd] = [await c.expect(MatchEnd, skip=(Update,)) for c in (black, white)]
        assert ends[0] == ends[1]
        end = ends[0]
        assert end.winner == 0 and end.termination == "score" and end.points == [4.5, -4.5]
        assert end.ply == 14 and end.recorded
        assert end.reason == "Black wins (score) with 1 dead stone taken off (A3): both agreed"
        while (message := await watcher.receive()) != end:
            spectator.handle(message)
        spectator.handle(message)
        watched = printed.getvalue()
        assert "both passed, dead stones: none; counted without them: W+6.5" in watched
        assert "both passed, dead stones: A3; counted without them: B+4.5" in watched
        assert re.search(r"White \(person[01]\) resumed play", watched), watched
        assert f"by score ({end.reason}) ===" in watched

    winner, termination, reason, points, plies, moves = stored(db, match)
    assert (winner, termination, reason, plies, moves) == (0, "score", end.reason, 14, 14)
    assert "4.5" in points


async def test_engines_play_it_out_and_the_board_is_counted_as_it_stands() -> None:
    async with running_server() as server:
        clients = [await RawClient.connect(port(server)) for _ in range(2)]
        match, seats = await seat_pair(clients, human=False)
        await play(match, seats, MOVES)
        end: MatchEnd = await seats[0].expect(MatchEnd, skip=(Update,))
        assert end.winner == 1 and end.points == [-6.5, 6.5] and end.ply == 14
        assert end.reason == "White wins (score)"


async def test_one_person_against_an_engine_is_counted_as_it_stands() -> None:
    async with running_server() as server:
        person, engine = [await RawClient.connect(port(server)) for _ in range(2)]
        for client, human in ((person, True), (engine, False)):
            await client.send(Hello(version=PROTOCOL_VERSION, name=f"p{human}", human=human))
            await client.expect(Welcome)
            await send(client, type="seek", game="go", options=OPTIONS, move_time=30)
            await client.expect(Seeking)
        starts = [await c.expect(MatchStart) for c in (person, engine)]
        seats = {s.seat: c for s, c in zip(starts, (person, engine), strict=True)}
        await play(starts[0].match, seats, MOVES)
        end: MatchEnd = await person.expect(MatchEnd, skip=(Update,))
        assert end.winner == 1 and end.termination == "score"


async def marking_in_memory(server: Any, move_time: float = 30) -> tuple[str, dict[int, RawClient]]:
    clients = [RawClient.in_memory(server) for _ in range(2)]
    match, seats = await seat_pair(clients, move_time=move_time)
    await play(match, seats, MOVES)
    await both(seats)
    return match, seats


async def test_without_agreement_the_board_is_counted_as_it_stands_after_the_marking_time(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with memory_server(idle_timeout=600) as server:
        match, seats = await marking_in_memory(server)
        started = trio.current_time()
        await send(seats[0], type="mark", match=match, point=A3)
        await both(seats)
        end: MatchEnd = await seats[0].expect(MatchEnd, skip=(Update, Scoring, Ping))
        assert trio.current_time() - started == pytest.approx(60.0)  # max(60 s, move_time 30)
        assert end.winner == 1 and end.points == [-6.5, 6.5] and end.ply == 14
        assert end.reason == (
            "White wins (score) as the board stands: no agreement on dead stones within 60s"
        )


async def test_a_set_one_seat_accepted_and_nobody_changed_counts_at_the_deadline(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with memory_server(idle_timeout=600, max_move_time=300) as server:
        match, seats = await marking_in_memory(server, move_time=90)
        started = trio.current_time()
        await send(seats[0], type="mark", match=match, point=A3)
        await both(seats)
        await send(seats[0], type="accept", match=match, dead=[A3])
        await both(seats)
        end: MatchEnd = await seats[1].expect(MatchEnd, skip=(Update, Scoring, Ping))
        assert trio.current_time() - started == pytest.approx(90.0)  # the longer move time
        assert end.winner == 0 and end.points == [4.5, -4.5]
        assert end.reason.startswith("Black wins (score) with 1 dead stone taken off (A3): ")
        assert end.reason.endswith(" accepted them and nobody changed them within 90s")


async def test_a_resignation_while_marking_stands(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with memory_server(idle_timeout=600) as server:
        match, seats = await marking_in_memory(server)
        await send(seats[0], type="resign", match=match)
        end: MatchEnd = await seats[1].expect(MatchEnd, skip=(Update, Scoring, Ping))
        assert end.termination == "resignation" and end.winner == 1 and end.ply == 13


async def test_a_seat_that_leaves_while_marking_forfeits_after_its_grace_unless_it_returns(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with memory_server(policy=MatchPolicy(reconnect_grace=10), idle_timeout=600) as server:
        match, seats = await marking_in_memory(server)
        start: MatchStart = await _token_of(server, match, 1)
        await seats[1].aclose()
        await trio.sleep(5)
        back = RawClient.in_memory(server)  # White comes back and sees the marking
        await back.hello("person1")
        await send(back, type="rejoin", token=start.token)
        await back.expect(MatchStart)
        assert (await back.expect(Scoring)).dead == []
        await back.aclose()  # ... and leaves again: its grace runs out first
        left = trio.current_time()
        end: MatchEnd = await seats[0].expect(MatchEnd, skip=(Update, Scoring, Ping))
        assert trio.current_time() - left == pytest.approx(10.0)
        assert end.termination == "disconnect" and end.winner == 0
        assert "while the dead stones were marked" in end.reason


async def _token_of(server: Any, match: str, seat: int) -> Any:
    """The seat's `match_start` as the server would send it (its reconnect token)."""
    return server.lobby.matches[match].start_message(seat)
