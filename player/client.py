"""The player runtime: connects an `Agent` to an arena server and plays matches.

Why this shape: the network and the clock live here; the agent only turns a
state and a budget into a move. The policies, written down:

- Budget: ``min(agent's own time limit, time_left - safety_margin)``, never
  below ``min_budget``; the agent's iteration cap (if any) is kept.
- The agent runs in a worker thread (``abandon_on_cancel``) and a reader task
  answers ``ping`` before anything else, so the connection stays responsive
  while the agent thinks. Every agent call holds one `threading.Lock`: an
  abandoned search (its match ended meanwhile) finishes before the agent is
  called again, as the `Agent` contract requires.
- Server not up yet (refused, unresolvable): retry with capped, jittered
  exponential backoff for up to ``connect_wait`` seconds (docker starts the
  players before the server).
- Connection lost mid-match: reconnect and ``rejoin`` with the seat's token;
  lost between matches: reconnect and seek again. ``max_reconnects`` losses in
  a row without progress give up.
- Every failure the user can meet is a `ClientError` with a readable message.
"""

from __future__ import annotations

import contextlib
import os
import random
import socket
import threading
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import structlog
import trio

from games import Game, InvalidMoveError, InvalidStateError, Outcome, Termination, make_game
from player.agent import Agent, SearchLimit
from protocol.codec import (
    DEFAULT_MAX_FRAME,
    ConnectionClosed,
    FrameReader,
    ProtocolError,
    encode_message,
    server_message_decoder,
)
from protocol.messages import (
    PROTOCOL_VERSION,
    ClientMessage,
    Error,
    Hello,
    Illegal,
    Join,
    MatchEnd,
    Matches,
    MatchStart,
    Move,
    Ping,
    Pong,
    Rejoin,
    Resign,
    Role,
    Seek,
    Seeking,
    ServerMessage,
    TimeControl,
    Turn,
    Update,
    Welcome,
)

log = structlog.get_logger("arena.player")

T = TypeVar("T")

#: the largest frame accepted from the server (a match list can exceed 64 KiB)
SERVER_MAX_FRAME = 16 * DEFAULT_MAX_FRAME
CLIENT_ID = "mcts-arena-player/1"
#: fatal server errors after which reconnecting makes sense
RECOVERABLE_FATAL = frozenset({"server_shutdown", "idle_timeout", "slow_consumer"})
#: server messages waiting for the match logic (pings are answered before the queue)
INBOX_SIZE = 64
#: non-fatal errors answering a ``rejoin`` that mean the seat is gone
REJOIN_REFUSED = frozenset({"bad_token", "unknown_match", "not_in_match"})

Connector = Callable[[str, int], Awaitable[trio.abc.Stream]]


# --- errors -------------------------------------------------------------------


class ClientError(Exception):
    """The client cannot go on; ``str(exc)`` is a message for the user."""


class ServerUnreachable(ClientError):
    """No connection to the server could be made within the allowed time."""


class ConnectionLost(ClientError):
    """The connection dropped (retried internally; raised when retries run out)."""


class ServerRejected(ClientError):
    """The server refused a request or closed the connection with an error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"server error {code}: {message}")
        self.code = code
        self.message = message


class ServerProtocolError(ClientError):
    """The server sent something that breaks the protocol."""


class AgentError(ClientError):
    """The agent raised an exception or stayed busy too long."""


class ResignMatch(Exception):
    """Raised by `Agent.choose` to resign the current match.

    With ``stop=True`` the client plays no further matches after this one
    (e.g. the human closed standard input).
    """

    def __init__(self, reason: str = "resigned", *, stop: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stop = stop


# --- connection ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Backoff:
    """Capped exponential backoff with jitter: attempt n waits about ``initial * factor**n``.

    ``jitter`` is the fraction of each delay that is randomised away, so many
    players started together do not reconnect in lockstep.
    """

    initial: float = 0.1
    factor: float = 2.0
    cap: float = 5.0
    jitter: float = 0.5

    def __post_init__(self) -> None:
        if not self.initial > 0:
            raise ValueError(f"backoff initial must be > 0 seconds, not {self.initial!r}")
        if self.factor < 1:
            raise ValueError(f"backoff factor must be >= 1, not {self.factor!r}")
        if self.cap < self.initial:
            raise ValueError(f"backoff cap ({self.cap!r}) must be >= initial ({self.initial!r})")
        if not 0 <= self.jitter <= 1:
            raise ValueError(f"backoff jitter must be in [0, 1], not {self.jitter!r}")

    def delay(self, attempt: int, rng: random.Random) -> float:
        """Seconds to wait before retry number `attempt` (0-based)."""
        base = min(self.cap, self.initial * self.factor ** min(attempt, 64))
        return base * (1.0 - self.jitter * rng.random())


class Connection:
    """One framed connection to the server: typed send and receive.

    Sends are serialised by a lock, so several tasks (the reader answering
    pings, the thinker sending its move) may send. Transport failures become
    `ConnectionLost`; malformed frames from the server `ServerProtocolError`.
    """

    def __init__(self, stream: trio.abc.Stream, *, max_frame: int = SERVER_MAX_FRAME) -> None:
        self.stream = stream
        self._reader = FrameReader(stream, max_frame)
        self._decoder = server_message_decoder()
        self._send_lock = trio.Lock()

    async def send(self, message: ClientMessage) -> None:
        """Send one message (whole frame)."""
        data = encode_message(message)
        async with self._send_lock:
            try:
                await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                raise ConnectionLost(f"connection lost while sending: {exc or 'closed'}") from None

    async def receive(self) -> ServerMessage:
        """The next message from the server."""
        try:
            body = await self._reader.read_frame()
        except ConnectionClosed as exc:
            raise ConnectionLost(str(exc)) from None
        except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
            raise ConnectionLost(f"connection lost: {exc or 'closed'}") from None
        except ProtocolError as exc:
            raise ServerProtocolError(
                f"the server sent a bad frame ({exc.code}): {exc.message}"
            ) from None
        try:
            return self._decoder.decode(body)
        except ProtocolError as exc:
            raise ServerProtocolError(
                f"the server sent a bad message ({exc.code}): {exc.message}"
            ) from None

    async def handshake(self, name: str, role: Role) -> Welcome:
        """Send ``hello`` and wait for ``welcome``, answering pings meanwhile.

        The caller bounds the wait with a cancel scope (see `handshake_within`).
        """
        await self.send(Hello(version=PROTOCOL_VERSION, name=name, role=role, client=CLIENT_ID))
        while True:
            message = await self.receive()
            if isinstance(message, Welcome):
                if message.version != PROTOCOL_VERSION:
                    raise ServerProtocolError(
                        f"the server speaks protocol version {message.version},"
                        f" this client {PROTOCOL_VERSION}"
                    )
                return message
            if isinstance(message, Ping):
                await self.send(Pong(id=message.id))
            elif isinstance(message, Error):
                raise ServerRejected(message.code, message.message)
            else:
                raise ServerProtocolError(
                    f"expected 'welcome' after 'hello', got {_tag(message)!r}"
                )

    async def handshake_within(self, seconds: float, name: str, role: Role) -> Welcome:
        """`handshake`, failing with `ServerProtocolError` after `seconds`."""
        with trio.move_on_after(seconds):
            return await self.handshake(name, role)
        raise ServerProtocolError(f"no 'welcome' from the server within {seconds:g} s")

    async def aclose(self) -> None:
        """Close the connection (never raises)."""
        await trio.aclose_forcefully(self.stream)


async def _open_tcp(host: str, port: int) -> trio.abc.Stream:
    return await trio.open_tcp_stream(host, port)


async def open_connection(
    host: str,
    port: int,
    *,
    wait: float = 0.0,
    backoff: Backoff | None = None,
    attempt_timeout: float = 5.0,
    connect: Connector | None = None,
    rng: random.Random | None = None,
) -> Connection:
    """Connect to ``host:port``, retrying for up to `wait` seconds.

    Raises `ServerUnreachable` naming the address and the last error.
    """
    policy = backoff or Backoff()
    opener = connect or _open_tcp
    rand = rng or random.Random()
    deadline = trio.current_time() + wait
    attempt = 0
    while True:
        attempt += 1
        error = f"no answer within {attempt_timeout:g} s"
        with trio.move_on_after(attempt_timeout):
            try:
                return Connection(await opener(host, port))
            except OSError as exc:
                error = _describe_os_error(exc)
        delay = policy.delay(attempt - 1, rand)
        if trio.current_time() + delay > deadline:
            tries = "" if attempt == 1 else f"; {attempt} attempts over {wait:g} s"
            raise ServerUnreachable(
                f"cannot connect to the server at {host}:{port} ({error}{tries})"
            )
        log.info("connect_retry", host=host, port=port, attempt=attempt, error=error, delay=delay)
        await trio.sleep(delay)


def _describe_os_error(exc: OSError) -> str:
    """The OS's words for a failed connect (trio wraps one error per address tried)."""
    cause = exc.__cause__
    if isinstance(cause, BaseExceptionGroup):
        for leaf in cause.exceptions:
            if isinstance(leaf, OSError) and leaf.strerror:
                # "Error connecting to ('127.0.0.1', 1): Connection refused"
                return leaf.strerror.rpartition("): ")[2] or leaf.strerror
    if isinstance(cause, OSError) and cause.strerror:
        return cause.strerror
    return exc.strerror or str(exc) or type(exc).__name__


def _tag(message: Any) -> str:
    config = getattr(type(message), "__struct_config__", None)
    return str(config.tag) if config is not None else type(message).__name__


# --- results --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One finished match as seen by this player.

    `outcome` is None when the match was lost track of (the seat could not be
    taken back after a disconnect); its result is then unknown here.
    """

    match: str
    game: str
    seat: int
    seat_name: str
    players: tuple[str, ...]
    outcome: Outcome | None
    reason: str
    plies: int

    @property
    def score(self) -> float | None:
        """This seat's score (1 win, 0.5 draw, 0 loss), or None if unknown."""
        return None if self.outcome is None else self.outcome.scores[self.seat]

    @property
    def verdict(self) -> Literal["win", "draw", "loss", "unknown"]:
        """The result for this seat in one word."""
        if self.outcome is None:
            return "unknown"
        if self.outcome.winner is None:
            return "draw"
        return "win" if self.outcome.winner == self.seat else "loss"

    def summary(self) -> str:
        """A one-line summary, e.g. ``match m1 (tictactoe): win as X vs bob, 1-0 by line``."""
        opponents = ", ".join(p for s, p in enumerate(self.players) if s != self.seat) or "?"
        head = (
            f"match {self.match} ({self.game}): {self.verdict} as {self.seat_name} vs {opponents}"
        )
        if self.outcome is None:
            return f"{head} ({self.reason})"
        return f"{head}, {self.outcome.result()} by {self.outcome.termination.value} after {self.plies} plies"


# --- the runtime ------------------------------------------------------------------


def default_player_name(agent_name: str) -> str:
    """``<agent>@<host>``, cut to the protocol's 64 characters."""
    return f"{agent_name}@{socket.gethostname()}"[:64]


@dataclass(frozen=True, slots=True)
class PlayerConfig:
    """How a `PlayerClient` connects, what it asks for and its timing policies."""

    host: str = "127.0.0.1"
    port: int = 4242
    name: str = "player"
    games: int = 1
    move_time: float | None = None
    pool: str = ""
    secret: str = ""
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

    def __post_init__(self) -> None:
        if not 1 <= len(self.name) <= 64:
            raise ValueError(f"player name must be 1 to 64 characters, not {self.name!r}")
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be in 0..65535, not {self.port!r}")
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
        if self.seat is not None and self.room is None:
            raise ValueError("a seat can only be chosen when joining a room")


@dataclass
class _Match:
    """The match being played: the server's view, kept up to date by updates."""

    id: str
    game: Game[Any, Any]
    seat: int
    players: tuple[str, ...]
    token: str | None
    time_control: TimeControl
    state: Any
    ply: int


@dataclass
class _Choice:
    ply: int
    budget: float | None
    elapsed: float


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
        connect: Connector | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.agent = agent
        self.config = config or PlayerConfig()
        # validates the game name and options before anything touches the network
        self.game: Game[Any, Any] = make_game(game, options)
        self.results: list[MatchResult] = []
        self._on_result = on_result
        self._connect = connect
        self._rng = rng or random.Random()
        self._agent_lock = threading.Lock()
        self._match: _Match | None = None
        self._pending: Literal["seek", "join", "rejoin"] | None = None
        self._progress = 0
        self._stop = False
        self._think_scope: trio.CancelScope | None = None
        self._session_scope: trio.CancelScope | None = None
        self._failure: ClientError | None = None
        self._reader_failure: ClientError | None = None
        self._choice: _Choice | None = None

    @property
    def done(self) -> bool:
        """True when no further match will be played."""
        games = self.config.games
        return self._stop or (games > 0 and len(self.results) >= games)

    async def run(self) -> list[MatchResult]:
        """Play until `config.games` matches are over; return their results."""
        config = self.config
        losses = 0
        while not self.done:
            conn = await open_connection(
                config.host,
                config.port,
                wait=config.connect_wait,
                backoff=config.backoff,
                attempt_timeout=config.attempt_timeout,
                connect=self._connect,
                rng=self._rng,
            )
            progress = self._progress
            try:
                await self._session(conn)
            except ConnectionLost as exc:
                losses = 1 if self._progress != progress else losses + 1
                if losses > config.max_reconnects:
                    raise ConnectionLost(
                        f"the connection to {config.host}:{config.port} keeps dropping"
                        f" ({losses} times in a row): {exc}"
                    ) from None
                log.warning(
                    "connection_lost",
                    error=str(exc),
                    rejoin=self._match is not None,
                    attempt=losses,
                )
                await trio.sleep(config.backoff.delay(losses - 1, self._rng))
            finally:
                await conn.aclose()
        return self.results

    # --- one connection ---------------------------------------------------------

    async def _session(self, conn: Connection) -> None:
        welcome = await conn.handshake_within(
            self.config.handshake_timeout, self.config.name, "player"
        )
        log.info("connected", server=welcome.server, session=welcome.session)
        if self._match is not None and self._match.token is not None:
            self._pending = "rejoin"
            await conn.send(Rejoin(token=self._match.token))
        else:
            await self._request_match(conn)
        self._failure = None
        self._reader_failure = None
        failure: ClientError | None = None
        inbox_send, inbox = trio.open_memory_channel[ServerMessage](INBOX_SIZE)
        async with trio.open_nursery() as nursery:
            self._session_scope = nursery.cancel_scope
            nursery.start_soon(self._read, conn, inbox_send)
            try:
                async for message in inbox:
                    if await self._handle(conn, nursery, message):
                        break
            except ClientError as exc:
                failure = exc
            nursery.cancel_scope.cancel()
        self._session_scope = None
        self._cancel_think()
        # the agent's failure first, then the handler's, then the connection's
        for error in (self._failure, failure, self._reader_failure):
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
                    message = await conn.receive()
                    if isinstance(message, Ping):
                        await conn.send(Pong(id=message.id))
                    else:
                        await inbox.send(message)
            except ClientError as exc:
                # reported after the handler has seen every message before it
                self._reader_failure = exc

    async def _request_match(self, conn: Connection) -> None:
        config = self.config
        if config.room is not None:
            self._pending = "join"
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
            self._pending = "seek"
            await conn.send(
                Seek(
                    game=self.game.name,
                    options=dict(self.game.options),
                    move_time=config.move_time,
                    pool=config.pool,
                    secret=config.secret,
                )
            )

    async def _handle(self, conn: Connection, nursery: trio.Nursery, message: Any) -> bool:
        """React to one server message (pings are answered by the reader); True when done."""
        if isinstance(message, Turn):
            self._on_turn(conn, nursery, message)
        elif isinstance(message, Update):
            await self._on_update(message)
        elif isinstance(message, MatchStart):
            await self._on_match_start(message)
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
            return await self._on_match_end(conn, message)
        elif isinstance(message, Seeking):
            self._pending = None
            log.info("seeking", game=message.game, move_time=message.move_time, room=message.room)
        elif isinstance(message, Error):
            return await self._on_error(conn, message)
        elif isinstance(message, Ping | Pong | Matches | Welcome):
            log.debug("ignored", type=_tag(message))
        return False

    # --- match events -------------------------------------------------------------

    def _decode_state(self, game: Game[Any, Any], data: Any) -> Any:
        try:
            return game.decode_state(data)
        except InvalidStateError as exc:
            raise ServerProtocolError(
                f"the server sent an invalid {game.name} state: {exc}"
            ) from None

    def _decode_move(self, game: Game[Any, Any], data: Any) -> Any:
        try:
            return game.decode_move(data)
        except InvalidMoveError as exc:
            raise ServerProtocolError(
                f"the server sent an invalid {game.name} move: {exc}"
            ) from None

    async def _on_match_start(self, start: MatchStart) -> None:
        if start.seat is None:
            raise ServerProtocolError(f"match_start for {start.match!r} gives this player no seat")
        self._pending = None
        if start.game == self.game.name and start.options == self.game.options:
            game = self.game
        else:
            try:
                game = make_game(start.game, start.options)
            except ValueError as exc:
                raise ServerProtocolError(
                    f"the server started a match this client cannot play: {exc}"
                ) from None
        state = self._decode_state(game, start.state)
        history = [self._decode_move(game, move) for move in start.moves]
        current = self._match
        self._progress += 1
        if current is not None and current.id == start.match:
            resync = current.state != state or current.seat != start.seat
            current.state, current.ply, current.seat = state, start.ply, start.seat
            current.token = start.token or current.token
            log.info("match_rejoined", ply=start.ply, resync=resync)
            if resync:  # moves were missed: the agent starts over from this position
                await self._agent_call(self.agent.start, game, start.seat)
            await self._agent_call(self.agent.sync, state, history)
            return
        if current is not None:
            await self._lose_track(current, "a new match started before this one ended")
        self._match = _Match(
            id=start.match,
            game=game,
            seat=start.seat,
            players=tuple(start.players),
            token=start.token,
            time_control=start.time_control,
            state=state,
            ply=start.ply,
        )
        structlog.contextvars.bind_contextvars(match=start.match, seat=start.seat)
        log.info(
            "match_start",
            game=game.describe(),
            players=start.players,
            move_time=start.time_control.move_time,
            seed=start.seed,
        )
        if start.seed is not None:  # a tournament game: reproducible agents
            await self._agent_call(self.agent.seed_match, start.seed)
        await self._agent_call(self.agent.start, game, start.seat)
        await self._agent_call(self.agent.sync, state, history)

    def _on_turn(self, conn: Connection, nursery: trio.Nursery, turn: Turn) -> None:
        match = self._match
        if match is None or turn.match != match.id:
            log.warning("turn_for_unknown_match", turn_match=turn.match)
            return
        state = self._decode_state(match.game, turn.state)
        legal = [self._decode_move(match.game, m) for m in turn.legal_moves]
        match.state, match.ply = state, turn.ply
        limit = self.budget(turn.time_left)
        self._cancel_think()
        scope = trio.CancelScope()
        self._think_scope = scope
        nursery.start_soon(self._think, conn, match, turn.ply, state, legal, limit, scope)

    def budget(self, time_left: float) -> SearchLimit:
        """The search limit for a turn with `time_left` seconds on the clock."""
        available = max(self.config.min_budget, time_left - self.config.safety_margin)
        default = self.agent.default_limit
        return SearchLimit(time=available) if default is None else default.capped(available)

    async def _think(
        self,
        conn: Connection,
        match: _Match,
        ply: int,
        state: Any,
        legal: list[Any],
        limit: SearchLimit,
        scope: trio.CancelScope,
    ) -> None:
        with scope:
            started = trio.current_time()
            try:
                try:
                    move = await self._agent_call(self.agent.choose, state, limit, abandon=True)
                except ResignMatch as exc:
                    self._stop = self._stop or exc.stop
                    log.info("resign", reason=exc.reason, ply=ply)
                    await conn.send(Resign(match=match.id))
                    return
                except AgentError:
                    await _best_effort(conn.send(Resign(match=match.id)))
                    raise
                self._choice = _Choice(ply, limit.time, trio.current_time() - started)
                if move not in legal:
                    log.warning("agent_move_not_legal", ply=ply, move=repr(move))
                try:
                    wire = match.game.encode_move(move)
                except Exception as exc:
                    raise AgentError(
                        f"agent {self.agent.name!r} returned {move!r}, not a move"
                    ) from exc
                await conn.send(Move(match=match.id, ply=ply, move=wire))
            except ClientError as exc:
                self._failure = exc
                if self._session_scope is not None:
                    self._session_scope.cancel()

    def _cancel_think(self) -> None:
        if self._think_scope is not None:
            self._think_scope.cancel()
            self._think_scope = None

    async def _on_update(self, update: Update) -> None:
        match = self._match
        if match is None or update.match != match.id:
            log.debug("update_for_other_match", update_match=update.match)
            return
        move = self._decode_move(match.game, update.move)
        new_state = self._decode_state(match.game, update.state)
        previous = match.state
        match.state, match.ply = new_state, update.ply
        self._progress += 1
        extra: dict[str, Any] = {}
        choice = self._choice
        if update.seat == match.seat and choice is not None and choice.ply + 1 == update.ply:
            extra = {"own": True, "budget": choice.budget, "search_time": round(choice.elapsed, 4)}
        log.info(
            "move",
            ply=update.ply,
            mover=update.seat,
            move=update.notation,
            think_time=round(update.think_time, 4),
            **extra,
        )
        await self._agent_call(self.agent.observe, previous, move, new_state, quick=True)

    async def _on_match_end(self, conn: Connection, end: MatchEnd) -> bool:
        match = self._match
        if match is None or end.match != match.id:
            log.debug("match_end_for_other_match", end_match=end.match)
            return False
        self._cancel_think()
        try:
            termination = Termination(end.termination)
        except ValueError:
            raise ServerProtocolError(
                f"match_end with unknown termination {end.termination!r}"
            ) from None
        outcome = Outcome(
            scores=tuple(end.scores),
            winner=end.winner,
            termination=termination,
            points=None if end.points is None else tuple(end.points),
        )
        await self._agent_call(self.agent.finish, outcome)
        self._record(match, outcome, end.reason, end.ply)
        log.info(
            "match_end",
            result=outcome.result(),
            termination=termination.value,
            reason=end.reason,
            plies=end.ply,
            score=outcome.scores[match.seat] if match.seat < len(outcome.scores) else None,
        )
        structlog.contextvars.unbind_contextvars("match", "seat")
        return await self._next_match(conn)

    async def _next_match(self, conn: Connection) -> bool:
        if self.done:
            return True
        await self._request_match(conn)
        return False

    def _record(self, match: _Match, outcome: Outcome | None, reason: str, plies: int) -> None:
        self._match = None
        self._choice = None
        seat_names = match.game.seat_names
        result = MatchResult(
            match=match.id,
            game=match.game.describe(),
            seat=match.seat,
            seat_name=seat_names[match.seat] if match.seat < len(seat_names) else str(match.seat),
            players=match.players,
            outcome=outcome,
            reason=reason,
            plies=plies,
        )
        self.results.append(result)
        if self._on_result is not None:
            self._on_result(result)

    async def _lose_track(self, match: _Match, reason: str) -> None:
        log.warning("match_lost", lost_match=match.id, reason=reason)
        await self._agent_call(self.agent.finish, None)
        self._record(match, None, reason, match.ply)
        structlog.contextvars.unbind_contextvars("match", "seat")

    async def _on_error(self, conn: Connection, error: Error) -> bool:
        if error.fatal:
            if error.code in RECOVERABLE_FATAL:
                raise ConnectionLost(
                    f"the server closed the connection ({error.code}: {error.message})"
                )
            raise ServerRejected(error.code, error.message)
        pending, self._pending = self._pending, None
        match = self._match
        if pending == "rejoin" and match is not None and error.code in REJOIN_REFUSED:
            await self._lose_track(match, f"could not rejoin after a disconnect ({error.code})")
            return await self._next_match(conn)
        if pending in ("seek", "join"):
            raise ServerRejected(error.code, error.message)
        log.warning("server_error", code=error.code, message=error.message, error_match=error.match)
        return False

    # --- agent calls ------------------------------------------------------------

    async def _agent_call(
        self, fn: Callable[..., T], *args: Any, abandon: bool = False, quick: bool = False
    ) -> T:
        """Run one agent method in a worker thread, holding the agent lock there.

        A `quick` call (`observe`, which agents keep cheap) runs right here on
        the event loop when the agent is idle: a thread hop per move would cost
        more than the call itself.
        """
        name = getattr(fn, "__name__", "call")
        try:
            if quick and self._agent_lock.acquire(blocking=False):
                try:
                    return fn(*args)
                finally:
                    self._agent_lock.release()
            return await trio.to_thread.run_sync(
                self._locked, fn, args, abandon_on_cancel=abandon, thread_name=f"agent-{name}"
            )
        except (AgentError, ResignMatch):
            raise
        except Exception as exc:
            log.error("agent_failed", call=name, error=repr(exc), exc_info=True)
            raise AgentError(f"agent {self.agent.name!r} failed in {name}(): {exc!r}") from exc

    def _locked(self, fn: Callable[..., T], args: tuple[Any, ...]) -> T:
        timeout = self.config.agent_busy_timeout
        if not self._agent_lock.acquire(timeout=timeout):
            raise AgentError(
                f"agent {self.agent.name!r} is still busy after {timeout:g} s"
                " (a search that does not stop?)"
            )
        try:
            return fn(*args)
        finally:
            self._agent_lock.release()


async def _best_effort(send: Awaitable[None]) -> None:
    with contextlib.suppress(ClientError):
        await send


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


@dataclass(frozen=True, slots=True)
class PingResult:
    """What `ping_server` measured."""

    server: str
    session: str
    round_trip: float


async def ping_server(host: str, port: int, *, connect: Connector | None = None) -> PingResult:
    """Connect, shake hands as a spectator, send ``ping`` and wait for its ``pong``.

    Bound it with ``trio.fail_after``. Raises `ClientError` subclasses.
    """
    conn = await open_connection(host, port, connect=connect)
    try:
        welcome = await conn.handshake(f"ping-{os.getpid()}", "spectator")
        token = random.randrange(1, 2**31)
        sent = trio.current_time()
        await conn.send(Ping(id=token))
        while True:
            message = await conn.receive()
            if isinstance(message, Pong) and message.id == token:
                return PingResult(welcome.server, welcome.session, trio.current_time() - sent)
            if isinstance(message, Ping):
                await conn.send(Pong(id=message.id))
            elif isinstance(message, Error) and message.fatal:
                raise ServerRejected(message.code, message.message)
    finally:
        await conn.aclose()
