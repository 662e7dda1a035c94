"""The director against a real server over TCP, with scripted players: adjudication by proof.

The players are raw protocol clients that think for a while before each
random move, as a slow engine would; the director watches each game and ends
it as soon as its solver proves the result, and the server records that
termination.
"""

from __future__ import annotations

import random
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio

from games import make_game
from protocol.codec import FrameReader, client_message_decoder, encode_message
from protocol.messages import (
    PROTOCOL_VERSION,
    Direct,
    Directing,
    Error,
    Hello,
    MatchEnd,
    MatchStart,
    Pair,
    Paired,
    PoolStatus,
    Seeking,
    Turn,
    Welcome,
)
from records.schema import opening_of
from store import SqliteDatabase
from tests.server.harness import RawClient, running_server
from tournament.config import TournamentConfig, TournamentPlayer
from tournament.director import TournamentDirector, TournamentError
from tournament.results import GameResult, TournamentRecords

THINK = 0.3  # seconds a player takes per move: time for the solver to land first


SECRETS = {"p0": "s0", "p1": "s1"}


async def _direct(
    director: TournamentDirector,
    tmp_path: Path,
    player: Callable[[int, str, str, str, int], Awaitable[None]],
    *,
    seeds_apart: int,
) -> dict[int, GameResult]:
    """Run `director` on a fresh server with two copies of `player` for each name."""
    with trio.fail_after(30):
        async with running_server(db=str(tmp_path / "arena.sqlite")) as server:
            assert server.port is not None
            async with trio.open_nursery() as nursery:
                for i, name in enumerate(SECRETS):
                    for copy in range(2):
                        seed = seeds_apart * i + copy
                        nursery.start_soon(
                            player, server.port, name, SECRETS[name], director.config.id, seed
                        )
                results = await director.run("127.0.0.1", server.port)
                nursery.cancel_scope.cancel()
    return results


async def slow_player(port: int, name: str, secret: str, pool: str, seed: int) -> None:
    """Seek in the pool, play random moves after `THINK` seconds, seek again after each game."""
    rng = random.Random(seed)
    client = await RawClient.connect(port)
    await client.hello(name)
    while True:
        await client.send({"type": "seek", "game": "tictactoe", "pool": pool, "secret": secret})
        await client.expect(Seeking)
        while True:
            message = await client.receive()
            if isinstance(message, Turn):
                await trio.sleep(THINK)
                move = rng.choice(message.legal_moves)
                await client.send(
                    {"type": "move", "match": message.match, "ply": message.ply, "move": move}
                )
            elif isinstance(message, MatchEnd):
                break
            elif isinstance(message, Error):
                # a move sent while the director adjudicated the game: it arrives late
                assert message.code == "not_your_turn" and "over" in message.message, message
            else:
                assert isinstance(message, MatchStart), message


async def test_proven_positions_are_adjudicated_and_recorded(tmp_path: Path) -> None:
    game = make_game("tictactoe", {})
    config = TournamentConfig(
        game="tictactoe",
        options=game.options,
        players=(TournamentPlayer("p0", None), TournamentPlayer("p1", None)),
        games_per_pair=2,
        move_time=5.0,
        openings={"kind": "random", "plies": 2, "seed": 1},
        adjudication={"proven_nodes": 50_000},
    )
    director = TournamentDirector(config, secrets=SECRETS, concurrency=2)
    results = await _direct(director, tmp_path, slow_player, seeds_apart=10)
    assert sorted(results) == [0, 1]
    for result in results.values():
        # 3x3 tic-tac-toe is small: every game is proven long before its end
        assert result.termination == "proven", result
        assert result.plies < 9
        assert sum(result.scores) == 1.0
    assert director.adjudicated == 2
    store = SqliteDatabase(str(tmp_path / "arena.sqlite"))
    for result in results.values():
        record = store.get_match(result.match_id)
        assert record is not None and record.termination == "proven"
        assert record.reason is not None and record.reason.startswith("proven ")
        assert len(opening_of(record)) == 2
    store.close()


def test_a_tournaments_owner_key_is_made_once_and_kept(tmp_path: Path) -> None:
    config = TournamentConfig(
        game="tictactoe",
        options={},
        players=(TournamentPlayer("p0", None), TournamentPlayer("p1", None)),
    )
    store = SqliteDatabase(str(tmp_path / "arena.sqlite"))
    records = TournamentRecords(store)
    records.save(config, "running")
    key = records.owner_key(config.id)
    assert len(key) >= 24 and records.owner_key(config.id) == key
    store.close()
    again = SqliteDatabase(str(tmp_path / "arena.sqlite"))  # a resumed director reads the same key
    assert TournamentRecords(again).owner_key(config.id) == key
    again.close()


async def test_a_director_cannot_use_a_pool_another_key_owns() -> None:
    config = TournamentConfig(
        game="tictactoe",
        options={},
        players=(TournamentPlayer("p0", None), TournamentPlayer("p1", None)),
    )
    async with running_server() as server:
        assert server.port is not None
        squatter = await RawClient.connect(server.port)
        await squatter.hello("squatter")
        await squatter.send({"type": "direct", "pool": config.id, "players": [], "owner": "mine!"})
        await squatter.expect(Directing)
        director = TournamentDirector(
            config, secrets={"p0": "a", "p1": "b"}, concurrency=1, owner="the real key"
        )
        with trio.fail_after(10), pytest.raises(TournamentError, match="not_owner"):
            await director.run("127.0.0.1", server.port)


async def confident_player(port: int, name: str, secret: str, pool: str, seed: int) -> None:
    """Like `slow_player`, but sends an evaluation with every move: seat 0 is sure it wins."""
    rng = random.Random(seed)
    client = await RawClient.connect(port)
    await client.hello(name)
    seat = 0
    while True:
        await client.send({"type": "seek", "game": "tictactoe", "pool": pool, "secret": secret})
        await client.expect(Seeking)
        while True:
            message = await client.receive()
            if isinstance(message, MatchStart):
                assert message.seat is not None
                seat = message.seat
            elif isinstance(message, Turn):
                await trio.sleep(THINK)
                move = rng.choice(message.legal_moves)
                evaluation = 0.99 if seat == 0 else 0.01
                await client.send(
                    {
                        "type": "move",
                        "match": message.match,
                        "ply": message.ply,
                        "move": move,
                        "eval": evaluation,
                    }
                )
            elif isinstance(message, MatchEnd):
                break


async def test_games_are_adjudicated_on_the_engines_evaluations(tmp_path: Path) -> None:
    config = TournamentConfig(
        game="tictactoe",
        options={},
        players=(TournamentPlayer("p0", None), TournamentPlayer("p1", None)),
        games_per_pair=2,
        move_time=5.0,
        adjudication={"resign_moves": 3, "resign_score": 0.05},
    )
    director = TournamentDirector(config, secrets=SECRETS, concurrency=2)
    results = await _direct(director, tmp_path, confident_player, seeds_apart=1)
    assert sorted(results) == [0, 1]  # both games of the pair were played, then each:
    for result in results.values():
        # three plies in a row agree that seat 0 wins: it does, at ply 3, before any line
        assert result.termination == "evaluation", result
        assert result.plies == 3 and result.scores == (1.0, 0.0)
    assert director.adjudicated == 2


async def test_a_direct_or_pair_the_records_cannot_answer_is_asked_again() -> None:
    """A server whose records (on several servers: the shared database) cannot answer a
    ``direct`` or a ``pair`` refuses it with ``store_unavailable``: the director asks
    again, later."""
    config = TournamentConfig(
        game="tictactoe",
        options={},
        players=(TournamentPlayer("p0", None), TournamentPlayer("p1", None)),
        games_per_pair=2,
    )
    directs: list[Direct] = []
    pairs: list[Pair] = []

    async def scripted_server(stream: trio.SocketStream) -> None:
        reader, decoder = FrameReader(stream), client_message_decoder()

        async def send(message: Any) -> None:
            await stream.send_all(encode_message(message))

        while True:
            message = decoder.decode(await reader.read_frame())
            if isinstance(message, Hello):
                await send(Welcome(PROTOCOL_VERSION, "scripted", "s", 1 << 16))
            elif isinstance(message, Direct):
                directs.append(message)
                if len(directs) == 1:
                    await send(Error("store_unavailable", "the database cannot be reached"))
                    continue
                await send(Directing(pool=message.pool, owner="key"))
                await send(PoolStatus(pool=message.pool, idle={"p0": 1, "p1": 1}))
            elif isinstance(message, Pair):
                pairs.append(message)
                if len(pairs) == 1:  # the first answer: the database is away
                    await send(Error("store_unavailable", "the database cannot be reached"))
                    continue
                match = f"m{len(pairs)}"
                await send(Paired(pool=message.pool, index=message.index, match=match))
                await send(PoolStatus(pool=message.pool, idle={"p0": 1, "p1": 1}))
                await send(MatchEnd(match, 5, [1.0, 0.0], 0, "line", "seat 0 wins"))

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(
            partial(trio.serve_tcp, scripted_server, 0, host="127.0.0.1")
        )
        port = listeners[0].socket.getsockname()[1]
        director = TournamentDirector(config, secrets={"p0": "a", "p1": "b"}, concurrency=1)
        with trio.fail_after(10):
            results = await director.run("127.0.0.1", port)
        nursery.cancel_scope.cancel()
    assert sorted(results) == [0, 1]
    assert len(directs) == 2
    assert [pair.index for pair in pairs] == [0, 0, 1]  # the refused game, again, then on


async def test_a_game_another_node_still_plays_is_asked_for_again_without_a_pool_message() -> None:
    """A resume after the director's node died: the server refuses the game that node was
    playing (``not_available``, "being played on node ...") until the node's match is
    aborted, and sends no ``pool`` message, since nobody was taken. The director counts
    the players idle again and asks again after a pause, so the tournament finishes."""
    config = TournamentConfig(
        game="tictactoe",
        options={},
        players=(TournamentPlayer("p0", None), TournamentPlayer("p1", None)),
        games_per_pair=2,
    )
    pairs: list[tuple[int, float]] = []

    async def scripted_server(stream: trio.SocketStream) -> None:
        reader, decoder = FrameReader(stream), client_message_decoder()

        async def send(message: Any) -> None:
            await stream.send_all(encode_message(message))

        while True:
            message = decoder.decode(await reader.read_frame())
            if isinstance(message, Hello):
                await send(Welcome(PROTOCOL_VERSION, "scripted", "s", 1 << 16))
            elif isinstance(message, Direct):
                await send(Directing(pool=message.pool, owner="key"))
                await send(PoolStatus(pool=message.pool, idle={"p0": 1, "p1": 1}))
            elif isinstance(message, Pair):
                pairs.append((message.index, trio.current_time()))
                refusals = [index for index, _ in pairs].count(0) - 1
                if message.index == 0 and refusals < 2:  # the dead node's game, twice
                    await send(
                        Error(
                            "not_available",
                            f"game 0 of {message.tournament!r} is being played on node a-1:"
                            " ask again once it has ended",
                        )
                    )
                    continue
                match = f"m{len(pairs)}"
                await send(Paired(pool=message.pool, index=message.index, match=match))
                await send(MatchEnd(match, 5, [1.0, 0.0], 0, "line", "seat 0 wins"))
                await send(PoolStatus(pool=message.pool, idle={"p0": 1, "p1": 1}))

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(
            partial(trio.serve_tcp, scripted_server, 0, host="127.0.0.1")
        )
        port = listeners[0].socket.getsockname()[1]
        director = TournamentDirector(config, secrets={"p0": "a", "p1": "b"}, concurrency=1)
        with trio.fail_after(10):
            results = await director.run("127.0.0.1", port)
        nursery.cancel_scope.cancel()
    assert sorted(results) == [0, 1]
    indexes = [index for index, _ in pairs]
    assert indexes.count(0) == 3 and indexes.count(1) == 1  # refused twice, then played
    # with the players idle again, the refused game waits its pause while the other is played
    assert indexes[:2] == [0, 1]
    retries = [at for index, at in pairs if index == 0]
    assert retries[2] - retries[1] >= 0.9  # asked again after the pause, not in a loop
