"""A tournament game (tournament id, index) is played once: a second `pair` gets the first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import trio

from protocol.messages import (
    Directing,
    Error,
    MatchEnd,
    MatchStart,
    Paired,
    PoolStatus,
    Seeking,
    Turn,
    Update,
)
from records.schema import opening_of
from store import SqliteDatabase
from tests.server.harness import RawClient, play_randomly, running_server

OWNER_KEY = "the-tournament-owner-key"  # a director keeps its pool's key across restarts
PAIR = {
    "type": "pair",
    "pool": "pool-1",
    "seats": ["p0", "p1"],
    "game": "tictactoe",
    "tournament": "t-test",
    "index": 7,
    "seed": 1,
}


async def _director(port: int) -> RawClient:
    director = await RawClient.connect(port)
    await director.hello("director")
    await director.send(
        {
            "type": "direct",
            "pool": "pool-1",
            "players": [{"name": "p0", "secret": "s0"}, {"name": "p1", "secret": "s1"}],
            "owner": OWNER_KEY,
        }
    )
    return director


async def _seekers(port: int) -> list[RawClient]:
    players = []
    for i in range(2):
        player = await RawClient.connect(port)
        await player.hello(f"p{i}")
        await player.send(
            {"type": "seek", "game": "tictactoe", "pool": "pool-1", "secret": f"s{i}"}
        )
        await player.expect(Seeking)
        players.append(player)
    return players


async def _idle(director: RawClient, count: int) -> None:
    while True:
        status: PoolStatus = await director.expect(PoolStatus, skip=(Directing,))
        if sum(status.idle.values()) >= count:
            return


async def test_a_tournament_game_is_played_once_and_handed_back_after_a_restart(
    tmp_path: Path,
) -> None:
    db = str(tmp_path / "arena.sqlite")
    async with running_server(db=db) as server:
        assert server.port is not None
        director = await _director(server.port)
        players = await _seekers(server.port)
        await _idle(director, 2)
        await director.send(PAIR)
        first: Paired = await director.expect(Paired, skip=(PoolStatus, Directing))
        assert not first.existing
        # asked again while it is being played: the same match, no players taken
        await director.send(PAIR)
        again: Paired = await director.expect(Paired, skip=(PoolStatus, Directing))
        assert again.existing and again.match == first.match
        for player in players:
            assert (await player.expect(MatchStart)).match == first.match
        async with trio.open_nursery() as nursery:
            for i, player in enumerate(players):
                nursery.start_soon(play_randomly, player, i)
        ends = [await director.expect(MatchEnd, skip=(PoolStatus, Directing))]
        assert ends[0].match == first.match and ends[0].recorded
        # after it ended: handed back from memory or the database, not played again
        await director.send(PAIR)
        late: Paired = await director.expect(Paired, skip=(PoolStatus, Directing))
        end: MatchEnd = await director.expect(MatchEnd, skip=(PoolStatus, Directing))
        assert late.existing and late.match == end.match == first.match
        assert end.scores == ends[0].scores and end.recorded
    async with running_server(db=db) as server:  # a new server on the same records
        assert server.port is not None
        director = await _director(server.port)
        await director.send(PAIR)
        paired: Paired = await director.expect(Paired, skip=(PoolStatus, Directing))
        end = await director.expect(MatchEnd, skip=(PoolStatus, Directing))
        assert paired.existing and paired.match == end.match == first.match
        assert end.scores == ends[0].scores and end.ply == ends[0].ply


def _pair(index: int, **extra: Any) -> dict[str, Any]:
    return {**PAIR, "index": index, **extra}


async def test_a_pair_with_an_opening_starts_after_it_and_stores_it(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.sqlite")
    async with running_server(db=db) as server:
        assert server.port is not None
        director = await _director(server.port)
        players = await _seekers(server.port)
        await _idle(director, 2)
        # an illegal opening (the same cell twice) is refused, and nothing changes
        await director.send(_pair(1, opening=[4, 4]))
        error: Error = await director.expect(Error, skip=(PoolStatus, Directing))
        assert error.code == "bad_request" and "opening move 2" in error.message
        await director.send(_pair(2, opening=[0, 1, 3, 4, 6]))  # ends the game: refused
        error = await director.expect(Error, skip=(PoolStatus, Directing))
        assert error.code == "bad_request" and "ends the game" in error.message
        # the players are still idle: a legal opening starts their match after three plies
        await director.send(_pair(3, opening=[4, 0, 8]))
        paired: Paired = await director.expect(Paired, skip=(PoolStatus, Directing))
        starts = [await player.expect(MatchStart) for player in players]
        for start in starts:
            assert start.match == paired.match
            assert start.ply == 3 and start.moves == [4, 0, 8] and start.to_move == 1
        async with trio.open_nursery() as nursery:
            for i, player in enumerate(players):
                nursery.start_soon(play_randomly, player, i)
        end: MatchEnd = await director.expect(MatchEnd, skip=(PoolStatus, Directing))
        assert end.recorded and end.ply > 3
    store = SqliteDatabase(db)
    record = store.get_match(paired.match)
    assert record is not None and opening_of(record) == [4, 0, 8]
    moves = store.get_moves(paired.match)
    assert [m.move for m in moves[:3]] == [4, 0, 8]
    assert [m.seat for m in moves[:3]] == [0, 1, 0]
    assert all(m.think_time == 0.0 for m in moves[:3]) and len(moves) == end.ply
    store.close()


async def test_max_plies_ends_a_game_in_a_draw(tmp_path: Path) -> None:
    async with running_server(db=str(tmp_path / "arena.sqlite")) as server:
        assert server.port is not None
        director = await _director(server.port)
        players = await _seekers(server.port)
        await _idle(director, 2)
        await director.send(_pair(4, opening=[4], max_plies=3))
        await director.expect(Paired, skip=(PoolStatus, Directing))
        for player in players:
            await player.expect(MatchStart)
        async with trio.open_nursery() as nursery:
            for i, player in enumerate(players):
                nursery.start_soon(play_randomly, player, i)
        end: MatchEnd = await director.expect(MatchEnd, skip=(PoolStatus, Directing))
        assert end.termination == "max_plies" and end.ply == 3
        assert end.winner is None and end.scores == [0.5, 0.5]


async def test_the_director_adjudicates_only_the_position_it_judged(tmp_path: Path) -> None:
    async with running_server(db=str(tmp_path / "arena.sqlite")) as server:
        assert server.port is not None
        director = await _director(server.port)
        players = await _seekers(server.port)
        await _idle(director, 2)
        await director.send(_pair(5))
        paired: Paired = await director.expect(Paired, skip=(PoolStatus, Directing))
        starts = {(await p.expect(MatchStart)).seat: p for p in players}
        turn: Turn = await starts[0].expect(Turn)
        await starts[0].send({"type": "move", "match": paired.match, "ply": 0, "move": 4})
        await starts[1].expect(Turn, skip=(Update,))
        assert turn.ply == 0
        stale = {"type": "adjudicate", "match": paired.match, "winner": 0}
        await director.send({**stale, "ply": 0, "termination": "proven"})
        error: Error = await director.expect(Error, skip=(PoolStatus, Directing))
        assert error.code == "stale_position"
        # a player cannot adjudicate: only the pool's director
        await starts[1].send({**stale, "ply": 1, "termination": "proven"})
        assert (await starts[1].expect(Error, skip=(Update,))).code == "not_director"
        await director.send({**stale, "ply": 1, "termination": "proven", "reason": "proof"})
        end: MatchEnd = await director.expect(MatchEnd, skip=(PoolStatus, Directing))
        assert end.termination == "proven" and end.winner == 0 and end.ply == 1
        assert end.reason == "proof"
