"""The one protocol client: a framed, typed connection to a server, its handshake and pings.

Every client of the protocol uses it: the player runtime, the tournament
director, `arena status`, `arena ping` and `arena watch`. It does the
handshake (``hello`` -> ``welcome``, with the version check), answers the
server's pings by itself, and turns every failure into a `ClientError`
(protocol/errors.py): a refusal is `ServerRejected` with its code, a dropped
connection `ConnectionLost`, a malformed frame `ServerProtocolError`.

Server not up yet (refused, unresolvable): `open_connection` retries with
capped, jittered exponential backoff for up to ``wait`` seconds (docker
starts the players before the server), logging each retry.
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import structlog
import trio

from protocol.codec import (
    DEFAULT_MAX_FRAME,
    ConnectionClosed,
    FrameReader,
    ProtocolError,
    encode_message,
    server_message_decoder,
)
from protocol.errors import (
    ConnectionLost,
    ServerProtocolError,
    ServerRejected,
    ServerSilent,
    ServerUnreachable,
)
from protocol.messages import (
    PROTOCOL_VERSION,
    ClientMessage,
    Error,
    Hello,
    Ping,
    Pong,
    Role,
    ServerMessage,
    Welcome,
)
from protocol.transport import open_stream

log = structlog.get_logger("arena.client")

#: the largest frame accepted from the server (a match list can exceed 64 KiB)
SERVER_MAX_FRAME = 16 * DEFAULT_MAX_FRAME
CLIENT_ID = "mcts-arena-player/1"

Connector = Callable[[str, int], Awaitable[trio.abc.Stream]]


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

    Sends are serialised by a lock, so several tasks (the reader, the thinker
    sending its move) may send. `receive` answers the server's ``ping`` itself
    and never returns one. Transport failures become `ConnectionLost`;
    malformed frames from the server `ServerProtocolError`.
    """

    def __init__(
        self,
        stream: trio.abc.Stream,
        *,
        max_frame: int = SERVER_MAX_FRAME,
        client: str = CLIENT_ID,
    ) -> None:
        self.stream = stream
        self.client = client
        self._reader = FrameReader(stream, max_frame)
        self._decoder = server_message_decoder()
        self._send_lock = trio.Lock()
        #: seconds of silence from the server after which the connection counts as lost;
        #: set from the server's ping interval at `welcome` (None before it: no limit)
        self.silence_limit: float | None = None

    async def send(self, message: ClientMessage) -> None:
        """Send one message (whole frame)."""
        data = encode_message(message)
        async with self._send_lock:
            try:
                await self.stream.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
                raise ConnectionLost(f"connection lost while sending: {exc or 'closed'}") from None

    async def receive(self) -> ServerMessage:
        """The next message from the server (its pings are answered here, not returned)."""
        while True:
            message = await self._receive()
            if not isinstance(message, Ping):
                return message
            await self.send(Pong(id=message.id))

    async def _receive(self) -> ServerMessage:
        try:
            body = await self._read_frame()
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

    async def _read_frame(self) -> bytes:
        """The next frame's body, or `ConnectionLost` after `silence_limit` seconds of nothing.

        A healthy server pings every connection every `Welcome.ping_interval`
        seconds, so a longer silence means a frozen host (SIGSTOP, a hung VM) or a
        dead network path, on which TCP alone would wait for ever.
        """
        if self.silence_limit is None:
            return await self._reader.read_frame()
        with trio.move_on_after(self.silence_limit):
            return await self._reader.read_frame()
        raise ServerSilent(
            f"the server sent nothing for {self.silence_limit:g} s"
            " (it pings every few seconds): its host is frozen or the network is down"
        )

    async def handshake(self, name: str, role: Role, *, human: bool = False) -> Welcome:
        """Send ``hello`` and wait for ``welcome``, answering pings meanwhile.

        The caller bounds the wait with a cancel scope (see `handshake_within`).
        """
        # on a server with accounts, the name's password (docs/PROTOCOL.md section 7)
        password = os.environ.get("ARENA_PASSWORD", "")
        await self.send(
            Hello(
                version=PROTOCOL_VERSION,
                name=name,
                role=role,
                client=self.client,
                password=password,
                human=human,
            )
        )
        while True:
            message = await self.receive()
            if isinstance(message, Welcome):
                if message.version != PROTOCOL_VERSION:
                    raise ServerProtocolError(
                        f"the server speaks protocol version {message.version},"
                        f" this client {PROTOCOL_VERSION}"
                    )
                self.silence_limit = silence_limit(message.ping_interval)
                return message
            if isinstance(message, Error):
                raise ServerRejected(message.code, message.message)
            raise ServerProtocolError(
                f"expected 'welcome' after 'hello', got {message_tag(message)!r}"
            )

    async def handshake_within(self, seconds: float, name: str, role: Role) -> Welcome:
        """`handshake`, failing with `ServerProtocolError` after `seconds`."""
        with trio.move_on_after(seconds):
            return await self.handshake(name, role)
        raise ServerProtocolError(f"no 'welcome' from the server within {seconds:g} s")

    async def aclose(self) -> None:
        """Close the connection (never raises)."""
        await trio.aclose_forcefully(self.stream)


def silence_limit(ping_interval: float) -> float:
    """How long a client waits on a silent server that pings every `ping_interval` seconds:
    two missed pings and a margin for a busy server. An interval that is no positive number
    (a server's bad `welcome`) sets no limit."""
    if not ping_interval > 0:  # NaN, zero, negative
        return math.inf
    return 2 * ping_interval + 5.0


async def _open_tcp(host: str, port: int) -> trio.abc.Stream:
    return await open_stream(host, port)


async def open_connection(
    host: str,
    port: int,
    *,
    wait: float = 0.0,
    backoff: Backoff | None = None,
    attempt_timeout: float = 5.0,
    connect: Connector | None = None,
    rng: random.Random | None = None,
    on_retry: Callable[[str], None] | None = None,
    max_frame: int = SERVER_MAX_FRAME,
    client: str = CLIENT_ID,
) -> Connection:
    """Connect to ``host:port``, retrying for up to `wait` seconds.

    `on_retry` gets a line of progress before each retry (``connecting to
    HOST:PORT, retry 3 in 0.4 s (Connection refused)``); the ``connect_retry``
    log event is then at debug level, so a user sees each retry once. Raises
    `ServerUnreachable` naming the address and the last error.
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
                return Connection(await opener(host, port), max_frame=max_frame, client=client)
            except OSError as exc:
                error = describe_os_error(exc)
        delay = policy.delay(attempt - 1, rand)
        if trio.current_time() + delay > deadline:
            tries = "" if attempt == 1 else f"; {attempt} attempts over {wait:g} s"
            raise ServerUnreachable(
                f"cannot connect to the server at {host}:{port} ({error}{tries})"
            )
        # one message a retry: the caller's line when it prints one, else the log's event
        (log.debug if on_retry is not None else log.info)(
            "connect_retry",
            host=host,
            port=port,
            attempt=attempt,
            error=error,
            delay=delay,
            give_up_after=wait,
        )
        if on_retry is not None:
            on_retry(
                f"connecting to {host}:{port}, retry {attempt} in {delay:.1f} s ({error});"
                f" giving up after {wait:g} s"
            )
        await trio.sleep(delay)


def describe_os_error(exc: OSError) -> str:
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


def message_tag(message: Any) -> str:
    """A message's ``type`` (its struct tag), for messages naming what arrived."""
    config = getattr(type(message), "__struct_config__", None)
    return str(config.tag) if config is not None else type(message).__name__


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
            if isinstance(message, Error) and message.fatal:
                raise ServerRejected(message.code, message.message)
    finally:
        await conn.aclose()
