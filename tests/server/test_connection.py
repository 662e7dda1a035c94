"""Lazy frames (a mover's copy of its own move): when they leave, over a real socket pair."""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest
import trio
import trio.testing

from server.connection import LAZY_FLUSH, LAZY_FLUSH_BUSY, Connection, LazyFlusher


class Peer:
    """The client end: when each chunk of bytes arrived (virtual time)."""

    def __init__(self, stream: trio.SocketStream) -> None:
        self.stream = stream
        self.arrivals: list[tuple[float, bytes]] = []

    async def run(self) -> None:
        while data := await self.stream.receive_some():
            self.arrivals.append((trio.current_time(), data))


@asynccontextmanager
async def lazy_connection() -> AsyncIterator[tuple[Connection, Peer]]:
    a, b = trio.socket.socketpair()
    flusher = LazyFlusher()
    conn = Connection(trio.SocketStream(a), max_frame=1024, queue=64, flusher=flusher)
    peer = Peer(trio.SocketStream(b))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(flusher.run)
        nursery.start_soon(peer.run)
        nursery.start_soon(conn.writer)
        yield conn, peer
        nursery.cancel_scope.cancel()


async def test_a_lazy_frame_rides_with_the_next_urgent_one(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with lazy_connection() as (conn, peer):
        conn.send_frame(b"own-update", urgent=False)
        await trio.sleep(0.01)
        assert peer.arrivals == []
        conn.send_frame(b"turn")
        await trio.sleep(0.2)
        assert [data for _, data in peer.arrivals] == [b"own-updateturn"]  # one write


async def test_a_lazy_frame_leaves_alone_within_lazy_flush(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with lazy_connection() as (conn, peer):
        await trio.sleep(0.013)  # between two ticks
        queued = trio.current_time()
        conn.send_frame(b"own-update", urgent=False)
        await trio.sleep(1.0)
        (arrived, data), *_ = peer.arrivals
        assert data == b"own-update"
        assert LAZY_FLUSH / 2 <= arrived - queued <= LAZY_FLUSH


async def test_a_newer_lazy_frame_is_not_flushed_with_an_older_generation(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with lazy_connection() as (conn, peer):
        conn.send_frame(b"a", urgent=False)
        conn.send_frame(b"b")  # a and b leave now; the connection stays in a's generation
        await trio.sleep(LAZY_FLUSH / 2 + 0.005)
        queued = trio.current_time()
        conn.send_frame(b"c", urgent=False)  # a newer generation
        await trio.sleep(1.0)
        assert [data for _, data in peer.arrivals] == [b"ab", b"c"]
        assert peer.arrivals[1][0] - queued >= LAZY_FLUSH / 2  # c got its full chance


async def test_a_busy_event_loop_holds_lazy_frames_longer(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the event loop's thread "worked" all the time: a CPU clock that runs with trio's
    fake_cpu = itertools.count()
    monkeypatch.setattr(time, "thread_time", lambda: trio.current_time() + next(fake_cpu) * 1e-9)
    async with lazy_connection() as (conn, peer):
        await trio.sleep(0.1)  # a few ticks: the flusher sees a busy loop
        queued = trio.current_time()
        conn.send_frame(b"own-update", urgent=False)
        await trio.sleep(1.0)
        (arrived, data), *_ = peer.arrivals
        assert data == b"own-update"
        assert LAZY_FLUSH_BUSY - LAZY_FLUSH / 2 <= arrived - queued <= LAZY_FLUSH_BUSY
