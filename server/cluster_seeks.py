"""Seeks on a shared database: a seek on one node pairs with a seek on another.

A seek first pairs on its own node, in memory: with the oldest compatible seek
(same game, options and time control) waiting there. One that finds none waits
`ServerConfig.seek_hold` seconds on its node, where a compatible seek arriving
there takes it, and then offers itself in the database
(`store.interface.NodeTable.offer_seek`): it takes the oldest compatible seek
waiting there, of any node, or waits there itself; two offers never take the
same seek. A seeker here takes a seek of this node that waits in the database
by withdrawing it (`withdraw_seek`), so a seek is taken once, here or by
another node. The database thus sees only the seeks that their own node could
not pair at once.

The node whose seeker took the other seek plays the match. When the other
seeker is on another node, that seat waits for its player (the reconnect
grace, `MatchPolicy.reconnect_grace`) and the other node is told, over the
database's notifications, to send its seeker ``redirect``: the address of the
node that plays the match and the seat's token, for ``rejoin`` there.

Only plain seeks travel: seeks in a pool, for a room, or for any time control
pair on their own node, as on a single server.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import msgspec
import structlog
import trio

from protocol.messages import Clock, Redirect, Seek, Seeking
from store.errors import StoreError
from store.interface import WaitingSeek

if TYPE_CHECKING:
    from games import Game
    from server.cluster import Cluster
    from server.connection import Connection
    from server.lobby import Lobby
    from server.match import Match

log = structlog.get_logger("arena.cluster")


def travels(message: Seek) -> bool:
    """Whether a seek pairs through the database (a plain seek) rather than on its node
    (a ladder's bots are paired by the node they are connected to)."""
    return not (message.pool or message.any_time or message.ladder)


@dataclass(frozen=True, eq=False)
class _Terms:
    """What two seeks must share to pair: game, options and time control."""

    #: their JSON, the key in the database and here
    key: str
    game: Game[Any, Any]
    move_time: float
    clock: Clock | None


@dataclass(eq=False)
class _Seek:
    """A seek of this node, from its arrival until it pairs or is withdrawn."""

    id: str
    conn: Connection
    terms: _Terms
    #: "held" (only here), "offering" (its offer is on its way to the database),
    #: "waiting" (in the database), "taking" (a seeker here is withdrawing it to pair)
    state: str = "held"
    #: it was offered once: the database may hold it, so its end withdraws it there
    offered: bool = False


class ClusterSeeks:
    """This node's plain seeks: paired here when possible, else through the database."""

    def __init__(self, lobby: Lobby, cluster: Cluster, hold: float | None = None) -> None:
        self.lobby = lobby
        self.cluster = cluster
        #: seconds a seek waits on its node before it is offered in the database
        self.hold = lobby.config.seek_hold if hold is None else hold
        self.seeks: dict[str, _Seek] = {}
        self.seek_of: dict[Connection, _Seek] = {}
        #: terms -> ids of the seeks a new seeker here may take (held or waiting), oldest first
        self.open: dict[str, dict[str, None]] = {}
        #: seek id (still offering) -> the seeker here that took it; the offerer starts it
        self.taken: dict[str, Connection | str] = {}

    async def seek(self, conn: Connection, message: Seek) -> None:
        """Answer a plain seek: ``seeking``, then a match here or, later, a ``redirect``."""
        lobby = self.lobby
        game = lobby.game_for(message.game, message.options)
        move_time = lobby.move_time(message.move_time)
        lobby.require_store()
        lobby.cancel_seeks(conn)
        clock = message.clock
        if clock is None and message.move_time is None:
            clock = lobby.config.policy.clock  # the server's default, if any
        options = msgspec.json.encode(game.options).decode()
        key = json.dumps(
            [
                game.name,
                options,
                move_time,
                None if clock is None else [clock.initial, clock.increment],
            ]
        )
        terms = _Terms(key, game, move_time, clock)
        partner = await self._take_here(conn, terms)
        if conn.closed:  # it left while a seek here was being taken
            if partner is not None:
                self._hold(partner)
            return
        conn.send(
            Seeking(
                game=game.name,
                options=game.options,
                move_time=move_time,
                clock=clock,
                paired=partner is not None,
            ),
            urgent=False,
        )
        if partner is not None:
            self._start(terms, [conn, partner.conn])
            return
        self._hold(_Seek(secrets.token_urlsafe(12), conn, terms))

    def _hold(self, seek: _Seek) -> None:
        """Keep a seek here, open to seekers here; offer it in the database after the hold."""
        seek.state = "held"
        self.seeks[seek.id] = seek
        self.seek_of[seek.conn] = seek
        self.open.setdefault(seek.terms.key, {})[seek.id] = None
        self.lobby.nursery.start_soon(self._offer, seek)

    def _shut(self, seek: _Seek) -> None:
        """No seeker here may take it any more."""
        ids = self.open.get(seek.terms.key)
        if ids is not None:
            ids.pop(seek.id, None)
            if not ids:
                del self.open[seek.terms.key]

    def _drop(self, seek: _Seek) -> None:
        """It paired, was redirected or withdrawn: forget it."""
        self._shut(seek)
        if self.seeks.get(seek.id) is seek:
            del self.seeks[seek.id]
        if self.seek_of.get(seek.conn) is seek:
            del self.seek_of[seek.conn]

    async def _take_here(self, conn: Connection, terms: _Terms) -> _Seek | None:
        """The oldest compatible seek of this node, taken for `conn`; None if there is none."""
        while not conn.closed and (ids := self.open.get(terms.key)):
            seek = self.seeks[next(iter(ids))]
            self._shut(seek)
            if seek.conn.closed or seek.conn is conn:
                self._drop(seek)
                continue
            if seek.state == "held":
                self._drop(seek)
                if seek.offered:  # an offer that failed may have reached the database
                    self.lobby.nursery.start_soon(self._withdraw, seek.id)
                return seek
            seek.state = "taking"  # it waits in the database: take it there first
            try:
                took = await trio.to_thread.run_sync(
                    self.cluster.store.nodes.withdraw_seek, seek.id
                )
            except StoreError as exc:
                log.warning("seek_take_failed", seek=seek.id, error=str(exc))
                if self.seeks.get(seek.id) is seek:  # it still waits in the database
                    seek.state = "waiting"
                    self.open.setdefault(seek.terms.key, {})[seek.id] = None
                return None
            if took and self.seeks.get(seek.id) is seek:
                self._drop(seek)
                return seek
            # taken by another node (its redirect is on the way), or it left meanwhile
        return None

    async def _offer(self, seek: _Seek) -> None:
        """After the hold, offer a seek nobody here took in the database; retry on failure."""
        delay = self.hold
        while True:
            await trio.sleep(delay)
            if self.seeks.get(seek.id) is not seek or seek.state != "held":
                return  # paired here, or gone
            self._shut(seek)
            seek.state = "offering"
            seek.offered = True
            try:
                other = await trio.to_thread.run_sync(
                    self.cluster.store.nodes.offer_seek,
                    seek.id,
                    self.cluster.node,
                    seek.conn.name,
                    seek.terms.key,
                )
            except StoreError as exc:  # it still pairs here; offered again later
                log.warning("seek_offer_failed", seek=seek.id, error=str(exc))
                if self.seeks.get(seek.id) is not seek:
                    return
                seek.state = "held"
                self.open.setdefault(seek.terms.key, {})[seek.id] = None
                delay = min(max(2 * delay, 0.5), 5.0)
                continue
            self._offered(seek, other)
            return

    def _offered(self, seek: _Seek, other: WaitingSeek | None) -> None:
        """What an offer found in the database: nothing (it waits there) or a seek to pair."""
        # it left, or its connection asked something else, while the offer was on its way
        # (or another node took it at once and it was redirected)
        gone = self.seeks.get(seek.id) is not seek
        me: Connection | str = seek.conn.name if gone else seek.conn
        self._drop(seek)
        taker = self.taken.pop(seek.id, None)  # a seeker here took ours meanwhile
        if taker is not None:
            self._start(seek.terms, [me, taker])
            return
        if other is None:
            if gone:
                self.lobby.nursery.start_soon(self._withdraw, seek.id)
            else:
                seek.state = "waiting"
                self.seeks[seek.id] = seek
                self.seek_of[seek.conn] = seek
                self.open.setdefault(seek.terms.key, {})[seek.id] = None
            return
        if other.node == self.cluster.node:
            partner = self.seeks.get(other.id)
            if partner is not None and partner.state == "offering":
                # its offer is still on its way back: it starts the match
                self.taken[other.id] = me
                return
            if partner is not None:
                self._drop(partner)
                self._start(seek.terms, [me, partner.conn])
            else:  # it left: its seat waits out the grace
                self._start(seek.terms, [me, other.name])
            return
        match = self._start(seek.terms, [me, other.name])
        self.lobby.nursery.start_soon(self._redirect, match, other)

    async def _redirect(self, match: Match, other: WaitingSeek) -> None:
        """Tell the other seeker's node to send it ``redirect`` to this node's match."""
        seat = next(s for s in match.seats if s.conn is None and s.name == other.name)
        host, _, port = self.cluster.address.rpartition(":")
        payload = json.dumps(
            {
                "seek": other.id,
                "match": match.id,
                "token": seat.token,
                "host": host,
                "port": int(port),
            }
        )
        try:
            await trio.to_thread.run_sync(self.cluster.store.nodes.notify, other.node, payload)
        except StoreError as exc:  # the seat waits out its grace: the match is aborted
            log.warning("redirect_not_sent", match=match.id, node=other.node, error=str(exc))
        log.info("paired_across_nodes", match=match.id, other_node=other.node)

    def _start(self, terms: _Terms, players: list[Connection | str]) -> Match:
        """Start the match here, seats in random order (a name: a player still to come;
        a seeker whose offer took a seek but who left meanwhile forfeits after the grace)."""
        lobby = self.lobby
        players = [p if isinstance(p, str) or not p.closed else p.name for p in players]
        lobby.rng.shuffle(players)
        policy = replace(lobby.config.policy, move_time=terms.move_time)
        return lobby.start_match(terms.game, players, policy, clock=terms.clock)

    def cancel(self, conn: Connection) -> None:
        """The connection's seek is over here (a new request, or it left): withdraw it."""
        seek = self.seek_of.get(conn)
        if seek is None:
            return
        self._drop(seek)
        if seek.state in ("waiting", "taking") or (seek.state == "held" and seek.offered):
            self.lobby.nursery.start_soon(self._withdraw, seek.id)
        # "offering": the offer's answer withdraws it (`_offered`)

    async def _withdraw(self, seek_id: str) -> None:
        try:
            await trio.to_thread.run_sync(self.cluster.store.nodes.withdraw_seek, seek_id)
        except StoreError as exc:  # its node's seeks go when the node does
            log.warning("seek_withdraw_failed", seek=seek_id, error=str(exc))

    def republish(self) -> None:
        """This node was declared dead and its seeks removed from the database: hold the
        seeks that waited there, to offer them again."""
        for seek in list(self.seeks.values()):
            if seek.state == "waiting":
                seek.state = "held"
                seek.offered = False
                self.lobby.nursery.start_soon(self._offer, seek)

    def on_message(self, payload: str) -> None:
        """A message from another node: a seek of ours was taken there."""
        try:
            message: dict[str, Any] = json.loads(payload)
            seek_id, match = str(message["seek"]), str(message["match"])
            redirect = Redirect(
                match=match,
                host=str(message["host"]),
                port=int(message["port"]),
                token=str(message["token"]),
            )
        except (ValueError, KeyError, TypeError):
            log.warning("node_message_unreadable", payload=payload[:200])
            return
        seek = self.seeks.get(seek_id)
        if seek is None:
            log.info("redirect_for_a_gone_seeker", match=match)
            return
        self._drop(seek)
        conn = seek.conn
        self.lobby.member(conn).seek_key = None
        conn.send(redirect)
        log.info("redirected", match=match, to=f"{redirect.host}:{redirect.port}", conn=conn.id)
