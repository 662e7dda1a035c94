"""Pools on a shared database: a pool spans the nodes, and its director may talk to any.

Behind a load balancer a tournament's players land on different nodes. Each
pool seek still waits on its own node (its connection is there), and is also
published in the database (`store.interface.PoolTables`), so that the
pool's director, on whatever node, sees every seeker of the arena: its node
reads the seekers of the pools it directs whenever something changes there
(a seeker's node tells the director's, which the database names) and every
`VIEW_INTERVAL` seconds, and sends the director ``pool`` when the idle
counts change (only seekers whose name and secret the director admitted
count; a seeker on another node that is not admitted is told ``bad_secret``
through its node).

``pair`` takes the chosen seekers from the database in one transaction, all
or none, so a seeker is paired once whoever else pairs at the same moment; it
prefers the seekers of the director's node. The match is played on the
director's node (so its ``match_end``, ``adjudicate`` and the one-game-once
rule stay where they are on a single server); a seeker waiting on another
node is sent ``redirect`` by its node (told over the database's
notifications, as for plain seeks, server/cluster_seeks.py) and rejoins with
the seat's token.

A pool's owner is the arena's, not a node's: ``direct`` claims the pool in
the database (`PoolTables.claim`), so another owner key is refused on every
node, and the owner's director may move to another node (the one it leaves
is told, and tells its director ``director_replaced``).

A seek that ends here (the seeker asks for something else, or leaves) is
withdrawn from the database; a node that stops or dies takes its seekers with
it (`NodeTable.withdraw_node_seeks`, `NodeTable.reap`). With one server (no
shared database) none of this exists: the pool desk pairs in memory.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import msgspec
import structlog
import trio

from protocol.messages import Direct, Pair, PoolStatus, Redirect
from server.cluster import route
from server.errors import RequestError
from server.pool_desk import not_available
from server.pools import Pool, PooledSeek, new_owner_key, owner_digest, secret_digest
from store.errors import StoreError
from store.interface import PoolSeeker

if TYPE_CHECKING:
    from games import Game
    from server.cluster import Cluster
    from server.connection import Connection
    from server.lobby import Lobby
    from store import TournamentGame

log = structlog.get_logger("arena.cluster")

#: seconds between two reads of the seekers of the pools directed here
VIEW_INTERVAL = 0.25


def pool_terms(game: Game[Any, Any]) -> str:
    """What a pool seek plays, as the database compares it (equal text, equal terms)."""
    return json.dumps([game.name, game.options], sort_keys=True)


class _Note(msgspec.Struct, frozen=True, omit_defaults=True):
    """What one node tells another about a pool (over the database's notifications):
    a seeker of yours is taken (``redirect`` it to `host`:`port` with `token`) or is
    ``refused``; your director of the pool is ``replaced``; a seeker ``changed`` it."""

    pool: str
    kind: Literal["redirect", "refused", "replaced", "changed"]
    seek: str = ""
    match: str = ""
    token: str = ""
    host: str = ""
    port: int = 0


@dataclass(eq=False)
class _Local:
    """A pool seek of this node, from its arrival until it pairs or is withdrawn."""

    entry: PooledSeek
    pool: str
    #: its row is being written ("publishing") or is in the database ("waiting")
    state: Literal["publishing", "waiting"] = "publishing"
    #: it no longer waits here: once written, its row is withdrawn
    gone: bool = False


class ClusterPools:
    """This node's part of the arena's pools (set as the pool desk's `span`)."""

    def __init__(self, lobby: Lobby, cluster: Cluster, interval: float = VIEW_INTERVAL) -> None:
        self.lobby = lobby
        self.desk = lobby.desk
        self.cluster = cluster
        self.interval = interval
        #: this node's pool seeks by id
        self.local: dict[str, _Local] = {}
        self._by_pool: dict[str, dict[str, _Local]] = {}
        #: the idle counts last sent to each pool's director here, and the pools whose
        #: director is sent ``pool`` at the next read whatever it finds
        self._sent: dict[str, dict[str, int]] = {}
        self._forced: set[str] = set()
        #: seekers of other nodes told they are not admitted
        self._refused: set[str] = set()
        #: pool -> takes begun or ended: a read that a take overlapped may show its seekers
        self._takes: dict[str, int] = {}
        self._wake = trio.Event()
        #: pools whose director talks to this node, as the database knows it
        self._directed: set[str] = set()
        #: matches paired with seekers of other nodes
        self.paired_across = 0

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Keep the directors here told of their pools' seekers on every node, for ever."""
        task_status.started()
        while True:
            with trio.move_on_after(self.interval):
                await self._wake.wait()
            self._wake = trio.Event()
            await self._refresh()

    # --- this node's seekers ------------------------------------------------------------

    def changed(self, name: str) -> None:
        """A pool here changed: publish its new seekers, withdraw those gone, and tell its
        director (if here) at once."""
        pool = self.desk.pools.get(name)
        current = {} if pool is None else {entry.id: entry for entry in pool.seeks}
        known = self._by_pool.setdefault(name, {})
        for seek_id, local in list(known.items()):
            if seek_id not in current:
                self._forget(local)
        for seek_id, entry in current.items():
            if seek_id not in known:
                local = known[seek_id] = self.local[seek_id] = _Local(entry, name)
                self.lobby.nursery.start_soon(self._publish, local)
        if not known:
            del self._by_pool[name]
        if pool is not None and pool.director is not None:
            self._forced.add(name)
            self._wake.set()
        elif name in self._directed:  # its director left this node
            self._directed.discard(name)
            self._disown(pool)
            self.lobby.nursery.start_soon(self._release_pool, name)

    def _forget(self, local: _Local) -> None:
        """It no longer waits here (paired, redirected, withdrawn): withdraw its row."""
        seek_id = local.entry.id
        self.local.pop(seek_id, None)
        known = self._by_pool.get(local.pool)
        if known is not None:
            known.pop(seek_id, None)  # (an empty record goes at the pool's next change)
        if not local.gone:
            local.gone = True
            if local.state == "waiting":
                self.lobby.nursery.start_soon(self._withdraw, seek_id)
            # "publishing": the writer withdraws it once its row is written

    async def _publish(self, local: _Local) -> None:
        entry = local.entry
        row = PoolSeeker(
            entry.id,
            local.pool,
            self.cluster.node,
            entry.conn.name,
            secret_digest(entry.seek.secret),
            pool_terms(entry.game),
        )
        delay = 0.5
        director = ""
        while not local.gone:
            try:
                director = await trio.to_thread.run_sync(self.cluster.store.pools.add, row)
            except StoreError as exc:  # the seeker waits here; written again later
                log.warning("pool_seek_publish_failed", seek=entry.id, error=str(exc))
                await trio.sleep(delay)
                delay = min(2 * delay, 5.0)
                continue
            local.state = "waiting"
            break
        if local.gone:  # it left meanwhile (or was taken): its row goes (if it is there)
            await self._withdraw(entry.id)
            return
        pool = self.desk.pools.get(local.pool)
        if director == self.cluster.node or (pool is not None and pool.director is not None):
            self._wake.set()
        elif director:  # its director reads at once, not at its next look
            self._send(director, _Note(local.pool, "changed"))

    def republish(self) -> None:
        """This node was declared dead (frozen or cut off past its lease) and a survivor
        removed its pool seeks from the database: write those still waiting here again."""
        for local in list(self.local.values()):
            if local.state == "waiting" and not local.gone:
                local.state = "publishing"
                self.lobby.nursery.start_soon(self._publish, local)

    async def _withdraw(self, seek_id: str) -> None:
        try:
            await trio.to_thread.run_sync(self.cluster.store.pools.withdraw, seek_id)
        except StoreError as exc:  # its node's seekers go when the node does
            log.warning("pool_seek_withdraw_failed", seek=seek_id, error=str(exc))

    def _release(self, seek_id: str, *, taken: bool) -> _Local | None:
        """Take a seeker of this node out of its pool: it pairs (`taken`: its row is gone
        already) or is refused (its row is withdrawn). None if it no longer waits here."""
        local = self.local.get(seek_id)
        if local is None:
            return None
        local.gone = local.gone or taken
        self._forget(local)
        entry = local.entry
        pool = self.desk.pools.get(local.pool)
        if pool is not None:
            pool.seeks = [e for e in pool.seeks if e is not entry]
        held = self.lobby.members.get(entry.conn)
        if held is not None:
            held.pool_seeks.discard(local.pool)
        if pool is not None:
            self.desk.pool_maybe_idle(pool)
        return local

    # --- the directors here -------------------------------------------------------------

    async def _refresh(self) -> None:
        """Read the seekers of the pools directed here; tell each director what changed."""
        directed = [name for name, pool in self.desk.pools.items() if pool.director is not None]
        for record in (self._sent, self._takes):
            for name in [name for name in record if name not in directed]:
                del record[name]
        if not directed:
            self._forced.clear()
            return
        takes = dict(self._takes)
        try:
            rows = await trio.to_thread.run_sync(self.cluster.store.pools.waiting, directed)
        except StoreError as exc:
            log.warning("pool_view_failed", error=str(exc))
            return
        by_pool: dict[str, list[PoolSeeker]] = {}
        for row in rows:
            by_pool.setdefault(row.pool, []).append(row)
        seen: set[str] = set()
        for name in directed:
            pool = self.desk.pools.get(name)
            if pool is None or pool.director is None:
                continue
            if self._takes.get(name) != takes.get(name):  # it may show seekers just taken
                self._wake.set()
                continue
            idle: dict[str, int] = {}
            digests = {player: secret_digest(secret) for player, secret in pool.players.items()}
            for row in by_pool.get(name, ()):
                seen.add(row.id)
                expected = digests.get(row.name)
                if expected is not None and hmac.compare_digest(expected, row.secret):
                    idle[row.name] = idle.get(row.name, 0) + 1
                elif pool.owner is not None and row.id not in self._refused:
                    self._refused.add(row.id)
                    self._send(row.node, _Note(name, "refused", seek=row.id))
            if idle != self._sent.get(name) or name in self._forced:
                self._forced.discard(name)
                self._sent[name] = idle
                pool.director.send(PoolStatus(pool=name, idle=idle))
        self._refused &= seen

    def _force(self, name: str) -> None:
        """The director's next ``pool`` comes whatever the next read finds."""
        self._forced.add(name)
        self._wake.set()

    async def direct(self, conn: Connection, message: Direct) -> None:
        """``direct`` a pool of the arena: its owner is the database's, whatever node its
        director talked to before (that node's director is told ``director_replaced``)."""
        self.desk.check_directing(conn, message.pool)
        key = message.owner or new_owner_key()
        node = self.cluster.node
        try:
            claim = await trio.to_thread.run_sync(
                self.cluster.store.pools.claim,
                message.pool,
                owner_digest(key),
                node,
                self.lobby.config.pool_grace,
            )
        except StoreError as exc:
            raise RequestError("store_unavailable", str(exc)) from None
        if claim.owner != owner_digest(key):
            raise RequestError(
                "not_owner",
                f"pool {message.pool!r} belongs to another owner: direct it with its owner key",
            )
        self._directed.add(message.pool)
        if conn.closed:  # it left while the claim was on its way
            self.changed(message.pool)
            return
        self.desk.take_direction(conn, message, key)
        if claim.previous and claim.previous != node:
            self._send(claim.previous, _Note(message.pool, "replaced"))

    async def _release_pool(self, name: str) -> None:
        try:
            await trio.to_thread.run_sync(self.cluster.store.pools.release, name, self.cluster.node)
        except StoreError as exc:  # it stays ours until this node goes
            log.warning("pool_release_failed", pool=name, error=str(exc))

    async def pair(self, conn: Connection, message: Pair, ended: TournamentGame | None) -> None:
        """``pair`` in a pool that spans the nodes: take the seekers in the database, play
        here, redirect those of other nodes."""
        desk = self.desk
        pool = desk.check_director(conn, message.pool)
        if desk.answer_existing(conn, message, ended):
            return
        self._check_elsewhere(pool.owner or "", message)
        terms = desk.pair_terms(message)
        game = terms[0]
        seats = []
        for name in message.seats:
            secret = pool.players.get(name)
            if secret is None:
                raise not_available(name, game, message.pool)
            seats.append((name, secret_digest(secret)))
        node = self.cluster.node
        self._takes[pool.name] = self._takes.get(pool.name, 0) + 1
        try:
            taken = await trio.to_thread.run_sync(
                self.cluster.store.pools.take, pool.name, seats, pool_terms(game), node
            )
        except StoreError as exc:
            raise RequestError("store_unavailable", str(exc)) from None
        finally:
            self._takes[pool.name] = self._takes.get(pool.name, 0) + 1
        if taken is None:
            self._force(pool.name)
            raise not_available(_missing(message.seats), game, message.pool)
        # this node's seekers must still be here; a row of one that left is stale
        stale = [
            row
            for row in taken
            if row.node == node
            and ((local := self.local.get(row.id)) is None or local.entry.conn.closed)
        ]
        directing = desk.pools.get(pool.name) is pool and pool.director is conn
        if stale or not directing:  # the others wait on: their rows go back
            try:
                for row in taken:
                    if row not in stale:
                        await trio.to_thread.run_sync(self.cluster.store.pools.add, row)
            except StoreError as exc:
                log.warning("pool_seek_restore_failed", error=str(exc))
            self._force(pool.name)
            if stale:
                raise not_available(stale[0].name, game, message.pool)
            raise RequestError("not_director", f"you do not direct pool {message.pool!r}")
        players: list[Connection | str] = []
        for row in taken:
            local = self._release(row.id, taken=True) if row.node == node else None
            players.append(row.name if local is None else local.entry.conn)
        match = desk.start_paired(conn, pool, message, terms, players)
        away = [(seat, row) for seat, row in enumerate(taken) if row.node != node]
        if away:
            self.paired_across += 1
            log.info("pool_paired_across_nodes", match=match.id, pool=pool.name, seats=len(away))
        host, _, port = self.cluster.address.rpartition(":")
        for seat, row in away:
            token = match.seats[seat].token
            note = _Note(pool.name, "redirect", row.id, match.id, token, host, int(port))
            self._send(row.node, note)

    def _check_elsewhere(self, owner: str, message: Pair) -> None:
        """A tournament game is played once: refuse one that another node plays (its
        director talked to that node before; seen as of this node's last look, a second)."""
        if not message.tournament:
            return
        for running in self.cluster.remote:
            record = running.record
            if (
                record.tournament == message.tournament
                and record.tags.index == message.index
                and (record.tags.owner or "") == owner
            ):
                raise RequestError(
                    "not_available",
                    f"game {message.index} of {message.tournament!r} is being played on node"
                    f" {record.tags.node}: ask again once it has ended",
                )

    # --- between the nodes --------------------------------------------------------------

    def _send(self, node: str, note: _Note) -> None:
        self.lobby.nursery.start_soon(self._notify, node, msgspec.json.encode(note).decode())

    async def _notify(self, node: str, payload: str) -> None:
        try:
            await trio.to_thread.run_sync(self.cluster.store.nodes.notify, node, payload)
        except StoreError as exc:  # a redirect lost: the seat waits out its grace
            log.warning("pool_message_not_sent", node=node, error=str(exc))

    def route(self, other: Callable[[str], None] | None) -> Callable[[str], None]:
        """The node's message handler: pool notes here, the other messages to `other`."""
        return route(msgspec.json.Decoder(_Note).decode, self.on_note, other)

    def on_note(self, note: _Note) -> None:
        """Another node took a seeker of ours (``redirect`` it), does not admit it, has the
        director of a pool directed here before, or has a new seeker in a pool directed
        here."""
        if note.kind == "replaced":
            self._replaced(note.pool)
            return
        if note.kind == "changed":
            self._wake.set()
            return
        local = self._release(note.seek, taken=note.kind == "redirect")
        if local is None:
            log.info("pool_note_for_a_gone_seeker", kind=note.kind, seek=note.seek)
            return
        conn = local.entry.conn
        if note.kind == "redirect":
            conn.send(Redirect(match=note.match, host=note.host, port=note.port, token=note.token))
            log.info(
                "redirected",
                match=note.match,
                to=f"{note.host}:{note.port}",
                conn=conn.id,
                pool=local.pool,
            )
        else:
            conn.send_error(
                "bad_secret",
                f"{conn.name!r} is not admitted to pool {local.pool!r}"
                " (unknown name or wrong secret)",
            )
        self.desk.pool_changed(local.pool)

    def _replaced(self, name: str) -> None:
        """The pool's owner directs it from another node now: our director is replaced.
        (Two takeovers by one owner key within the same instant are not ordered here.)"""
        self._directed.discard(name)
        pool = self.desk.pools.get(name)
        if pool is not None and pool.director is not None:
            log.info("pool_director_moved", pool=name)
            self.desk.replace_director(pool, None)
        self._disown(pool)

    def _disown(self, pool: Pool | None) -> None:
        """No director here: the database keeps the pool's owner, and whichever node its
        next director talks to judges its seekers (this node forgets its list)."""
        if pool is not None and pool.director is None:
            pool.owner = None
            pool.players = {}
            self.desk.pool_maybe_idle(pool)


def _missing(seats: list[str]) -> str:
    """The seat named in a ``not_available`` refusal when the database says only "not all"."""
    return seats[0] if len(set(seats)) == 1 else ", ".join(dict.fromkeys(seats))


__all__ = ["VIEW_INTERVAL", "ClusterPools", "pool_terms"]
