"""A ladder on two nodes of one PostgreSQL: bots of both nodes meet, and a node is killed.

Everything is real: two `arena serve` processes on one PostgreSQL database,
bots on real sockets (`benchmarks.ladder.ladder_bot`: they seek the ladder,
play random moves, follow ``redirect`` and seek again at home), SIGKILL.
"""

from __future__ import annotations

import signal
import time
from pathlib import Path

import trio

from benchmarks.ladder import BotReport, check_results, ladder_bot
from server.cluster import REAPED
from store.open import open_database
from tests.postgres import postgres_server as postgres_server
from tests.postgres import postgres_url as postgres_url
from tests.server.serverproc import ServerProcess, start_server

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
    after_kill: list[int] = []

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
            a.process.send_signal(signal.SIGKILL)
            a.process.wait()
            killed_at = time.time()
            seen = len(report.ends)
            with trio.fail_after(60):  # the survivor's bots go on playing each other
                while True:
                    after_kill[:] = [
                        i
                        for i, (_, bot, _, _, port) in enumerate(report.ends[seen:])
                        if homes[bot] == b.port and port == b.port
                    ]
                    if len(after_kill) >= 6:
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
