"""One node of an arena whose servers share one database (PostgreSQL).

Each `arena serve` on a shared database is a node: it registers itself in the
``nodes`` table with a lease (`ServerConfig.node_lease`, default 10 s) and
renews it every third of that. A node that stops renewing (kill -9, a frozen
host, a lost network) is dead once its lease expires: every node checks for
dead ones as often as it renews, and the first to find one ends that node's
running matches as aborted, in the same transaction that removes it, so each
is recorded exactly once (`store.interface.NodeTable.reap`). A node that
restarts is a new node; its old self is reaped like any dead one.

A node judges others only while its own contact with the database is steady:
after any registration or renewal that came late (more than half a lease
after the previous one, as when the database stalls on a slow disk, fails
over, or this host freezes), it waits one whole lease before it reaps again.
Everyone's renewals were held up by the same stall, so reaping at once would
declare live nodes dead and abort their matches; within one lease every live
node has renewed, and only the really dead ones are left to reap.

The node also keeps a view of the matches the other nodes are playing, read
from the database once a second, so that ``list`` and the web app's live
page show the whole arena without a database read per request. A remote
match appears once its row is written (at its start) and shows the plies
flushed so far (at most about a second behind). Each read is also handed to
`on_view`: server/remote_watch.py relays the other nodes' matches to the
spectators here, and its ``spectate "*"`` followers follow the new ones.

A clean stop ends this node's matches itself (as a single server does) and
removes its row at once.
"""

from __future__ import annotations

import math
import secrets
import socket
from collections.abc import Callable
from typing import TypeVar

import msgspec
import structlog
import trio

from protocol.messages import MatchInfo
from store.errors import StoreError
from store.interface import Database, RunningMatch

log = structlog.get_logger("arena.cluster")

#: seconds between two reads of the other nodes' matches
VIEW_INTERVAL = 1.0
#: the reason recorded for the matches of a node declared dead (and that node gives them)
REAPED = "its server (node) stopped answering"


def new_node_id() -> str:
    """A node id that names its host and is never reused: ``host-1a2b3c4d``."""
    host = socket.gethostname().split(".")[0][:24] or "node"
    return f"{host}-{secrets.token_hex(4)}"


class Cluster:
    """This server's membership in a shared database: its lease, the reaper, the arena's view."""

    def __init__(self, store: Database, lease: float, node: str | None = None) -> None:
        self.store = store
        self.lease = lease
        self.node = node or new_node_id()
        self.address = ""
        #: the other nodes' running matches, as last read
        self.remote: list[RunningMatch] = []
        self.lost_lease = False
        #: what to do with a message another node sent us (set by the lobby's seeks)
        self.on_message: Callable[[str], None] | None = None
        #: what to do when we learn we were declared dead (set by the server: end our matches,
        #: which a survivor has recorded as aborted, and offer our seeks again)
        self.on_lease_lost: Callable[[], None] | None = None
        #: told each new read of `remote` (server/remote_watch.py: followers follow new ones)
        self.on_view: Callable[[list[RunningMatch]], None] | None = None
        self._stopping = False
        #: trio time of our last registration or renewal (of asking for the first one), and
        #: of the last that came late
        self._last_contact = -math.inf
        self._late_at = -math.inf

    def _contact(self) -> None:
        """Note a registration or renewal that just returned."""
        now = trio.current_time()
        previous = self._last_contact
        if now - previous > self.lease / 2:
            self._late_at = now
            log.warning("node_contact_late", node=self.node, seconds=round(now - previous, 3))
        self._last_contact = now

    def steady(self) -> bool:
        """True once our contact with the database has been on time for a whole lease."""
        return trio.current_time() - self._late_at >= self.lease

    async def join(self, address: str) -> None:
        """Register (alive for one lease) and reap the nodes that died before we came (unless the
        registration itself came late: then the heartbeat reaps, once `steady`)."""
        self.address = address
        self._last_contact = trio.current_time()  # the registration is timed from its asking
        await trio.to_thread.run_sync(self.store.nodes.register, self.node, address, self.lease)
        self._contact()
        await self._reap()
        log.info("node_joined", node=self.node, address=address, lease=self.lease)

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Renew, reap and refresh the view until cancelled."""
        task_status.started()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._heartbeat)
            nursery.start_soon(self._watch)
            nursery.start_soon(self._listen)

    async def leave(self) -> None:
        """A clean stop: remove our row and our waiting seeks (our matches are ended)."""
        try:
            await trio.to_thread.run_sync(self.store.nodes.withdraw_node_seeks, self.node)
            await trio.to_thread.run_sync(self.store.nodes.leave, self.node)
        except StoreError as exc:
            log.warning("node_leave_failed", node=self.node, error=str(exc))

    def remote_infos(self) -> list[MatchInfo]:
        """`MatchInfo` of the other nodes' matches (``list``), from the last read."""
        return [
            MatchInfo(
                running.record.id,
                running.record.game,
                running.record.options,
                running.record.players,
                running.plies,
                "playing",
                node=running.record.tags.node,
            )
            for running in self.remote
        ]

    async def _heartbeat(self) -> None:
        while True:
            await trio.sleep(self.lease / 3)
            try:
                alive = await trio.to_thread.run_sync(self.store.nodes.renew, self.node, self.lease)
            except StoreError as exc:
                log.warning("node_renew_failed", node=self.node, error=str(exc))
                continue
            if not alive:
                # declared dead while we were cut off: our matches were ended by another
                # node; come back as a live node so new matches are ours again
                self.lost_lease = True
                log.error("node_lease_lost", node=self.node)
                if self.on_lease_lost is not None:
                    self.on_lease_lost()
                await trio.to_thread.run_sync(
                    self.store.nodes.register, self.node, self.address, self.lease
                )
            self._contact()
            await self._reap()

    async def _reap(self) -> None:
        if not self.steady():
            log.info("node_reap_deferred", node=self.node)
            return
        try:
            reaped = await trio.to_thread.run_sync(self.store.nodes.reap, REAPED)
        except StoreError as exc:
            log.warning("node_reap_failed", node=self.node, error=str(exc))
            return
        for dead, matches in reaped.items():
            log.warning("node_reaped", node=dead, by=self.node, aborted_matches=matches)

    async def _listen(self) -> None:
        """Hear what other nodes send us (a thread on a connection of its own), for ever."""
        token = trio.lowlevel.current_trio_token()

        def deliver(payload: str) -> None:
            if self.on_message is not None:
                self.on_message(payload)

        def blocking() -> None:
            for payload in self.store.nodes.listen(self.node, lambda: self._stopping):
                trio.from_thread.run_sync(deliver, payload, trio_token=token)

        try:
            while True:
                try:
                    await trio.to_thread.run_sync(blocking, abandon_on_cancel=True)
                except StoreError as exc:
                    log.warning("node_channel_lost", node=self.node, error=str(exc))
                await trio.sleep(1.0)  # the database is away: listen again
        finally:
            self._stopping = True

    async def _watch(self) -> None:
        while True:
            try:
                self.remote = await trio.to_thread.run_sync(self.store.nodes.running, self.node)
            except StoreError as exc:
                log.debug("node_view_failed", error=str(exc))
            else:
                if self.on_view is not None:
                    self.on_view(self.remote)
            await trio.sleep(VIEW_INTERVAL)


Note = TypeVar("Note")


def route(
    decode: Callable[[str], Note],
    handle: Callable[[Note], None],
    other: Callable[[str], None] | None,
) -> Callable[[str], None]:
    """A node's message handler in a chain: the payloads `decode` reads (its own kind of
    note) go to `handle`, every other payload to `other` (the next handler, if any)."""

    def deliver(payload: str) -> None:
        try:
            note = decode(payload)
        except msgspec.DecodeError:  # (a ValidationError too) not this handler's
            if other is not None:
                other(payload)
            return
        handle(note)

    return deliver
