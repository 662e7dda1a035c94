"""The player runtime: connects an `Agent` to an arena server and plays matches.

Why this shape: the network and the clock live here and in
`player.matchplay`; the agent only turns a state and a budget into a move.
The connection policies, written down:

- Server not up yet: `protocol.client.open_connection` retries with
  backoff for up to ``connect_wait`` seconds, logging each attempt. With
  several known servers (the nodes of one arena: ``servers``) each round
  tries each of them once, the last one that answered first.
- Connection lost mid-match: reconnect and ``rejoin`` with the seat's token;
  lost between matches: reconnect and seek again. ``max_reconnects`` losses in
  a row without progress give up. A server that accepts the connection but
  never answers ``hello`` (a frozen host) counts as a lost connection.
- Redirected to another node (``redirect``): that node is used while it
  answers; once it does not (within ``REDIRECT_WAIT`` seconds), the player goes
  back to the servers it knows, says so (``on_retry``), and there rejoins its
  match (refused if that node was the match's: the match is lost) or seeks
  again.
- Every failure the user can meet is a `ClientError` with a readable message.
"""

from __future__ import annotations

import random
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import structlog
import trio

from games import Game, make_game
from player.agent import Agent, SearchLimit
from player.errors import (
    ClientError,
    ConnectionLost,
    ServerRejected,
)
from player.matchplay import MatchPlay
from player.results import MatchResult
from player.spec import spec_name
from protocol.client import Backoff, Connection, Connector, message_tag, open_connection
from protocol.errors import ServerSilent, ServerUnreachable
from protocol.messages import (
    Clock,
    Error,
    Illegal,
    Join,
    MatchEnd,
    Matches,
    MatchStart,
    Pong,
    Redirect,
    Rejoin,
    Resumed,
    Scoring,
    Seek,
    Seeking,
    ServerMessage,
    Turn,
    Update,
    Welcome,
)

log = structlog.get_logger("arena.player")

#: fatal server errors after which reconnecting makes sense
RECOVERABLE_FATAL = frozenset({"server_shutdown", "idle_timeout", "slow_consumer"})
#: server messages waiting for the match logic (pings are answered before the queue)
INBOX_SIZE = 64
#: non-fatal errors answering a ``rejoin`` that mean the seat is gone
REJOIN_REFUSED = frozenset({"bad_token", "unknown_match", "not_in_match"})
#: seconds a ``redirect``'s node may take to answer before the player goes back to the
#: servers it knows (its seat there waits the server's reconnect grace, 10 s by default)
REDIRECT_WAIT = 3.0


def default_player_name(agent_name: str) -> str:
    """``<agent>@<host>`` (an agent spec's own ``name=`` if it has one), cut to 64 characters."""
    named = spec_name(agent_name)
    return (named or f"{agent_name}@{socket.gethostname()}")[:64]


@dataclass(frozen=True, slots=True)
class PlayerConfig:
    """How a `PlayerClient` connects, what it asks for and its timing policies."""

    host: str = "127.0.0.1"
    port: int = 4242
    name: str = "player"
    games: int = 1
    move_time: float | None = None
    #: ask for a clock (``5+3``) instead of a per-move limit
    clock: Clock | None = None
    #: accept the time control of whoever else seeks the game
    any_time: bool = False
    pool: str = ""
    secret: str = ""
    #: a ladder of the server: each seek readies the player for the ladder's next game
    ladder: str = ""
    room: str | None = None
    seat: int | None = None
    safety_margin: float = 0.05
    min_budget: float = 0.01
    connect_wait: float = 30.0
    attempt_timeout: float = 5.0
    max_reconnects: int = 5
    handshake_timeout: float = 5.0
    agent_busy_timeout: float = 30.0
    backoff: Backoff = field(default_factory=Backoff)
    #: the other servers (nodes of the same arena) to turn to when ``host:port`` does not
    #: answer, in order
    servers: tuple[tuple[str, int], ...] = ()

    @property
    def nodes(self) -> list[tuple[str, int]]:
        """Every server this player knows: ``host:port`` first, then `servers`."""
        return list(dict.fromkeys([(self.host, self.port), *self.servers]))

    def __post_init__(self) -> None:
        if not 1 <= len(self.name) <= 64:
            raise ValueError(f"player name must be 1 to 64 characters, not {self.name!r}")
        for _, port in [(self.host, self.port), *self.servers]:
            if not 0 <= port <= 65535:
                raise ValueError(f"port must be in 0..65535, not {port!r}")
        if self.games < 0:
            raise ValueError(f"games must be >= 0 (0 = until stopped), not {self.games!r}")
        if self.move_time is not None and not self.move_time > 0:
            raise ValueError(f"move_time must be > 0 seconds, not {self.move_time!r}")
        if self.safety_margin < 0:
            raise ValueError(f"safety_margin must be >= 0 seconds, not {self.safety_margin!r}")
        if not self.min_budget > 0:
            raise ValueError(f"min_budget must be > 0 seconds, not {self.min_budget!r}")
        if self.connect_wait < 0:
            raise ValueError(f"connect_wait must be >= 0 seconds, not {self.connect_wait!r}")
        if self.max_reconnects < 0:
            raise ValueError(f"max_reconnects must be >= 0, not {self.max_reconnects!r}")
        if self.any_time and (self.clock is not None or self.move_time is not None):
            raise ValueError("any_time accepts any time control: give no clock or move_time")
        if self.ladder and (self.move_time is not None or self.clock is not None or self.any_time):
            raise ValueError("a ladder has its own time control: give no clock or move_time")
        if self.ladder and (self.pool or self.room is not None):
            raise ValueError("a player seeks a ladder, a pool or a room, one of them")
        if self.seat is not None and self.room is None:
            raise ValueError("a seat can only be chosen when joining a room")


class PlayerClient:
    """Plays `config.games` matches of one game with one agent (0: until cancelled).

    The agent is not closed here (the caller owns it). `on_result` is called
    after each match with its `MatchResult`.
    """

    def __init__(
        self,
        agent: Agent,
        game: str,
        options: Mapping[str, Any] | None = None,
        config: PlayerConfig | None = None,
        *,
        on_result: Callable[[MatchResult], None] | None = None,
        on_seeking: Callable[[Seeking], None] | None = None,
        on_retry: Callable[[str], None] | None = None,
        connect: Connector | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.agent = agent
        self.config = config or PlayerConfig()
        # validates the game name and options before anything touches the network
        self.game: Game[Any, Any] = make_game(game, options)
        #: the matches themselves: agent calls, budgets, results
        self.play = MatchPlay(
            agent, self.config, self.game, request_match=self._request_match, on_result=on_result
        )
        self._on_seeking = on_seeking
        self._on_retry = on_retry
        self._run_scope = trio.CancelScope()
        self._stopped_by: ClientError | None = None
        self._connect_stream = connect
        self._rng = rng or random.Random()
        self._reader_failure: ClientError | None = None
        #: the server to connect to: the configured one, until a ``redirect`` names another
        #: node of the same arena (kept for the rest of the run: any node serves it)
        self._target: tuple[str, int] | None = None
        #: a ``redirect`` to follow on the next connection: ``rejoin`` with its token
        self._redirect: Redirect | None = None
        #: the known server (`PlayerConfig.nodes`) tried first: the last that answered
        self._node = 0

    @property
    def results(self) -> list[MatchResult]:
        """The results of the matches played so far."""
        return self.play.results

    @property
    def done(self) -> bool:
        """True when no further match will be played."""
        return self.play.done

    @property
    def playing(self) -> bool:
        """True while a match is under way here (started, its end not yet handled)."""
        return self.play.playing

    def budget(
        self, time_left: float, *, clock: bool = False, increment: float = 0.0
    ) -> SearchLimit:
        """The agent's search limit for a turn with `time_left` seconds (see `MatchPlay`)."""
        return self.play.budget(time_left, clock=clock, increment=increment)

    async def run(self) -> list[MatchResult]:
        """Play until `config.games` matches are over; return their results."""
        with trio.CancelScope() as self._run_scope:
            await self.play.prepare()  # an engine starts before the first connection
            await self._play()
        if self._stopped_by is not None:
            raise self._stopped_by
        return self.results

    def fail(self, error: ClientError) -> None:
        """Stop `run` from outside (another task): it raises `error`."""
        self._stopped_by = error
        self._run_scope.cancel()

    async def _play(self) -> None:
        config = self.config
        losses = 0
        while not self.done:
            conn, (host, port) = await self._connect()
            progress = self.play.progress
            try:
                await self._session(conn)
            except ConnectionLost as exc:
                losses = 1 if self.play.progress != progress else losses + 1
                if losses > config.max_reconnects:
                    raise ConnectionLost(
                        f"the connection to {host}:{port} keeps dropping"
                        f" ({losses} times in a row): {exc}"
                    ) from None
                log.warning(
                    "connection_lost",
                    error=str(exc),
                    rejoin=self.play.match is not None,
                    attempt=losses,
                )
                if isinstance(exc, ServerSilent) and self._pass_over(host, port, exc):
                    continue  # the wait was the silence itself: try the next server now
                await trio.sleep(config.backoff.delay(losses - 1, self._rng))
            finally:
                await conn.aclose()

    def _pass_over(self, host: str, port: int, silence: ServerSilent) -> bool:
        """After `silence` from `host:port`, start the next connection at another server:
        the next one given (or home, after a redirect). False if there is no other."""
        if self._target is not None:
            self._target, self._redirect = None, None
            self._say(f"the server at {host}:{port} (a redirect) is silent ({silence}); back home")
            return True
        nodes = self.config.nodes
        if len(nodes) == 1:
            return False
        self._node = (self._node + 1) % len(nodes)
        after = nodes[self._node]
        self._say(
            f"the server at {host}:{port} is silent ({silence}): now trying {after[0]}:{after[1]}"
        )
        return True

    def _say(self, line: str) -> None:
        """Tell the user (``on_retry``: `arena play` prints it) and the log."""
        log.warning("server_changed", note=line)
        if self._on_retry is not None:
            self._on_retry(line)

    async def _connect(self) -> tuple[Connection, tuple[str, int]]:
        """A connection to the ``redirect``'s node while it answers, else to a known server."""
        config = self.config
        if self._target is not None:
            try:
                conn = await self._open(*self._target, min(config.connect_wait, REDIRECT_WAIT))
                return conn, self._target
            except ServerUnreachable as exc:
                host, port = self._target
                self._target, self._redirect = None, None
                known = ", ".join(f"{h}:{p}" for h, p in config.nodes)
                self._say(
                    f"the server at {host}:{port} (a redirect) is gone ({exc}); back to {known}"
                )
        nodes = config.nodes
        if len(nodes) == 1:
            return await self._open(*nodes[0], config.connect_wait), nodes[0]
        deadline = trio.current_time() + config.connect_wait
        rounds = 0
        while True:
            errors = []
            order = [*range(self._node, len(nodes)), *range(self._node)]
            for index in order:
                host, port = nodes[index]
                try:
                    conn = await self._open(host, port, 0.0)
                except ServerUnreachable as exc:
                    errors.append(str(exc))
                    continue
                if index != self._node:
                    gone = nodes[self._node]
                    self._say(
                        f"the server at {gone[0]}:{gone[1]} does not answer: now on {host}:{port}"
                    )
                    self._node = index
                return conn, (host, port)
            delay = config.backoff.delay(rounds, self._rng)
            rounds += 1
            if trio.current_time() + delay > deadline:
                raise ServerUnreachable(
                    f"none of the servers answers ({'; '.join(errors)};"
                    f" {rounds} rounds over {config.connect_wait:g} s)"
                )
            if self._on_retry is not None:
                self._on_retry(
                    f"no server answers, round {rounds + 1} in {delay:.1f} s;"
                    f" giving up after {config.connect_wait:g} s"
                )
            await trio.sleep(delay)

    async def _open(self, host: str, port: int, wait: float) -> Connection:
        config = self.config
        return await open_connection(
            host,
            port,
            wait=wait,
            backoff=config.backoff,
            attempt_timeout=config.attempt_timeout,
            connect=self._connect_stream,
            rng=self._rng,
            on_retry=self._on_retry,
        )

    # --- one connection ---------------------------------------------------------

    async def _session(self, conn: Connection) -> None:
        welcome: Welcome | None = None
        with trio.move_on_after(self.config.handshake_timeout):
            welcome = await conn.handshake(self.config.name, "player", human=self.agent.human)
        if welcome is None:  # a frozen host accepts connections and says nothing
            raise ServerSilent(
                f"the server sent no 'welcome' within {self.config.handshake_timeout:g} s"
            )
        log.info("connected", server=welcome.server, session=welcome.session)
        redirect, self._redirect = self._redirect, None
        if redirect is not None:  # the match is on this node: take its seat
            self.play.pending = "redirect"
            await conn.send(Rejoin(token=redirect.token))
        elif self.play.match is not None and self.play.match.token is not None:
            self.play.pending = "rejoin"
            await conn.send(Rejoin(token=self.play.match.token))
        else:
            await self._request_match(conn)
        self.play.failure = None
        self._reader_failure = None
        failure: ClientError | None = None
        inbox_send, inbox = trio.open_memory_channel[ServerMessage](INBOX_SIZE)
        async with trio.open_nursery() as nursery:
            self.play.session_scope = nursery.cancel_scope
            nursery.start_soon(self._read, conn, inbox_send)
            try:
                async for message in inbox:
                    if await self._handle(conn, nursery, message):
                        break
            except ClientError as exc:
                failure = exc
            nursery.cancel_scope.cancel()
        self.play.session_scope = None
        self.play.cancel_think()
        self.play.end_marking()  # a rejoin gets the marking afresh (match_start, scoring)
        # the agent's failure first, then the handler's, then the connection's
        for error in (self.play.failure, failure, self._reader_failure):
            if error is not None:
                raise error

    async def _read(self, conn: Connection, inbox: trio.MemorySendChannel[ServerMessage]) -> None:
        """Answer pings at once; pass everything else on, in order.

        Agent calls (which may wait for an abandoned search) happen in the
        handler, never here, so pings are answered whatever the agent does.
        """
        async with inbox:
            try:
                while True:
                    await inbox.send(await conn.receive())  # pings are answered there
            except ClientError as exc:
                # reported after the handler has seen every message before it
                self._reader_failure = exc

    async def _request_match(self, conn: Connection) -> None:
        config = self.config
        await self.play.prepare()  # (again) after a fault or a game that ended its process
        if config.room is not None:
            self.play.pending = "join"
            await conn.send(
                Join(
                    room=config.room,
                    game=self.game.name,
                    options=dict(self.game.options),
                    move_time=config.move_time,
                    seat=config.seat,
                )
            )
        else:
            self.play.pending = "seek"
            await conn.send(
                Seek(
                    game=self.game.name,
                    options=dict(self.game.options),
                    move_time=config.move_time,
                    clock=config.clock,
                    any_time=config.any_time,
                    pool=config.pool,
                    secret=config.secret,
                    ladder=config.ladder,
                )
            )

    async def _handle(self, conn: Connection, nursery: trio.Nursery, message: Any) -> bool:
        """React to one server message (pings are answered by the reader); True when done."""
        if isinstance(message, Turn):
            self.play.on_turn(conn, nursery, message)
        elif isinstance(message, Update):
            await self.play.on_update(message)
        elif isinstance(message, MatchStart):
            await self.play.on_match_start(message)
        elif isinstance(message, Illegal):
            log.warning(
                "illegal_move",
                ply=message.ply,
                move=message.move,
                kind=message.kind,
                reason=message.reason,
                retries_left=message.retries_left,
            )
        elif isinstance(message, MatchEnd):
            return await self.play.on_match_end(conn, message)
        elif isinstance(message, Scoring):
            self.play.on_scoring(conn, nursery, message)
        elif isinstance(message, Resumed):
            self.play.end_marking()
        elif isinstance(message, Seeking):
            self.play.pending = None
            log.info(
                "seeking",
                game=message.game,
                move_time=message.move_time,
                clock=None if message.clock is None else message.clock.label(),
                any_time=message.any_time,
                room=message.room,
            )
            if self._on_seeking is not None:
                self._on_seeking(message)
        elif isinstance(message, Redirect):
            # paired with a player on another node of the arena: the match is there
            log.info("redirected", match=message.match, to=f"{message.host}:{message.port}")
            self.play.pending = None
            self._redirect = message
            self._target = (message.host, message.port)
            return True  # this session is over; the next connects there
        elif isinstance(message, Error):
            return await self._on_error(conn, message)
        elif isinstance(message, Pong | Matches | Welcome):
            log.debug("ignored", type=message_tag(message))
        return False

    async def _on_error(self, conn: Connection, error: Error) -> bool:
        if error.fatal:
            if error.code in RECOVERABLE_FATAL:
                raise ConnectionLost(
                    f"the server closed the connection ({error.code}: {error.message})"
                )
            raise ServerRejected(error.code, error.message)
        if error.code == "ladder_replaced":  # another process plays this name there now
            raise ServerRejected(error.code, error.message)
        pending, self.play.pending = self.play.pending, None
        match = self.play.match
        if pending == "rejoin" and match is not None and error.code in REJOIN_REFUSED:
            await self.play.lose_track(match, f"could not rejoin after a disconnect ({error.code})")
            return await self.play.next_match(conn)
        if pending == "redirect" and error.code in REJOIN_REFUSED:
            log.warning("redirect_match_gone", code=error.code)
            await self._request_match(conn)  # the match over there is gone: seek again
            return False
        if pending in ("seek", "join"):
            raise ServerRejected(error.code, error.message)
        log.warning("server_error", code=error.code, message=error.message, error_match=error.match)
        return False

    # --- agent calls ------------------------------------------------------------


async def run_player(
    host: str,
    port: int,
    agent: Agent | str,
    game: str,
    options: Mapping[str, Any] | None = None,
    *,
    games: int = 1,
    name: str | None = None,
    move_time: float | None = None,
    room: str | None = None,
    seat: int | None = None,
    pool: str = "",
    secret: str = "",
    safety_margin: float = 0.05,
    connect_wait: float = 30.0,
    on_result: Callable[[MatchResult], None] | None = None,
) -> list[MatchResult]:
    """Connect to ``host:port`` and play `games` matches of `game` with `agent`.

    `agent` is an `Agent` (left open) or a spec string such as
    ``"mcts:time=0.5"`` (built with `player.spec.make_agent` and closed at the
    end). Raises ValueError for a bad game, options or spec before connecting,
    and `ClientError` subclasses for network, server and agent failures.
    """
    owned = isinstance(agent, str)
    if isinstance(agent, str):
        from player.spec import make_agent

        agent = make_agent(agent)
    try:
        config = PlayerConfig(
            host=host,
            port=port,
            name=name or default_player_name(agent.name),
            games=games,
            move_time=move_time,
            room=room,
            seat=seat,
            pool=pool,
            secret=secret,
            safety_margin=safety_margin,
            connect_wait=connect_wait,
        )
        client = PlayerClient(agent, game, options, config, on_result=on_result)
        return await client.run()
    finally:
        if owned:
            agent.close()
