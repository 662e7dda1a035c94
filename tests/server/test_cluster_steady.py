"""A node judges others only after a whole lease of steady contact with the database.

The node table is a stand-in whose calls can be made late by moving the trio
clock while they run (as a stalled disk or a failover would hold them up), so
the rule of server/cluster.py is checked to the millisecond, in about a second.
The end-to-end stall of a real PostgreSQL is in test_cluster.py.
"""

from __future__ import annotations

from typing import Any, cast

import pytest
import trio
import trio.testing

from server.cluster import Cluster

LEASE = 3.0


@pytest.fixture
def clock() -> trio.testing.MockClock:
    """A clock that jumps once the loop has idled 50 ms of real time: never while a (quick)
    database call is in its worker thread, so only `Nodes.delay` makes a call take time."""
    return trio.testing.MockClock(autojump_threshold=0.05)


class Nodes:
    """The calls a `Cluster` makes; `delay` seconds pass (on the mock clock) inside each."""

    def __init__(self, clock: trio.testing.MockClock) -> None:
        self.clock = clock
        self.delay = {"register": 0.0, "renew": 0.0}
        self.reaps: list[float] = []

    def _take(self, call: str) -> None:
        if self.delay[call]:
            trio.from_thread.run_sync(self.clock.jump, self.delay[call])

    def register(self, node: str, address: str, lease: float) -> None:
        self._take("register")

    def renew(self, node: str, lease: float) -> bool:
        self._take("renew")
        return True

    def reap(self, reason: str) -> dict[str, int]:
        self.reaps.append(self.clock.current_time())  # in a worker thread
        return {}

    def running(self, exclude: str | None = None) -> list[Any]:
        return []

    def listen(self, node: str, stopping: Any) -> Any:
        return iter(())


async def joined(nodes: Nodes) -> Cluster:
    """A node of `nodes`' table, registered (`Cluster.join`)."""
    store = type("Store", (), {"nodes": nodes})()
    member = Cluster(cast(Any, store), LEASE, node="n1")
    await member.join("127.0.0.1:1")
    return member


async def run_for(member: Cluster, seconds: float) -> None:
    """The node's heartbeat, view and channel for `seconds` (mock time)."""
    with trio.move_on_after(seconds):
        await member.run()


async def test_a_prompt_registration_reaps_at_once_and_then_every_renewal(
    clock: trio.testing.MockClock,
) -> None:
    nodes = Nodes(clock)
    start = trio.current_time()
    member = await joined(nodes)
    assert nodes.reaps == [start]
    await run_for(member, LEASE + 0.5)
    assert [round(t - start, 3) for t in nodes.reaps] == [0.0, 1.0, 2.0, 3.0]


async def test_a_late_registration_waits_a_whole_lease_before_it_reaps(
    clock: trio.testing.MockClock,
) -> None:
    nodes = Nodes(clock)
    nodes.delay["register"] = LEASE  # its own row may well have expired on arrival
    member = await joined(nodes)
    late = trio.current_time()
    assert nodes.reaps == [] and not member.steady()
    await run_for(member, 2 * LEASE + 0.5)
    assert nodes.reaps and nodes.reaps[0] >= late + LEASE
    assert [round(t - late, 3) for t in nodes.reaps] == [3.0, 4.0, 5.0, 6.0]


async def test_a_late_renewal_defers_the_reaping_for_a_lease_and_slow_ones_do_not(
    clock: trio.testing.MockClock,
) -> None:
    nodes = Nodes(clock)
    start = trio.current_time()
    member = await joined(nodes)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(member.run)
        await trio.sleep(2.5)  # renewals every third of a lease: reaps at 1 and 2
        nodes.delay["renew"] = 0.4  # 3 -> 3.4: a gap of 1.4, under half a lease
        await trio.sleep(1.0)
        assert member.steady()
        nodes.delay["renew"] = 1.0  # 4.4 -> 5.4: a gap of 2.0, late
        await trio.sleep(2.1)
        assert not member.steady()
        nodes.delay["renew"] = 0.0  # on time again from 6.4: steady at 5.4 + 3
        await trio.sleep(5.0)
        nursery.cancel_scope.cancel()
    assert [round(t - start, 3) for t in nodes.reaps] == [0.0, 1.0, 2.0, 3.4, 8.4, 9.4, 10.4]
