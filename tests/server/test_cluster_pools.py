"""Pools on several nodes (server/cluster_pools.py): a pool spans the nodes, and its
director, on any node, pairs seekers of every node.

Real `arena serve` processes on a real PostgreSQL, players and directors over TCP.
"""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import pytest
import trio

from player.results import MatchResult
from player.runtime import run_player
from protocol.messages import (
    Directing,
    Error,
    MatchEnd,
    MatchStart,
    Paired,
    Ping,
    PoolStatus,
    Redirect,
    Seeking,
    Turn,
)
from store.open import open_database
from tests.server.harness import RawClient
from tests.server.serverproc import ARENA, ServerProcess, start_server
from tests.server.test_cluster import events, eventually, listed, node

SECRETS = {f"p{i}": f"secret-{i}" for i in range(1, 5)}


class DirectRefused(Exception):
    pass


class Director:
    """A director speaking the protocol by hand: what it was told, by kind."""

    def __init__(self, client: RawClient) -> None:
        self.client = client
        self.idle: dict[str, int] = {}
        self.paired: list[Paired] = []
        self.ends: dict[str, MatchEnd] = {}
        self.errors: list[Error] = []

    @classmethod
    async def direct(cls, port: int, pool: str, owner: str = "k") -> Director:
        client = await RawClient.connect(port)
        await client.hello("director")
        players = [{"name": name, "secret": secret} for name, secret in SECRETS.items()]
        await client.send({"type": "direct", "pool": pool, "players": players, "owner": owner})
        answer = await client.receive()
        if isinstance(answer, Error):
            raise DirectRefused(answer.code)
        assert isinstance(answer, Directing), answer
        return cls(client)

    async def until(self, done: Any) -> None:
        """Read until `done(self)` holds."""
        while not done(self):
            message = await self.client.receive()
            if isinstance(message, PoolStatus):
                self.idle = {name: n for name, n in message.idle.items() if n}
            elif isinstance(message, Paired):
                self.paired.append(message)
            elif isinstance(message, MatchEnd):
                self.ends[message.match] = message
            elif isinstance(message, Error) and not message.fatal:
                self.errors.append(message)
            elif not isinstance(message, Ping):
                raise AssertionError(f"the director got {message!r}")

    async def pair(self, seats: list[str], **more: Any) -> None:
        await self.client.send(
            {"type": "pair", "pool": "cup", "seats": seats, "game": "tictactoe", **more}
        )

    async def idle_is(self, idle: dict[str, int]) -> None:
        await self.until(lambda d: d.idle == idle)


async def seeker(port: int, name: str) -> RawClient:
    client = await RawClient.connect(port)
    await client.hello(name)
    await client.send({"type": "seek", "game": "tictactoe", "pool": "cup", "secret": SECRETS[name]})
    return client


def kill(*servers: ServerProcess) -> None:
    for server in servers:
        if server.alive():
            server.process.kill()
            server.process.wait()


async def test_a_director_on_one_node_pairs_the_seekers_of_every_node(
    tmp_path: Path, postgres_url: str
) -> None:
    """The director talks to A; p1 seeks on A, p2..p4 on B. It pairs p1 (A) with p2 (B)
    and p3 with p4 (both on B): every match is played on A, the seekers of B follow their
    ``redirect``, each result is recorded once and the director gets every match_end. An
    impostor on B is refused; a seeker that leaves, or whose node dies, leaves the pool."""
    a, b = node(postgres_url, tmp_path, "a"), node(postgres_url, tmp_path, "b")
    try:
        director = await Director.direct(a.port, "cup")
        results: dict[str, list[MatchResult]] = {}

        async def player(name: str, port: int) -> None:
            results[name] = await run_player(
                "127.0.0.1",
                port,
                "random",
                "tictactoe",
                name=name,
                pool="cup",
                secret=SECRETS[name],
                move_time=5.0,
            )

        impostor = await RawClient.connect(b.port)
        await impostor.hello("p4")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(player, "p1", a.port)
            for name in ("p2", "p3", "p4"):
                nursery.start_soon(player, name, b.port)
            await impostor.send(
                {"type": "seek", "game": "tictactoe", "pool": "cup", "secret": "guess"}
            )
            # the director on A sees the seekers of both nodes (the impostor does not count)
            await director.idle_is({"p1": 1, "p2": 1, "p3": 1, "p4": 1})
            refused = await impostor.expect(Error, skip=(Seeking, Ping))
            assert refused.code == "bad_secret"
            for index, seats in enumerate((["p1", "p2"], ["p3", "p4"])):
                await director.client.send(
                    {
                        "type": "pair",
                        "pool": "cup",
                        "seats": seats,
                        "game": "tictactoe",
                        "move_time": 5.0,
                        "tournament": "t1",
                        "index": index,
                    }
                )
            await director.until(lambda d: len(d.ends) == 2)
        await impostor.aclose()
        matches = [paired.match for paired in director.paired]
        assert sorted(matches) == sorted(director.ends)
        assert results["p1"][0].match == results["p2"][0].match == matches[0]
        assert results["p3"][0].match == results["p4"][0].match == matches[1]
        for name, played in results.items():
            assert len(played) == 1 and played[0].outcome is not None, name
        database = open_database(postgres_url)
        try:
            a_node = next(n.id for n in database.nodes.live() if n.address.endswith(f":{a.port}"))
            records = database.list_matches(tournament="t1")
            assert sorted(r.id for r in records) == sorted(matches)  # each recorded once
            for record in records:
                assert record.status == "finished" and record.tags.node == a_node
                assert record.tags.pool == "cup"
                assert director.ends[record.id].scores == record.scores
        finally:
            database.close()
        redirected = events(tmp_path / "b.log", "redirected")
        assert sorted(str(e["match"]) for e in redirected) == sorted(
            [matches[0], *[matches[1]] * 2]
        )
        assert len(events(tmp_path / "a.log", "pool_paired_across_nodes")) == 2

        # a seeker that leaves is withdrawn everywhere; so are those of a node that dies
        leaver = await RawClient.connect(b.port)
        await leaver.hello("p2")
        await leaver.send(
            {"type": "seek", "game": "tictactoe", "pool": "cup", "secret": SECRETS["p2"]}
        )
        await director.idle_is({"p2": 1})
        await leaver.aclose()
        await director.idle_is({})
        stays = await RawClient.connect(b.port)
        await stays.hello("p3")
        await stays.send(
            {"type": "seek", "game": "tictactoe", "pool": "cup", "secret": SECRETS["p3"]}
        )
        await director.idle_is({"p3": 1})
        b.process.send_signal(signal.SIGKILL)
        b.process.wait()
        with trio.fail_after(15):  # A reaps B once its 2 s lease is over
            await director.idle_is({})
        await stays.aclose()
        await director.client.aclose()
    finally:
        kill(a, b)


async def test_a_tournament_directed_on_one_node_plays_players_of_both(
    tmp_path: Path, postgres_url: str
) -> None:
    """`arena tournament --server A` with remote players on A and on B: every game is
    played, once."""
    a, b = node(postgres_url, tmp_path, "a"), node(postgres_url, tmp_path, "b")
    try:
        results: dict[str, list[MatchResult]] = {}

        async def player(name: str, port: int) -> None:
            results[name] = await run_player(
                "127.0.0.1",
                port,
                "random",
                "tictactoe",
                games=4,  # three players, two games a pair: four each
                name=name,
                pool="cup",
                secret="s3cret",
                move_time=1.0,
            )

        command = [
            *ARENA,
            "tournament",
            "tictactoe",
            *("--remote", "r1", "--remote", "r2", "--remote", "r3"),
            *("--server", f"127.0.0.1:{a.port}", "--pool", "cup", "--secret", "s3cret"),
            *("--db", str(tmp_path / "director.sqlite"), "--move-time", "1.0"),
            *("--concurrency", "2", "--json", "--no-progress"),
        ]
        async with trio.open_nursery() as nursery:
            nursery.start_soon(player, "r1", a.port)
            nursery.start_soon(player, "r2", b.port)
            nursery.start_soon(player, "r3", b.port)
            with trio.fail_after(60):
                done = await trio.run_process(
                    command, capture_stdout=True, capture_stderr=True, check=False, cwd=tmp_path
                )
        assert done.returncode == 0, done.stderr.decode()[-2000:]
        document = json.loads(done.stdout)
        assert document["status"] == "finished"
        games = {game["index"]: game["match"] for game in document["games"]}
        assert sorted(games) == list(range(6))  # three pairs, two games each
        assert {row["name"]: row["games"] for row in document["standings"]} == dict.fromkeys(
            ("r1", "r2", "r3"), 4
        )
        assert {name: len(played) for name, played in results.items()} == dict.fromkeys(
            ("r1", "r2", "r3"), 4
        )
        database = open_database(postgres_url)
        try:
            records = database.list_matches(tournament=document["tournament"])
            assert sorted(r.id for r in records) == sorted(games.values())  # each played once
            assert all(r.status == "finished" for r in records)
            assert len({r.tags.node for r in records}) == 1  # all on A, the director's node
        finally:
            database.close()
        assert events(tmp_path / "a.log", "pool_paired_across_nodes")
    finally:
        kill(a, b)


async def test_a_pool_has_one_owner_and_its_director_may_move_to_another_node(
    tmp_path: Path, postgres_url: str
) -> None:
    """The owner key is the arena's: another key is refused on every node; the owner's
    director moves from A to B (A's is told ``director_replaced``) and pairs seekers of A
    there; a tournament game still being played on A is not played again. A pool its
    director left is free again after the grace, on any node."""
    env = {"ARENA_NODE_LEASE": "2", "ARENA_POOL_GRACE": "1"}
    a, b = (
        start_server(postgres_url, log=tmp_path / f"{n}.log", cwd=tmp_path, env=env) for n in "ab"
    )
    try:
        first = await Director.direct(a.port, "cup", "k")
        for port in (a.port, b.port):
            with pytest.raises(DirectRefused, match="not_owner"):
                await Director.direct(port, "cup", "someone else")
        seekers = {name: await seeker(a.port, name) for name in SECRETS}
        await first.idle_is({"p1": 1, "p2": 1, "p3": 1, "p4": 1})
        await first.pair(["p1", "p2"], tournament="t", index=0, move_time=60.0)
        await first.until(lambda d: d.paired)
        game = first.paired[0].match
        for name in ("p1", "p2"):  # nobody moves: it is played on A until p1 resigns
            await seekers[name].expect(MatchStart, skip=(Seeking, Ping))
        moved = await Director.direct(b.port, "cup", "k")
        replaced = await first.client.expect(Error, skip=(PoolStatus, Ping))
        assert replaced.code == "director_replaced"
        await moved.idle_is({"p3": 1, "p4": 1})

        async def b_sees_it() -> bool:
            return game in dict(await listed(b.port))

        await eventually(b_sees_it, 10)
        await moved.pair(["p3", "p4"], tournament="t", index=0)  # played on A already
        await moved.until(lambda d: d.errors)
        assert moved.errors[0].code == "not_available" and "being played" in moved.errors[0].message
        await seekers["p1"].send({"type": "resign", "match": game})
        for name in ("p1", "p2"):
            assert (await seekers[name].expect(MatchEnd, skip=(Ping, Turn))).recorded
            await seekers[name].aclose()
        await moved.pair(["p3", "p4"], tournament="t", index=0)  # its result, not a new game
        await moved.until(lambda d: d.ends)
        assert moved.paired[0].existing and moved.paired[0].match == game
        assert moved.ends[game].termination == "resignation"
        await moved.pair(["p3", "p4"])  # both wait on A, the match is on B
        await moved.until(lambda d: len(d.paired) == 2)
        for name in ("p3", "p4"):
            redirect = await seekers[name].expect(Redirect, skip=(Seeking, Ping))
            assert redirect.port == b.port and redirect.match == moved.paired[1].match
            await seekers[name].aclose()
        await moved.client.aclose()
        await first.client.aclose()
        with trio.fail_after(10):  # idle for the grace (1 s): anyone may claim it
            while True:
                try:
                    other = await Director.direct(a.port, "cup", "someone else")
                    break
                except DirectRefused:
                    await trio.sleep(0.3)
        await other.client.aclose()
    finally:
        kill(a, b)
