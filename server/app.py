"""The server: a TCP listener, one session task per connection, the lobby.

Failure policy: anything a client does wrong ends at most that client's
connection (and, by the match policy, its matches); an exception escaping a
session is logged and contained, never allowed to reach the server's nursery.
"""

from __future__ import annotations

import contextlib
import re
import secrets
import ssl
from collections.abc import AsyncIterator
from typing import Any

import structlog
import trio

from protocol.codec import ConnectionClosed, ProtocolError
from protocol.messages import (
    PROTOCOL_VERSION,
    Hello,
    Move,
    Ping,
    ServerStatus,
    Welcome,
)
from server.accounts import AccountError, Accounts
from server.cluster import REAPED, Cluster
from server.cluster_ladders import ClusterLadders
from server.cluster_pools import ClusterPools
from server.cluster_seeks import ClusterSeeks
from server.config import ServerConfig
from server.connection import Connection, LazyFlusher
from server.errors import TlsError as TlsError
from server.ladder_ratings import LadderRatings
from server.ladder_residents import Residents
from server.limits import Addresses, ClientBudget, address_of, too_many_connections
from server.lobby import Lobby, RequestError
from server.match import Stats
from server.proxy_protocol import ProxyHeaderError, TrustedProxies, read_header
from server.reactor import Reactor
from server.remote_watch import RemoteWatch
from server.requests import Requests
from store import (
    Database,
    Journal,
    Recorder,
    SqliteDatabase,
    import_journal,
)
from store.writer import ProcessWriter

log = structlog.get_logger("arena.server")

FLUSH_TIMEOUT = 2.0
#: what a refused connection may still send (read and dropped) before it closes
LINGER_BYTES, LINGER_CHUNK = 64 * 1024, 16 * 1024
#: refused connections lingering at once; beyond, they close at once
MAX_LINGERING = 256


class ArenaServer:
    """The match server. `serve` runs it; tests start it on port 0 with `nursery.start`."""

    def __init__(
        self, config: ServerConfig, *, store: Database | None = None, stats: Stats | None = None
    ) -> None:
        #: the ladders' resident bots (``--ladder-resident``), started once listening
        self.residents = Residents.of(config)
        if self.residents is not None:  # they connect from here, as many as there are
            config = Residents.trusting(config)
        self.config = config
        self.store = store
        self.journal = None if store is None else Journal(journal_path(store, config.port))
        self.writer = (
            ProcessWriter(store, target=config.db or store.path)
            if store is not None and config.store_writer == "process"
            else None
        )
        self.recorder = Recorder(
            store if self.writer is None else self.writer,
            journal=self.journal,
            max_pending_results=config.max_pending_results,
            record_wait=config.record_wait,
        )
        self.connections = 0
        self.lingering = 0  # refused connections waiting for their client to close
        self.addresses = Addresses(config)
        #: with the PROXY protocol: whose connections begin with a header naming the client
        self.proxies = TrustedProxies(config.trusted_proxies if config.proxy_protocol else ())
        self.accounts = Accounts(
            None if store is None else store.accounts,
            mode=config.accounts,
            registration=config.registration,
            residents=None if self.residents is None else self.residents.keys,
        )
        self.flusher = LazyFlusher()
        self.requests = Requests(config, self.addresses, self.recorder, self.status)
        self.reactor = Reactor(self.requests.answer_now)
        self.stats = stats
        self.lobby: Lobby | None = None
        #: the ladders' rating lists (`--ladder`), while the server runs
        self.ladder_ratings: LadderRatings | None = None
        self.session_id = secrets.token_hex(4)
        #: every client connection being served (told ``server_shutdown`` when stopping)
        self.open_connections: set[Connection] = set()
        self.port: int | None = None
        #: this node's membership when several servers share the database (PostgreSQL)
        self.cluster: Cluster | None = (
            Cluster(store, config.node_lease) if store is not None and store.shared else None
        )
        #: this node's part of the arena's pools (on a shared database)
        self.cluster_pools: ClusterPools | None = None
        if self.cluster is not None:
            self.recorder.node = self.cluster.node
            self.requests.cluster = self.cluster

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
            if self.cluster is not None:
                await self.cluster.join(self.config.advertise or f"{self.config.host}:{self.port}")
                nursery.start_soon(self.cluster.run)
            task_status.started(self.port)
            if self.residents is not None:
                nursery.start_soon(self.residents.run, self.config.host, self.port)
            await trio.serve_listeners(self.handle_connection, listeners, handler_nursery=nursery)

    async def serve_unlistened(
        self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED
    ) -> None:
        """Run without a listener: connections come from `handle_connection` (in-memory tests)."""
        async with self._running() as nursery:
            if self.cluster is not None:
                await self.cluster.join(self.config.advertise or "in-memory")
                nursery.start_soon(self.cluster.run)
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
            if self.cluster is None:  # the only server of its database: what runs is stale
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
                    self.lobby = Lobby(
                        self.config, self.recorder, nursery, stats=self.stats, flusher=self.flusher
                    )
                    if self.cluster is not None:
                        seeks = ClusterSeeks(self.lobby, self.cluster)
                        self.lobby.cluster_seeks = seeks
                        self.requests.cluster_seeks = seeks
                        pools = self.cluster_pools = ClusterPools(self.lobby, self.cluster)
                        self.lobby.desk.span = pools
                        self.cluster.on_message = pools.route(seeks.on_message)
                        nursery.start_soon(pools.run)
                        self.cluster.on_lease_lost = self._lease_lost
                        remote = RemoteWatch(self.lobby, self.cluster)
                        self.lobby.remote = remote
                        self.requests.remote_watch = remote
                        self.cluster.on_view = remote.view_changed
                        nursery.start_soon(remote.run)
                        if self.config.ladders:
                            span = ClusterLadders(self.lobby.ladders, self.cluster, nursery)
                            self.lobby.ladders.span = span
                            self.cluster.on_message = span.route(self.cluster.on_message)
                    self.requests.lobby = self.lobby
                    if self.config.ladders:
                        ratings = LadderRatings(
                            self.lobby.ladders, self.store, self.config.ladder_rating_interval
                        )
                        self.ladder_ratings = ratings
                        if self.residents is not None:
                            self.lobby.ladders.resident_view = self.residents.view
                        nursery.start_soon(self.lobby.ladders.run)
                        nursery.start_soon(ratings.run)
                    yield nursery
            finally:
                with trio.CancelScope(shield=True):
                    await self.recorder.aclose()
                    if self.writer is not None:
                        await trio.to_thread.run_sync(self.writer.stop)
                    if self.cluster is not None:
                        await self.cluster.leave()
                log.info("server_stopped")

    def _lease_lost(self) -> None:
        """Another node declared this one dead and recorded our running matches as aborted:
        end them here too (their results would be refused: a match is recorded once), and
        offer our seeks and pool seeks again (the survivor removed them from the database)."""
        assert self.lobby is not None
        for match in list(self.lobby.matches.values()):
            match.abort(REAPED)
        if self.requests.cluster_seeks is not None:
            self.requests.cluster_seeks.republish()
        if self.cluster_pools is not None:
            self.cluster_pools.republish()
        span = self.lobby.ladders.span
        if isinstance(span, ClusterLadders):
            span.republish()

    async def handle_connection(self, stream: trio.abc.Stream, *, peer: str | None = None) -> None:
        """Serve one client connection until it closes.

        `peer` ("host:port") names a client the stream cannot tell (a WebSocket):
        its address is what per-address limits count. A TCP connection from a
        trusted proxy (``--proxy-protocol``) names its client in a PROXY header
        first; one without a usable header is closed, and nobody else is harmed.
        """
        proxy: str | None = None  # the load balancer a PROXY header came through
        if peer is None and self.proxies:
            proxy, peer, admitted = await self._proxy_header(stream)
            if not admitted:
                await trio.aclose_forcefully(stream)
                return
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
            refusal: str | None = too_many_connections(self.config)
        else:
            refusal = self.addresses.admit(address)
            if refusal is None:
                conn.address = address
        self.connections += 1
        self.open_connections.add(conn)
        with structlog.contextvars.bound_contextvars(conn=conn.id):
            if proxy is None:
                log.info("connected", peer=conn.peer)
            else:
                log.info("connected", peer=conn.peer, proxy=proxy)
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
                try:
                    if refusal is not None:
                        await self._linger(stream)
                finally:
                    await trio.aclose_forcefully(stream)
                log.info("disconnected", reason=conn.close_code, name=conn.name)

    async def _linger(self, stream: trio.abc.Stream) -> None:
        """Close a refused connection without a reset: say end-of-stream, then read and drop
        what the client sent anyway (its hello, its seek), until it closes.

        Closed at once, the socket would answer the client's hello with a reset, and
        the client's next send (or, on some systems, its read of the error frame)
        fails with "connection reset" instead of the refusal. Bounded: the
        handshake's time (`handshake_timeout`, which any silent connection has
        anyway) and `LINGER_BYTES` bytes each, and at most `MAX_LINGERING` at
        once (beyond, closed at once: a flood of refused connections holds no
        more than that). A client that reads the error and closes ends it at once.
        """
        inner = getattr(stream, "transport_stream", stream)  # TLS: the TCP stream underneath
        if (
            getattr(inner, "socket", None) is None
            or getattr(stream, "framing", "frames") != "frames"
        ):
            return  # a WebSocket closes with its own handshake
        if self.lingering >= MAX_LINGERING:
            return
        self.lingering += 1
        try:
            with trio.move_on_after(self.config.handshake_timeout):
                if isinstance(stream, trio.abc.HalfCloseableStream):
                    await stream.send_eof()
                received = 0
                while received < LINGER_BYTES:
                    data = await stream.receive_some(LINGER_CHUNK)
                    if not data:
                        return
                    received += len(data)
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return
        finally:
            self.lingering -= 1

    async def _proxy_header(self, stream: trio.abc.Stream) -> tuple[str | None, str | None, bool]:
        """(the proxy, the client it names, admitted) for a connection that may be proxied.

        Only a TCP connection from a trusted address is expected to begin with
        a header (read before TLS and the hello, within `handshake_timeout`);
        any other is served as it is: (None, None, True).
        """
        inner = getattr(stream, "transport_stream", stream)  # TLS: the TCP stream underneath
        sock = getattr(inner, "socket", None)
        if sock is None:
            return None, None, True
        try:
            name = sock.getpeername()
        except OSError:
            return None, None, True
        if not isinstance(name, tuple) or not self.proxies.trusts(name[0]):
            return None, None, True
        proxy = f"{name[0]}:{name[1]}"
        timeout = self.config.handshake_timeout
        try:
            with trio.fail_after(timeout):
                source = await read_header(sock)
        except trio.TooSlowError:
            error = ProxyHeaderError("proxy_header_timeout", f"no PROXY header within {timeout:g}s")
        except ProxyHeaderError as exc:
            error = exc
        except OSError as exc:
            error = ProxyHeaderError("proxy_header_missing", f"connection lost: {exc}")
        else:
            return proxy, source.peer(), True
        log.warning("proxy_header_refused", peer=proxy, code=error.code, error=error.message)
        return proxy, None, False

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
            if first.password and not self.requests.credential_budget(conn):
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
                    self.requests.credential_failed(conn)
                log.info("hello_refused", name=first.name, code=exc.code)
                conn.send_error(exc.code, exc.message, fatal=True)
                return
            conn.name, conn.role, conn.human = first.name, first.role, first.human
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
                if not isinstance(message, Move) and not await self.requests.pace(
                    conn, budget, shared
                ):
                    return
                try:
                    await self.requests.answer(conn, message)
                except RequestError as exc:
                    self.requests.refuse(conn, message, exc)
                    if isinstance(message, Move) and not await self.requests.pace(
                        conn, budget, shared
                    ):
                        return
        except ProtocolError as exc:
            log.info("protocol_error", code=exc.code, error=exc.message)
            conn.fail(exc)
        except ConnectionClosed:
            conn.close_code = conn.close_code or "connection_lost"

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

    async def _sweep(self) -> None:
        """Now and then: reclaim idle pools, forget quiet addresses (bounded memory)."""
        while True:
            await trio.sleep(min(60.0, max(self.config.pool_grace / 4, 1.0)))
            if self.lobby is not None:
                self.lobby.desk.reclaim_pools()
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


def journal_path(store: Database, port: int) -> str:
    """Where results the database could not take are journaled.

    Next to an SQLite file; for a database server (PostgreSQL), in the working
    directory, named after the database and this server's port, so that each
    node of a shared arena keeps its own journal and finds it again on restart.
    """
    if isinstance(store, SqliteDatabase):
        return f"{store.path}.unwritten.jsonl"
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", store.path.split("://", 1)[-1]).strip("_")
    return f"arena-{name}-{port}.unwritten.jsonl"
