"""Seeks on a shared database: a seek on one node pairs with a seek on another.

The pairing is decided in the database (`store.interface.NodeTable.offer_seek`):
a seek takes the oldest waiting seek with the same terms (game, options, time
control) or waits there itself, and two offers never take the same seek. The
node whose seeker took the other seek plays the match. When the other seeker
is on another node, that seat waits for its player (the reconnect grace,
`MatchPolicy.reconnect_grace`) and the other node is told, over the
database's notifications, to send its seeker ``redirect``: the address of the
node that plays the match and the seat's token, for ``rejoin`` there.

Only plain seeks travel: seeks in a pool, for a room, or for any time control
pair on their own node, as on a single server.
"""

from __future__ import annotations

import json
import secrets
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import msgspec
import structlog
import trio

from protocol.messages import Clock, Redirect, Seek, Seeking
from server.errors import RequestError
from store.records import StoreError

if TYPE_CHECKING:
    from games import Game
    from server.cluster import Cluster
    from server.connection import Connection
    from server.lobby import Lobby
    from server.match import Match

log = structlog.get_logger("arena.cluster")


def travels(message: Seek) -> bool:
    """Whether a seek pairs through the database (a plain seek) rather than on its node."""
    return not (message.pool or message.any_time)


class ClusterSeeks:
    """This node's seeks waiting in the shared database, and the redirects it sends."""

    def __init__(self, lobby: Lobby, cluster: Cluster) -> None:
        self.lobby = lobby
        self.cluster = cluster
        #: seek id -> the connection waiting with it here
        self.waiting: dict[str, Connection] = {}
        self.seek_of: dict[Connection, str] = {}
        #: seek id -> its connection, while its offer is in the database
        self.offering: dict[str, Connection] = {}
        #: seek id (still offering) -> the seeker here that took it; the offerer starts it
        self.taken: dict[str, Connection] = {}

    async def seek(self, conn: Connection, message: Seek) -> None:
        """Answer a plain seek: ``seeking``, then a match here or, later, a ``redirect``."""
        lobby = self.lobby
        game = lobby.game_for(message.game, message.options)
        move_time = lobby.move_time(message.move_time)
        lobby.require_store()
        lobby.cancel_seeks(conn)
        clock = message.clock
        default_clock = lobby.config.policy.clock
        if clock is None and message.move_time is None and default_clock is not None:
            clock = Clock(*default_clock)
        options = msgspec.json.encode(game.options).decode()
        terms = json.dumps(
            [
                game.name,
                options,
                move_time,
                None if clock is None else [clock.initial, clock.increment],
            ]
        )
        seek_id = secrets.token_urlsafe(12)
        self.offering[seek_id] = conn  # a seeker here may take it before the offer returns
        try:
            other = await trio.to_thread.run_sync(
                self.cluster.store.nodes.offer_seek, seek_id, self.cluster.node, conn.name, terms
            )
        except StoreError as exc:
            raise RequestError("store_unavailable", f"cannot seek now: {exc}") from None
        finally:
            self.offering.pop(seek_id, None)
        taker = self.taken.pop(seek_id, None)  # a seeker here took ours meanwhile
        conn.send(
            Seeking(
                game=game.name,
                options=game.options,
                move_time=move_time,
                clock=clock,
                paired=other is not None or taker is not None,
            ),
            urgent=False,
        )
        if taker is not None:
            self._start(game, [conn, taker], move_time, clock)
            return
        if other is None:
            if conn.closed:  # it left while the database answered
                await self._withdraw(seek_id)
                return
            self.waiting[seek_id] = conn
            self.seek_of[conn] = seek_id
            return
        if other.node == self.cluster.node:
            partner = self.waiting.pop(other.id, None)
            if partner is not None:
                self.seek_of.pop(partner, None)
                self._start(game, [conn, partner], move_time, clock)
            elif other.id in self.offering:  # its offer is still on its way back: it starts it
                self.taken[other.id] = conn
            else:  # it left: its seat waits out the grace
                self._start(game, [conn, other.name], move_time, clock)
            return
        match = self._start(game, [conn, other.name], move_time, clock)
        seat = next(s for s in match.seats if s.conn is None)
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

    def _start(
        self,
        game: Game[Any, Any],
        players: list[Connection | str],
        move_time: float,
        clock: Clock | None,
    ) -> Match:
        """Start the match here, seats in random order (a name: a player still to come)."""
        lobby = self.lobby
        lobby.rng.shuffle(players)
        policy = replace(lobby.config.policy, move_time=move_time)
        return lobby.start_match(game, players, policy, clock=clock)

    def cancel(self, conn: Connection) -> None:
        """The connection's seek is over here (a new request, or it left): withdraw it."""
        seek_id = self.seek_of.pop(conn, None)
        if seek_id is None:
            return
        self.waiting.pop(seek_id, None)
        self.lobby.nursery.start_soon(self._withdraw, seek_id)

    async def _withdraw(self, seek_id: str) -> None:
        try:
            await trio.to_thread.run_sync(self.cluster.store.nodes.withdraw_seek, seek_id)
        except StoreError as exc:  # its node's seeks go when the node does
            log.warning("seek_withdraw_failed", seek=seek_id, error=str(exc))

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
        conn = self.waiting.pop(seek_id, None)
        if conn is None:
            log.info("redirect_for_a_gone_seeker", match=match)
            return
        self.seek_of.pop(conn, None)
        self.lobby.member(conn).seek_key = None
        conn.send(redirect)
        log.info("redirected", match=match, to=f"{redirect.host}:{redirect.port}", conn=conn.id)
