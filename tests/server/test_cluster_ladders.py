"""A ladder on two nodes of one PostgreSQL: bots of both nodes meet, and a node is killed.

Everything is real: two `arena serve` processes on one PostgreSQL database,
bots on real sockets (`benchmarks.ladder.ladder_bot`: they seek the ladder,
play random moves, follow ``redirect`` and seek again at home), SIGKILL.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import msgspec
import trio

from benchmarks.ladder import BotReport, check_results, ladder_bot
from protocol.messages import MatchStart, Redirect, Seeking
from server.cluster import REAPED
from server.cluster_ladders import _Redirect
from store.interface import Database, LadderPairing, LadderRound
from store.open import open_database
from tests.postgres import postgres_server as postgres_server
from tests.postgres import postgres_url as postgres_url
from tests.server.harness import RawClient
from tests.server.serverproc import ServerProcess, start_server
from tests.server.test_cluster import eventually
from tests.server.test_cluster_seeks import next_of

T = TypeVar("T")
LEASE = 2.0
ENV = {
    "ARENA_NODE_LEASE": str(LEASE),
    "ARENA_RECONNECT_GRACE": "2",
    "ARENA_LADDER_RATING_INTERVAL": "1",
}
LADDER = ["--ladder", "bench=tictactoe", "--ladder-tc", "bench=30s"]


def _node(url: str, log: Path) -> ServerProcess:
    return start_server(url, log=log, extra=LADDER, env=ENV)


def test_bots_of_two_nodes_meet_and_a_killed_node_loses_no_result(
    postgres_url: str, tmp_path: Path
) -> None:
    a = _node(postgres_url, tmp_path / "a.log")
    b = _node(postgres_url, tmp_path / "b.log")
    report = BotReport()
    homes = {f"bot{i}": (a.port if i % 2 == 0 else b.port) for i in range(4)}
    killed_at = 0.0
    after_kill: list[str] = []

    async def run() -> None:
        nonlocal killed_at
        stop = trio.current_time() + 120
        async with trio.open_nursery() as nursery:
            for index, (name, home) in enumerate(homes.items()):
                nursery.start_soon(ladder_bot, name, home, "tictactoe", stop, report, index)
            with trio.fail_after(60):  # bots of both nodes met, and a few games were played
                while True:
                    if report.redirects >= 2 and len(report.ends) >= 12:
                        break
                    await trio.sleep(0.05)
            killed_at = time.time()
            a.process.send_signal(signal.SIGKILL)
            a.process.wait()
            seen = len(report.ends)
            with trio.fail_after(60):  # the survivor's bots go on playing each other
                while True:
                    # games between B's two bots ended since: one may have begun before
                    bots: dict[str, set[str]] = {}
                    for match, bot, *_ in report.ends[seen:]:
                        bots.setdefault(match, set()).add(bot)
                    after_kill[:] = [
                        match
                        for match, names in bots.items()
                        if len(names) == 2 and all(homes[name] == b.port for name in names)
                    ]
                    if len(after_kill) >= 4:
                        break
                    await trio.sleep(0.05)
            nursery.cancel_scope.cancel()

    try:
        trio.run(run)
        store = open_database(postgres_url, check=True)
        try:
            deadline = time.monotonic() + 10 * LEASE
            while store.list_matches(100, status="running") and time.monotonic() < deadline:
                time.sleep(0.2)  # the survivor reaps the dead node's games
            records = store.ladder_matches("bench")
            assert store.list_matches(100, status="running") == []
        finally:
            store.close()
    finally:
        for node in (a, b):
            if node.alive():
                node.signal(signal.SIGTERM)
    # bots of node A and node B played each other there and back
    across = [
        r
        for r in records
        if r.status == "finished" and {homes[p] for p in r.players} == {a.port, b.port}
    ]
    assert across, "no game between the nodes' bots"
    # every result a bot was told is recorded, once, as told (kill -9 lost none)
    checks = check_results({"ends": [list(end) for end in report.ends]}, postgres_url)
    assert checks["lost"] == [] and checks["duplicated"] == [], checks
    # a game the dead node was playing is aborted, counted for nobody, by the survivor
    for record in records:
        if record.status == "aborted":
            assert record.reason in (REAPED,) or "never took its seat" in (record.reason or "")
    survivors = [
        r
        for r in records
        if r.status == "finished"
        and r.started_at > killed_at
        and all(homes[p] == b.port for p in r.players)
    ]
    assert len(survivors) >= 3


async def _database(url: str, work: Callable[[Database], T]) -> T:
    def run() -> T:
        database = open_database(url)
        try:
            return work(database)
        finally:
            database.close()

    return await trio.to_thread.run_sync(run)


async def _logged(log: Path, event: str) -> bool:
    return event in await trio.Path(log).read_text()


async def test_a_bot_taken_by_a_node_that_dies_before_its_redirect_is_ready_again(
    postgres_url: str, tmp_path: Path
) -> None:
    """Another node's round takes B's bot and that node dies before it tells B: once the
    seat's grace is over the bot is ready again and plays; a redirect that comes after
    that is dropped, not sent to the bot in the middle of its game."""
    b = start_server(postgres_url, log=tmp_path / "b.log", extra=LADDER, env=ENV)
    clients: list[RawClient] = []
    seek = {"type": "seek", "game": "tictactoe", "ladder": "bench"}
    try:
        x = await RawClient.connect(b.port)
        clients.append(x)
        await x.hello("x")
        await x.send(seek)
        await next_of(x, Seeking)

        def x_waits(database: Database) -> bool:
            seen: list[LadderRound] = []

            def look(round_: LadderRound) -> list[tuple[str, str]]:
                seen.append(round_)
                return []

            database.ladders.pair_round("bench", "ghost", [], [], look)
            return any(bot.name == "x" and bot.waited is not None for bot in seen[0].bots)

        # a node "ghost" (the test) takes x in its round, then says nothing: it died
        await _database(postgres_url, lambda db: db.nodes.register("ghost", "127.0.0.1:1", 60))
        await eventually(lambda: _database(postgres_url, x_waits), 10)
        taken = await _database(
            postgres_url,
            lambda db: db.ladders.pair_round("bench", "ghost", ["g"], [], lambda _: [("g", "x")]),
        )
        live = await _database(postgres_url, lambda db: db.nodes.live())
        node = next(row.id for row in live if row.id != "ghost")  # B's
        assert taken == [LadderPairing("g", "x", "ghost", node)]
        y = await RawClient.connect(b.port)
        clients.append(y)
        await y.hello("y")
        with trio.fail_after(3 * float(ENV["ARENA_RECONNECT_GRACE"]) + 10):
            await y.send(seek)
            starts = [await next_of(client, MatchStart) for client in (x, y)]
        assert starts[0].match == starts[1].match and sorted(starts[0].players) == ["x", "y"]
        assert await _logged(tmp_path / "b.log", "ladder_redirect_never_came")
        # the ghost's redirect, late: x is playing, it gets none
        late = msgspec.json.encode(_Redirect("bench", "x", "m-ghost", "token", "127.0.0.1", 1))
        await _database(postgres_url, lambda db: db.nodes.notify(node, late.decode()))
        await eventually(lambda: _logged(tmp_path / "b.log", "ladder_redirect_for_a_busy_bot"), 10)
        with trio.move_on_after(0.5):
            while True:
                message = await x.receive()
                assert not isinstance(message, Redirect), message
    finally:
        for client in clients:
            await client.aclose()
        b.signal(signal.SIGTERM)
