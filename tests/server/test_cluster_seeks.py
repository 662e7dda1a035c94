"""Seeks on several nodes (server/cluster_seeks.py): paired on their node first, then in
the database, and a seek is taken once.

Real `arena serve` processes on a real PostgreSQL, players over TCP.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import trio

from protocol.messages import MatchStart, Ping, Redirect, Rejoin, Seeking
from store.open import open_database
from tests.server.harness import RawClient
from tests.server.serverproc import ServerProcess, start_server
from tests.server.test_cluster import eventually

SEEK = {"type": "seek", "game": "tictactoe", "move_time": 60.0}


def node(url: str, tmp_path: Path, name: str, hold: str) -> ServerProcess:
    return start_server(
        url,
        log=tmp_path / f"{name}.log",
        cwd=tmp_path,
        env={"ARENA_NODE_LEASE": "2", "ARENA_SEEK_HOLD": hold},
    )


async def waiting(url: str) -> list[str]:
    """The names of the seekers whose seeks wait in the database, oldest first."""

    def read() -> list[str]:
        database = open_database(url)
        try:
            return [seek.name for seek in database.nodes.waiting_seeks()]
        finally:
            database.close()

    return await trio.to_thread.run_sync(read)


async def seeks_are(url: str, names: list[str]) -> bool:
    return await waiting(url) == names


async def player(port: int, name: str) -> RawClient:
    client = await RawClient.connect(port)
    await client.hello(name)
    return client


async def next_of(client: RawClient, *kinds: type[Any]) -> Any:
    """The next message of one of `kinds`, skipping `seeking` and pings."""
    while True:
        message = await client.receive()
        if isinstance(message, kinds):
            return message
        assert isinstance(message, Seeking | Ping), message


async def test_seekers_on_one_node_pair_there_and_the_database_sees_only_a_lone_one(
    tmp_path: Path, postgres_url: str
) -> None:
    a = node(postgres_url, tmp_path, "a", hold="30")
    b = node(postgres_url, tmp_path, "b", hold="0")
    clients: list[RawClient] = []
    try:
        on_b = await player(b.port, "on-b")
        clients.append(on_b)
        await on_b.send(SEEK)
        assert not (await on_b.expect(Seeking)).paired
        await eventually(lambda: seeks_are(postgres_url, ["on-b"]), 10)

        first = await player(a.port, "first-a")
        clients.append(first)
        await first.send(SEEK)
        assert not (await first.expect(Seeking)).paired
        await trio.sleep(1.0)  # A holds its lone seek: B's seek in the database does not see it
        assert await waiting(postgres_url) == ["on-b"]

        second = await player(a.port, "second-a")
        clients.append(second)
        with trio.fail_after(10):  # long before A's 30 s hold ends: paired in memory on A
            await second.send(SEEK)
            assert (await second.expect(Seeking)).paired
            starts = [await next_of(client, MatchStart) for client in (first, second)]
        assert starts[0].match == starts[1].match
        assert sorted(starts[0].players) == ["first-a", "second-a"]
        assert await waiting(postgres_url) == ["on-b"]
    finally:
        for client in clients:
            await client.aclose()
        for server in (a, b):
            server.process.kill()
            server.process.wait()


async def test_a_seek_waiting_in_the_database_is_taken_once_by_its_node_or_another(
    tmp_path: Path, postgres_url: str
) -> None:
    """A seek waits in the database; a seeker on its node (who withdraws it there) and a
    seeker on another node (whose offer takes it) arrive together: one gets it, the other
    waits in its place, and the seeker taken across nodes follows its redirect."""
    a = node(postgres_url, tmp_path, "a", hold="0")
    b = node(postgres_url, tmp_path, "b", hold="0")
    try:
        for round_ in range(4):
            clients: list[RawClient] = []
            try:
                waiter = await player(a.port, f"w{round_}")
                clients.append(waiter)
                await waiter.send(SEEK)
                await eventually(partial(seeks_are, postgres_url, [f"w{round_}"]), 10)
                here = await player(a.port, f"h{round_}")
                there = await player(b.port, f"t{round_}")
                clients += [here, there]
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(here.send, SEEK)
                    nursery.start_soon(there.send, SEEK)
                first = await next_of(waiter, MatchStart, Redirect)
                match = first.match
                if isinstance(first, MatchStart):  # taken on its own node, in the database
                    winner, loser = here, f"t{round_}"
                else:  # taken by the other node's offer: it follows the redirect there
                    winner, loser = there, f"h{round_}"
                    moved = await player(first.port, f"w{round_}")
                    clients.append(moved)
                    await moved.send(Rejoin(token=first.token))
                    assert (await next_of(moved, MatchStart)).match == match
                assert (await next_of(winner, MatchStart)).match == match
                await eventually(partial(seeks_are, postgres_url, [loser]), 10)
            finally:
                for client in clients:
                    await client.aclose()
            await eventually(lambda: seeks_are(postgres_url, []), 10)  # withdrawn on leaving
    finally:
        for server in (a, b):
            server.process.kill()
            server.process.wait()
