"""A real `arena serve` on a real PostgreSQL: kill -9, killed connections, the database down.

Each test plays short matches over TCP before, during and after the fault and
checks the durability contract: every match whose `match_end` said
`recorded` is in the database; every match that ended during a transient
fault is there once it clears; the server never exits by itself.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest
import trio

from protocol.messages import MatchEnd, MatchStart, Ping
from store.open import open_database
from tests.postgres import PostgresServer
from tests.server.harness import RawClient, play_randomly
from tests.server.serverproc import Outcomes, play_matches, server_process, start_server

RECOVERY = 20.0  # seconds allowed for results kept during a fault to reach the database


def stored(url: str) -> dict[str, str]:
    """Match id -> status, read through a connection of our own."""
    database = open_database(url)
    try:
        return {m.id: m.status for m in database.list_matches(10_000)}
    finally:
        database.close()


async def all_finished_soon(url: str, matches: set[str]) -> dict[str, str]:
    deadline = trio.current_time() + RECOVERY
    while True:
        rows = await trio.to_thread.run_sync(stored, url)
        if all(rows.get(m) == "finished" for m in matches) or trio.current_time() > deadline:
            return rows
        await trio.sleep(0.2)


def check(outcomes: Outcomes, rows: dict[str, str]) -> None:
    assert not outcomes.errors
    claimed = [m for m, (recorded, _) in outcomes.ended.items() if recorded]
    assert all(rows.get(m) == "finished" for m in claimed), "a match said recorded is missing"
    missing = [m for m in outcomes.ended if rows.get(m) != "finished"]
    assert not missing, f"{len(missing)} ended matches never reached the database"


def terminate_connections(url: str) -> int:
    """Make PostgreSQL end every other connection to this database (an admin's or a failover's)."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


async def test_kill_nine_loses_no_acknowledged_result_and_a_restart_takes_over(
    tmp_path: Path, postgres_url: str
) -> None:
    log = tmp_path / "serve.log"
    outcomes = Outcomes()
    lease = {"ARENA_NODE_LEASE": "2"}  # a killed node is declared dead 2 s after its last renewal
    server = start_server(postgres_url, log=log, cwd=tmp_path, env=lease)
    try:
        await play_matches(server.port, 4, 0, outcomes)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_matches, server.port, 10, 1000, outcomes)
            await trio.sleep(0.4)
            server.process.send_signal(signal.SIGKILL)  # mid-play: maybe mid-commit
            server.process.wait()
    except* (OSError, trio.BrokenResourceError, trio.ClosedResourceError, EOFError):
        pass  # the players' connections died with the server
    finally:
        if server.alive():
            server.process.kill()
    claimed = {m for m, (recorded, _) in outcomes.ended.items() if recorded}
    assert len(claimed) >= 4
    rows = await trio.to_thread.run_sync(stored, postgres_url)
    assert all(rows.get(m) == "finished" for m in claimed), "an acknowledged result was lost"
    with server_process(postgres_url, log, cwd=tmp_path, env=lease) as again:  # a new node
        # what the killed node left running is aborted once its lease is over
        with trio.fail_after(15):
            while True:
                statuses = await trio.to_thread.run_sync(stored, postgres_url)
                if "running" not in statuses.values():
                    break
                await trio.sleep(0.2)
        more = Outcomes()
        await play_matches(again.port, 4, 5000, more)
        rows = await all_finished_soon(postgres_url, set(more.ended))
        check(more, rows)
        assert again.alive()


async def test_connections_killed_by_the_database_lose_nothing(
    tmp_path: Path, postgres_url: str
) -> None:
    log = tmp_path / "serve.log"
    with server_process(postgres_url, log, cwd=tmp_path) as server:
        outcomes = Outcomes()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_matches, server.port, 16, 0, outcomes)
            for _ in range(6):
                await trio.sleep(0.15)
                await trio.to_thread.run_sync(terminate_connections, postgres_url)
        rows = await all_finished_soon(postgres_url, set(outcomes.ended))
        assert server.alive()
    assert len(outcomes.ended) == 16
    check(outcomes, rows)


async def connected_pair(port: int, tag: str) -> tuple[RawClient, RawClient]:
    """Two players with their hello done (a new connection needs the accounts table)."""
    pair = []
    for side in "ab":
        client = await RawClient.connect(port)
        await client.hello(f"{side}-{tag}")
        pair.append(client)
    return pair[0], pair[1]


async def play_on(
    pair: tuple[RawClient, RawClient], games: int, seed: int, outcomes: Outcomes
) -> None:
    """`games` matches in a row on the same two connections."""

    async def one(client: RawClient, player_seed: int, ends: list[MatchEnd]) -> None:
        await client.send({"type": "seek", "game": "tictactoe", "move_time": 10.0})
        while not isinstance(message := await client.receive(), MatchStart):
            if isinstance(message, Ping):
                await client.send({"type": "pong", "id": message.id})
        ends.append(await play_randomly(client, player_seed))

    for game in range(games):
        ends: list[MatchEnd] = []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(one, pair[0], seed + 2 * game, ends)
            nursery.start_soon(one, pair[1], seed + 2 * game + 1, ends)
        outcomes.ended[ends[0].match] = (ends[0].recorded, 0.0)


@pytest.mark.slow
async def test_the_database_down_then_back_loses_nothing(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    """PostgreSQL itself stops (immediate shutdown) mid-play and comes back on the same port.

    Players connected before the outage play on (new connections are refused
    with ``accounts_unavailable`` while the accounts cannot be read); what
    ends meanwhile is not acknowledged, and is stored once the database is back.
    """
    url = postgres_server.new_database()
    log = tmp_path / "serve.log"
    with server_process(url, log, cwd=tmp_path) as server:
        outcomes = Outcomes()
        pair = await connected_pair(server.port, "x")
        await play_on(pair, 2, 0, outcomes)
        await trio.to_thread.run_sync(postgres_server.stop_only, "immediate")
        try:
            before = set(outcomes.ended)
            await play_on(pair, 4, 100, outcomes)
            during = set(outcomes.ended) - before
        finally:
            await trio.to_thread.run_sync(postgres_server.start)
        await play_on(pair, 2, 200, outcomes)
        rows = await all_finished_soon(url, set(outcomes.ended))
        assert server.alive()
    assert len(during) == 4
    assert not any(outcomes.ended[m][0] for m in during), "a result was claimed while down"
    check(outcomes, rows)
    assert "store_recovered" in log.read_text(errors="replace")  # the outage, once it cleared
