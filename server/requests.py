"""What a client asks after its hello: each request paced, answered or refused.

Two ways in, one set of answers. The reactor calls `answer_now` for what it
reads from an idle connection: everything that needs no waiting is answered
there, in the same task step (a move in turn; a request within the client's
message rate). The connection's own task takes the rest: `pace` makes a
client over its rate wait (the flood waits in the kernel's buffers), and
`answer` may wait for the records database (`pair`; on a shared database a
plain seek, and `spectate` of a match of another node it does not know yet). A refusal is an
``error`` with a documented code (`refuse`); wrong credentials also spend the
much tighter failure budget (`credential_failed`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import msgspec
import structlog
import trio

from protocol.messages import (
    Accept,
    Adjudicate,
    ClientMessage,
    Direct,
    Hello,
    Join,
    ListMatches,
    Mark,
    Matches,
    MatchInfo,
    Move,
    Pair,
    Ping,
    Pong,
    Rejoin,
    Resign,
    Resume,
    Seek,
    ServerStatus,
    Spectate,
    Status,
)
from server.cluster import Cluster
from server.cluster_seeks import ClusterSeeks, travels
from server.config import ServerConfig, how_to_set
from server.connection import Connection
from server.limits import Addresses, ClientBudget, address_of
from server.lobby import Lobby, RequestError
from server.remote_watch import RemoteWatch
from store import Recorder, StoreUnavailable

log = structlog.get_logger("arena.server")

#: refusals that mean a wrong credential: they spend the much tighter failure budget
CREDENTIAL_FAILURES = frozenset({"bad_secret", "bad_token", "not_owner"})
#: what any role may send; a spectator's other requests are refused with ``wrong_role``
#: before anything else is looked at (docs/PROTOCOL.md, "Error codes")
ANY_ROLE = (Ping, Pong, Status, ListMatches, Spectate, Hello)


class Requests:
    """Answers a connected client's messages; `lobby` is set while the server runs."""

    def __init__(
        self,
        config: ServerConfig,
        addresses: Addresses,
        recorder: Recorder,
        status: Callable[[], ServerStatus],
    ) -> None:
        self.config = config
        self.addresses = addresses
        self.recorder = recorder
        self._status = status
        self.lobby: Lobby | None = None
        #: this node, when several servers share the database (its view of the others)
        self.cluster: Cluster | None = None
        #: its seeks, which pair through the database
        self.cluster_seeks: ClusterSeeks | None = None
        #: the other nodes' matches, relayed to spectators here
        self.remote_watch: RemoteWatch | None = None

    def match_list(self) -> list[MatchInfo]:
        """The ``list`` answer: this server's matches, then those of the other nodes."""
        assert self.lobby is not None
        local = [match.info() for match in self.lobby.matches.values()]
        if self.cluster is None:
            return local
        node = self.cluster.node
        here = {info.match for info in local}
        return [msgspec.structs.replace(info, node=node) for info in local] + [
            info for info in self.cluster.remote_infos() if info.match not in here
        ]

    def answer_now(self, conn: Connection, message: ClientMessage) -> bool:
        """Answer a message in the reactor, without waking the connection's task.

        That is everything that needs no waiting: a move in turn, and any
        request within the client's message rate except `pair` (which may read
        the database). False hands the message to the task, which answers it
        the long way: a refused move (it charges the client for it), a request
        over the rate (it makes it wait), `pair`.
        """
        if self.lobby is None:
            return False
        if type(message) is Move:
            try:
                self._answer(conn, message)
            except RequestError:  # refused before anything changed: the task answers it
                return False
            return True
        budget, shared = conn.budget, conn.shared_budget
        if type(message) is Pair or budget is None or shared is None:
            return False
        if type(message) is Direct and self.lobby.desk.span is not None:
            return False  # the pool's owner is the shared database's: the task asks it
        if type(message) is Seek and self.cluster_seeks is not None and travels(message):
            return False  # pairs through the shared database: the task waits for it
        if type(message) is Spectate and not self._known(message):
            return False  # perhaps another node's match: the task looks for it in the database
        if not self._charge(conn, budget, shared, conn.last_received):
            return False
        try:
            self._answer(conn, message)
        except RequestError as exc:
            self.refuse(conn, message, exc)
        return True

    def _known(self, message: Spectate) -> bool:
        """Whether `spectate` is answered without a database read (True on a single server)."""
        return self.remote_watch is None or self.remote_watch.knows(message.match)

    def refuse(self, conn: Connection, message: Any, exc: RequestError) -> None:
        """Tell the client why `message` was refused (a non-fatal error)."""
        if exc.code in CREDENTIAL_FAILURES:
            self.credential_failed(conn)
        conn.send_error(exc.code, exc.message, match=getattr(message, "match", None))

    async def answer(self, conn: Connection, message: Any) -> None:
        """Answer a paced message (RequestError for a refusal); `pair`, a plain seek on a
        shared database and a `spectate` of a match this node does not know (another
        node's, perhaps) may wait for the records database."""
        seeks = self.cluster_seeks
        if isinstance(message, Seek) and seeks is not None and travels(message):
            _check_role(conn, message)
            if not self.credential_budget(conn):
                raise RequestError(
                    "rate_limited", "too many failed secrets, tokens or owner keys: wait and retry"
                )
            await seeks.seek(conn, message)
            return
        if isinstance(message, Spectate) and not self._known(message):
            assert self.remote_watch is not None
            await self.remote_watch.spectate_found(conn, message.match)
            return
        lobby = self.lobby
        assert lobby is not None
        if isinstance(message, Direct) and lobby.desk.span is not None:
            _check_role(conn, message)
            if not self.credential_budget(conn):
                raise RequestError(
                    "rate_limited", "too many failed secrets, tokens or owner keys: wait and retry"
                )
            await lobby.desk.span.direct(conn, message)
            return
        if not isinstance(message, Pair):
            self._answer(conn, message)
            return
        _check_role(conn, message)
        lobby.desk.check_director(conn, message.pool)
        ended = None
        if message.tournament and lobby.desk.live_tournament_game(message) is None:
            try:
                ended = await self.recorder.find_tournament_game(
                    message.tournament, message.index, lobby.desk.pool_owner(message.pool)
                )
            except StoreUnavailable as exc:
                raise RequestError("store_unavailable", str(exc)) from None
        if lobby.desk.span is not None:  # the pool spans the nodes: pair in the database
            await lobby.desk.span.pair(conn, message, ended)
        else:
            lobby.desk.pair(conn, message, ended)

    def _answer(self, conn: Connection, message: Any) -> None:
        """Answer any message but `pair` (raises RequestError for a refusal)."""
        lobby = self.lobby
        assert lobby is not None
        _check_role(conn, message)
        if isinstance(message, Move):
            match, seat = lobby.seat_of(conn, message.match)
            match.on_move(conn, seat, message, conn.last_received)
        elif isinstance(message, Ping):
            conn.send(Pong(message.id))
        elif isinstance(message, Pong):
            pass
        elif isinstance(message, Status):
            conn.send(self._status())
        elif isinstance(message, ListMatches):
            conn.send(Matches(self.match_list()))
        elif isinstance(message, Spectate):
            lobby.spectate(conn, message.match)
        elif isinstance(message, Hello):
            raise RequestError("bad_request", "already said hello")
        elif isinstance(message, Seek | Rejoin | Direct) and not self.credential_budget(conn):
            # a request that carries a secret, a token or an owner key: guessing is throttled
            raise RequestError(
                "rate_limited", "too many failed secrets, tokens or owner keys: wait and retry"
            )
        elif isinstance(message, Seek):
            lobby.seek(conn, message)
        elif isinstance(message, Join):
            lobby.join(conn, message)
        elif isinstance(message, Rejoin):
            lobby.rejoin(conn, message.token)
        elif isinstance(message, Resign):
            lobby.resign(conn, message.match, message.reason, message.fault)
        elif isinstance(message, Mark | Accept | Resume):
            match, seat = lobby.seat_of(conn, message.match)
            match.on_marking(conn, seat, message)
        elif isinstance(message, Direct):
            lobby.desk.direct(conn, message)
        elif isinstance(message, Adjudicate):
            lobby.desk.adjudicate(conn, message)
        else:  # pragma: no cover - the decoder admits only known types
            raise RequestError("bad_request", f"unexpected {type(message).__name__}")

    async def pace(self, conn: Connection, budget: ClientBudget, shared: ClientBudget) -> bool:
        """Charge one message; over the rate, wait until it is allowed (the flood waits in
        the kernel's buffers meanwhile). False: flooding for too long, the connection is
        closed with ``rate_limited``."""
        config = self.config
        now = trio.current_time()
        if self._charge(conn, budget, shared, now):
            return True
        wait = max(budget.messages.wait_time(now), shared.messages.wait_time(now))
        # which rate: this connection's, or its address's (all its connections together)
        limit = "message_rate" if not budget.messages.available(now) else "address_message_rate"
        conn.rate_limited(now, wait, limit)
        sustained = config.message_burst / config.message_rate
        if now - conn.limited_since > sustained:  # it keeps flooding: enough
            log.warning("rate_limit_disconnect", refused=conn.refused, limit=limit)
            rate = getattr(config, limit)
            whose = "" if limit == "message_rate" else f" from {conn.address or conn.peer}"
            conn.send_error(
                "rate_limited",
                f"more than {rate:g} messages/s{whose} for {sustained:g}s"
                f" ({conn.refused} slowed down; {limit}, set with {how_to_set(limit)})",
                fatal=True,
            )
            return False
        await trio.sleep(wait)
        now = trio.current_time()
        budget.messages.take(now)  # there is a token now (to within float rounding)
        shared.messages.take(now)
        return True

    def _charge(
        self, conn: Connection, budget: ClientBudget, shared: ClientBudget, now: float
    ) -> bool:
        """Spend one message of the client's rate and of its address's, if both have one."""
        if not (budget.messages.available(now) and shared.messages.available(now)):
            return False
        budget.messages.take(now)
        shared.messages.take(now)
        if conn.refused and budget.messages.tokens >= self.config.message_burst / 2:
            conn.refused = 0  # calm again
            conn.limited_since = math.inf
        return True

    def credential_budget(self, conn: Connection) -> bool:
        """Whether the connection (and its address) may still try a credential now."""
        now = trio.current_time()
        shared = self.addresses.budget(conn.address or address_of(conn.peer))
        own = conn.budget.failures.available(now) if conn.budget is not None else True
        return own and shared.failures.available(now)

    def credential_failed(self, conn: Connection) -> None:
        now = trio.current_time()
        if conn.budget is not None:
            conn.budget.failures.take(now)
        self.addresses.budget(conn.address or address_of(conn.peer)).failures.take(now)
        log.info("credential_failed", peer=conn.peer)


def _check_role(conn: Connection, message: Any) -> None:
    """Refuse a spectator's request that only a player may make (before anything else)."""
    if conn.role != "player" and not isinstance(message, ANY_ROLE):
        kind = type(message).__struct_config__.tag
        raise RequestError("wrong_role", f"spectators cannot send {kind!r}")
