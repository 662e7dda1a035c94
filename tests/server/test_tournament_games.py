"""A tournament game (tournament id, index) is played once: a second `pair` gets the first."""

from __future__ import annotations

from pathlib import Path

import trio

from protocol.messages import MatchEnd, MatchStart, Paired, PoolStatus, Seeking
from tests.server.harness import RawClient, play_randomly, running_server

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
        status: PoolStatus = await director.expect(PoolStatus)
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
        first: Paired = await director.expect(Paired, skip=(PoolStatus,))
        assert not first.existing
        # asked again while it is being played: the same match, no players taken
        await director.send(PAIR)
        again: Paired = await director.expect(Paired, skip=(PoolStatus,))
        assert again.existing and again.match == first.match
        for player in players:
            assert (await player.expect(MatchStart)).match == first.match
        async with trio.open_nursery() as nursery:
            for i, player in enumerate(players):
                nursery.start_soon(play_randomly, player, i)
        ends = [await director.expect(MatchEnd, skip=(PoolStatus,))]
        assert ends[0].match == first.match and ends[0].recorded
        # after it ended: handed back from memory or the database, not played again
        await director.send(PAIR)
        late: Paired = await director.expect(Paired, skip=(PoolStatus,))
        end: MatchEnd = await director.expect(MatchEnd, skip=(PoolStatus,))
        assert late.existing and late.match == end.match == first.match
        assert end.scores == ends[0].scores and end.recorded
    async with running_server(db=db) as server:  # a new server on the same records
        assert server.port is not None
        director = await _director(server.port)
        await director.send(PAIR)
        paired: Paired = await director.expect(Paired, skip=(PoolStatus,))
        end = await director.expect(MatchEnd, skip=(PoolStatus,))
        assert paired.existing and paired.match == end.match == first.match
        assert end.scores == ends[0].scores and end.ply == ends[0].ply
