"""The server: a TCP listener, one session task per connection, the lobby.

Failure policy: anything a client does wrong ends at most that client's
connection (and, by the match policy, its matches); an exception escaping a
session is logged and contained, never allowed to reach the server's nursery.
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import ssl
from collections.abc import AsyncIterator
from typing import Any

import structlog
import trio

from protocol.codec import ConnectionClosed, ProtocolError
from protocol.messages import (
    PROTOCOL_VERSION,
    Adjudicate,
    ClientMessage,
    Direct,
    Hello,
    Join,
    ListMatches,
    Matches,
    Move,
    Pair,
    Ping,
    Pong,
    Rejoin,
    Resign,
    Seek,
    ServerStatus,
    Spectate,
    Status,
    Welcome,
)
from server.accounts import AccountBook, AccountError, Accounts
from server.config import ServerConfig
from server.connection import Connection, LazyFlusher
from server.limits import Addresses, ClientBudget, address_of
from server.lobby import Lobby, RequestError
from server.match import Stats
from server.reactor import Reactor
from server.store import (
    Journal,
    Recorder,
    Store,
    StoreError,
    StoreUnavailable,
    import_journal,
)
from server.store.writer import ProcessWriter

log = structlog.get_logger("arena.server")

FLUSH_TIMEOUT = 2.0
#: refusals that mean a wrong credential: they spend the much tighter failure budget
CREDENTIAL_FAILURES = frozenset({"bad_secret", "bad_token", "not_owner"})


class TlsError(Exception):
    """The TLS certificate or key cannot be used (one readable line)."""


class ArenaServer:
    """The match server. `serve` runs it; tests start it on port 0 with `nursery.start`."""

    def __init__(
        self, config: ServerConfig, *, store: Store | None = None, stats: Stats | None = None
    ) -> None:
        self.config = config
        self.store = store
        self.journal = None if store is None else Journal(journal_path(store.path))
        self.writer = (
            ProcessWriter(store) if store is not None and config.store_writer == "process" else None
        )
        self.recorder = Recorder(
            store if self.writer is None else self.writer,
            journal=self.journal,
            max_pending_results=config.max_pending_results,
            record_wait=config.record_wait,
        )
        self.connections = 0
        self.addresses = Addresses(config)
        self.accounts = Accounts(
            None if store is None else AccountBook(store.path),
            mode=config.accounts,
            registration=config.registration,
        )
        self.flusher = LazyFlusher()
        self.reactor = Reactor(self._handle_inline)
        self.stats = stats
        self.lobby: Lobby | None = None
        self.session_id = secrets.token_hex(4)
        #: every client connection being served (told ``server_shutdown`` when stopping)
        self.open_connections: set[Connection] = set()
        self.port: int | None = None

    async def serve(self, *, task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        """Listen and serve until cancelled; reports the bound port through `task_status`."""
        tls = self.tls_context()  # a bad certificate fails here, before anything starts
        async with self._running() as nursery:
            tcp = await trio.open_tcp_listeners(self.config.port, host=self.config.host)
            self.port = tcp[0].socket.getsockname()[1]
            listeners: list[trio.abc.Listener[Any]] = list(tcp)
            if tls is not None:
                listeners = [trio.SSLListener(listener, tls) for listener in tcp]
            log.info(
                "listening",
                host=self.config.host,
                port=self.port,
                tls=tls is not None,
                db=self.store.path if self.store else None,
            )
            task_status.started(self.port)
            await trio.serve_listeners(self.handle_connection, listeners, handler_nursery=nursery)

    async def serve_unlistened(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Run without a listener: connections come from `handle_connection` (in-memory tests)."""
        async with self._running():
            task_status.started()
            await trio.sleep_forever()

    def announce_shutdown(self, message: str = "the server is shutting down") -> None:
        """Tell every client (a fatal error ``server_shutdown``) after what is queued for it."""
        for conn in list(self.open_connections):
            if not conn.closed:
                conn.send_error("server_shutdown", message, fatal=True)

    def tls_context(self) -> ssl.SSLContext | None:
        return tls_context(self.config)

    def start_connection(self, stream: trio.abc.Stream) -> None:
        """Serve an already-open stream (e.g. one end of an in-memory pair)."""
        assert self.lobby is not None, "the server is not running"
        self.lobby.nursery.start_soon(self.handle_connection, stream)

    @contextlib.asynccontextmanager
    async def _running(self) -> AsyncIterator[trio.Nursery]:
        if self.store is not None and self.journal is not None:
            # results journaled while the database was unavailable come first
            imported, torn = await trio.to_thread.run_sync(import_journal, self.store, self.journal)
            if imported or torn:
                log.warning("journal_imported", matches=imported, torn_lines=torn)
            stale = await trio.to_thread.run_sync(self.store.abort_running, "server restarted")
            if stale:
                log.warning("aborted_stale_matches", count=stale)
            if self.writer is not None:
                try:
                    await trio.to_thread.run_sync(self.writer.start)
                except OSError as exc:  # the first write tries again, and degrades if it fails
                    log.warning("store_writer_unavailable", error=str(exc))
        async with trio.open_nursery() as recorder_nursery:
            await recorder_nursery.start(self.recorder.run)
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(self.flusher.run)
                    await nursery.start(self.reactor.run)
                    nursery.start_soon(self._sweep)
                    self.lobby = Lobby(self.config, self.recorder, nursery, stats=self.stats)
                    yield nursery
            finally:
                with trio.CancelScope(shield=True):
                    await self.recorder.aclose()
                    if self.writer is not None:
                        await trio.to_thread.run_sync(self.writer.stop)
                log.info("server_stopped")

    async def handle_connection(self, stream: trio.abc.Stream, *, peer: str | None = None) -> None:
        """Serve one client connection until it closes.

        `peer` ("host:port") names a client the stream cannot tell (a WebSocket):
        its address is what per-address limits count.
        """
        conn = Connection(
            stream,
            max_frame=self.config.max_frame,
            queue=self.config.send_queue,
            flusher=self.flusher,
            max_bytes=self.config.max_buffered_bytes,
        )
        if peer is not None:
            conn.peer = peer
        address = address_of(conn.peer)
        if self.connections >= self.config.max_connections:
            refusal: str | None = (
                f"the server holds its maximum of {self.config.max_connections} connections"
            )
        else:
            refusal = self.addresses.admit(address)
            if refusal is None:
                conn.address = address
        self.connections += 1
        self.open_connections.add(conn)
        with structlog.contextvars.bound_contextvars(conn=conn.id):
            log.info("connected", peer=conn.peer)
            try:
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(conn.writer)
                    try:
                        with conn.cancel_scope:
                            if refusal is not None:
                                log.warning("connection_refused", peer=conn.peer, reason=refusal)
                                conn.send_error("too_many_connections", refusal, fatal=True)
                            else:
                                await self._session(conn)
                    finally:
                        if self.lobby is not None:
                            self.lobby.connection_lost(conn)
                        conn.close(conn.close_code or "connection_lost")
                        nursery.cancel_scope.deadline = trio.current_time() + FLUSH_TIMEOUT
            except Exception as exc:  # contained: one connection's failure is only its own
                log.error("session_crashed", error=repr(exc), exc_info=True)
            finally:
                self.connections -= 1
                self.open_connections.discard(conn)
                if conn.address is not None:
                    self.addresses.release(conn.address)
                await trio.aclose_forcefully(stream)
                log.info("disconnected", reason=conn.close_code, name=conn.name)

    async def _session(self, conn: Connection) -> None:
        try:
            with trio.move_on_after(self.config.handshake_timeout) as handshake:
                first = await conn.receive()
            if handshake.cancelled_caught:
                conn.send_error(
                    "handshake_timeout",
                    f"no hello within {self.config.handshake_timeout:g}s",
                    fatal=True,
                )
                return
            if not isinstance(first, Hello):
                raise ProtocolError("handshake_required", "the first message must be 'hello'")
            if first.version != PROTOCOL_VERSION:
                conn.send_error(
                    "unsupported_version",
                    f"protocol version {first.version} is not supported (this server speaks {PROTOCOL_VERSION})",
                    fatal=True,
                )
                return
            if first.password and not self._credential_budget(conn):
                # only a password is refused: a plain hello from the same address still plays
                conn.send_error(
                    "rate_limited", "too many failed credentials from this address", fatal=True
                )
                return
            try:
                conn.account = await self.accounts.authenticate(
                    first.name, first.password, player=first.role == "player"
                )
            except AccountError as exc:
                if exc.code == "bad_password":
                    self._credential_failed(conn)
                log.info("hello_refused", name=first.name, code=exc.code)
                conn.send_error(exc.code, exc.message, fatal=True)
                return
            conn.name, conn.role = first.name, first.role
            structlog.contextvars.bind_contextvars(name=conn.name)
            log.info("hello", role=conn.role, client=first.client, account=conn.account)
            conn.send(
                Welcome(
                    PROTOCOL_VERSION,
                    self.config.name,
                    self.session_id,
                    self.config.max_frame,
                    ping_interval=self.config.ping_interval,
                    idle_timeout=self.config.idle_timeout,
                    account=conn.account,
                )
            )
        except ProtocolError as exc:
            if exc.code == "unknown_type":  # an unknown first frame: it is not a hello
                exc = ProtocolError("handshake_required", "the first message must be 'hello'")
            log.info("protocol_error", code=exc.code, error=exc.message)
            conn.fail(exc)
            return
        except ConnectionClosed:
            conn.close_code = conn.close_code or "connection_lost"
            return
        async with trio.open_nursery() as keepalive:
            keepalive.start_soon(self._keepalive, conn)
            try:
                await self._message_loop(conn)
            finally:
                keepalive.cancel_scope.cancel()

    async def _message_loop(self, conn: Connection) -> None:
        config = self.config
        budget = ClientBudget.for_connection(config)
        shared = self.addresses.budget(conn.address or address_of(conn.peer))
        conn.budget, conn.shared_budget = budget, shared
        try:
            reactor = self.reactor
            while True:
                if reactor.can_park(conn):
                    message = await reactor.next_message(conn)
                else:
                    message = await conn.receive()
                # a move in turn is paced by the game itself (one per turn), so it is
                # not charged: only refused moves are, with everything else
                if not isinstance(message, Move) and not await self._pace(conn, budget, shared):
                    return
                try:
                    await self._dispatch(conn, message)
                except RequestError as exc:
                    self._refused(conn, message, exc)
                    if isinstance(message, Move) and not await self._pace(conn, budget, shared):
                        return
        except ProtocolError as exc:
            log.info("protocol_error", code=exc.code, error=exc.message)
            conn.fail(exc)
        except ConnectionClosed:
            conn.close_code = conn.close_code or "connection_lost"

    def _handle_inline(self, conn: Connection, message: ClientMessage) -> bool:
        """Answer a message in the reactor, without waking the connection's task.

        That is everything that needs no waiting: a move in turn, and any
        request within the client's message rate except `pair` (which may read
        the database). False hands the message to the task, which answers it
        the long way: a refused move (it charges the client for it), a request
        over the rate (it makes it wait), `pair`.
        """
        lobby = self.lobby
        if lobby is None:
            return False
        if type(message) is Move:
            if conn.role != "player":
                return False
            try:
                match, seat = lobby.seat_of(conn, message.match)
            except RequestError:
                return False
            match.on_move(conn, seat, message, conn.last_received)
            return True
        budget, shared = conn.budget, conn.shared_budget
        if type(message) is Pair or budget is None or shared is None:
            return False
        if not self._charge(conn, budget, shared, conn.last_received):
            return False
        try:
            self._dispatch_now(conn, message)
        except RequestError as exc:
            self._refused(conn, message, exc)
        return True

    def _refused(self, conn: Connection, message: Any, exc: RequestError) -> None:
        if exc.code in CREDENTIAL_FAILURES:
            self._credential_failed(conn)
        conn.send_error(exc.code, exc.message, match=getattr(message, "match", None))

    async def _dispatch(self, conn: Connection, message: Any) -> None:
        if not isinstance(message, Pair):
            self._dispatch_now(conn, message)
            return
        lobby = self.lobby
        assert lobby is not None
        lobby.check_director(conn, message.pool)
        ended = None
        if message.tournament and lobby.live_tournament_game(message) is None:
            try:
                ended = await self.recorder.find_tournament_game(
                    message.tournament, message.index, lobby.pool_owner(message.pool)
                )
            except StoreUnavailable as exc:
                raise RequestError("store_unavailable", str(exc)) from None
        lobby.pair(conn, message, ended)

    def _dispatch_now(self, conn: Connection, message: Any) -> None:
        """Answer any message but `pair` (raises RequestError for a refusal)."""
        lobby = self.lobby
        assert lobby is not None
        if isinstance(message, Move):
            if conn.role != "player":
                raise RequestError("wrong_role", "spectators cannot send 'move'")
            match, seat = lobby.seat_of(conn, message.match)
            match.on_move(conn, seat, message, trio.current_time())
        elif isinstance(message, Ping):
            conn.send(Pong(message.id))
        elif isinstance(message, Pong):
            pass
        elif isinstance(message, Status):
            conn.send(self.status())
        elif isinstance(message, ListMatches):
            conn.send(Matches([m.info() for m in lobby.matches.values()]))
        elif isinstance(message, Spectate):
            lobby.spectate(conn, message.match)
        elif conn.role != "player":
            raise RequestError(
                "wrong_role", f"spectators cannot send {type(message).__name__.lower()!r}"
            )
        elif isinstance(message, Seek | Rejoin | Direct) and not self._credential_budget(conn):
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
            lobby.resign(conn, message.match)
        elif isinstance(message, Direct):
            lobby.direct(conn, message)
        elif isinstance(message, Adjudicate):
            lobby.adjudicate(conn, message)
        elif isinstance(message, Hello):
            raise RequestError("bad_request", "already said hello")
        else:  # pragma: no cover - the decoder admits only known types
            raise RequestError("bad_request", f"unexpected {type(message).__name__}")

    def status(self) -> ServerStatus:
        """The store's health and the server's load (the ``server_status`` message)."""
        store = self.recorder.status()
        return ServerStatus(
            store=store.state,  # type: ignore[arg-type]
            store_error=store.error,
            degraded_for=store.degraded_for,
            pending_results=store.pending_results,
            pending_moves=store.pending_moves,
            journaled=store.journaled,
            accepting=store.accepting,
            matches=0 if self.lobby is None else len(self.lobby.matches),
            connections=self.connections,
        )

    async def _pace(self, conn: Connection, budget: ClientBudget, shared: ClientBudget) -> bool:
        """Charge one message; over the rate, wait until it is allowed (the flood waits in
        the kernel's buffers meanwhile). False: flooding for too long, the connection is
        closed with ``rate_limited``."""
        config = self.config
        now = trio.current_time()
        if self._charge(conn, budget, shared, now):
            return True
        wait = max(budget.messages.wait_time(now), shared.messages.wait_time(now))
        conn.rate_limited(now, wait)
        sustained = config.message_burst / config.message_rate
        if now - conn.limited_since > sustained:  # it keeps flooding: enough
            log.warning("rate_limit_disconnect", refused=conn.refused)
            conn.send_error(
                "rate_limited",
                f"more than {config.message_rate:g} messages/s for {sustained:g}s"
                f" ({conn.refused} slowed down)",
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

    def _credential_budget(self, conn: Connection) -> bool:
        """Whether the connection (and its address) may still try a credential now."""
        now = trio.current_time()
        shared = self.addresses.budget(conn.address or address_of(conn.peer))
        own = conn.budget.failures.available(now) if conn.budget is not None else True
        return own and shared.failures.available(now)

    def _credential_failed(self, conn: Connection) -> None:
        now = trio.current_time()
        if conn.budget is not None:
            conn.budget.failures.take(now)
        self.addresses.budget(conn.address or address_of(conn.peer)).failures.take(now)
        log.info("credential_failed", peer=conn.peer)

    async def _sweep(self) -> None:
        """Now and then: reclaim idle pools, forget quiet addresses (bounded memory)."""
        while True:
            await trio.sleep(min(60.0, max(self.config.pool_grace / 4, 1.0)))
            if self.lobby is not None:
                self.lobby.reclaim_pools()
            self.addresses.sweep(trio.current_time())

    async def _keepalive(self, conn: Connection) -> None:
        """Ping an idle client; close it when it has been silent for `idle_timeout`."""
        counter = 0
        while True:
            await trio.sleep(self.config.ping_interval)
            silent = trio.current_time() - conn.last_received
            if silent >= self.config.idle_timeout:
                conn.send_error("idle_timeout", f"nothing received for {silent:.0f}s", fatal=True)
                return
            counter += 1
            conn.send(Ping(counter))


def tls_context(config: ServerConfig) -> ssl.SSLContext | None:
    """The server's TLS context (None without a certificate); `TlsError` if unusable."""
    if config.tls_cert is None or config.tls_key is None:
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(config.tls_cert, config.tls_key)
    except (OSError, ssl.SSLError) as exc:
        raise TlsError(
            f"cannot use the TLS certificate {config.tls_cert} with key"
            f" {config.tls_key}: {getattr(exc, 'strerror', None) or exc}"
        ) from None
    return context


def journal_path(db_path: str) -> str:
    """Where results the database could not take are journaled (next to the database)."""
    return f"{db_path}.unwritten.jsonl"


def open_store(path: str | None, *, check: bool = True) -> Store | None:
    """The records database at `path` (created if missing, checked), or None for no records.

    Raises `StoreError` with one readable line when it cannot be used.
    """
    if path is None:
        return None
    directory = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the directory of {path}: {exc.strerror}") from None
    return Store(path, check=check)
