"""Round-robin tournaments: configuration, schedule, records and the director.

Why the director is a protocol client: players are ordinary clients that seek
in the tournament's *pool* with a join secret, and the director is one more
client that tells the server whom to pair (``direct``, ``pair``) and hears
each result (``match_end``). So a tournament runs the same way against an
embedded server or a remote one, and grows by adding player instances on any
machine.

Durability: the configuration is stored when the tournament starts and each
game's result is committed as soon as it is known, keyed by its index in the
schedule. Resuming plays only the indices without a result. The schedule and
each game's seed derive from the configuration alone, so a resumed tournament
is the same tournament.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import itertools
import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

import structlog
import trio

from games import Game, Termination, make_game
from protocol.codec import (
    ConnectionClosed,
    FrameReader,
    ProtocolError,
    encode_message,
    server_message_decoder,
)
from protocol.messages import (
    PROTOCOL_VERSION,
    Direct,
    Error,
    Hello,
    MatchEnd,
    Pair,
    Paired,
    Ping,
    Pong,
    PoolPlayer,
    PoolStatus,
    Welcome,
)
from server.store import Store, like_prefix

log = structlog.get_logger("arena.tournament")

#: terminations that count as the loser's failure (not a fair loss over the board)
FAILURES = frozenset(
    {
        Termination.TIMEOUT.value,
        Termination.DISCONNECT.value,
        Termination.PROTOCOL_ERROR.value,
        Termination.ILLEGAL_MOVE.value,
    }
)


class TournamentError(Exception):
    """The tournament cannot go on (bad configuration, server refused, ...)."""


@dataclass(frozen=True, slots=True)
class TournamentPlayer:
    """A participant: a unique name and, for a local player, the agent spec to launch."""

    name: str
    spec: str | None  # None: a remote player that connects by itself
    instances: int = 1

    def __post_init__(self) -> None:
        if not 1 <= len(self.name) <= 64:
            raise ValueError(f"player name must be 1 to 64 characters, not {self.name!r}")
        if self.instances < 1:
            raise ValueError(f"instances must be >= 1, not {self.instances}")


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """Everything that defines a tournament (and therefore its id)."""

    game: str
    options: dict[str, Any]
    players: tuple[TournamentPlayer, ...]
    games_per_pair: int = 2
    move_time: float = 1.0
    seed: int = 0

    def __post_init__(self) -> None:
        names = [p.name for p in self.players]
        if len(names) < 2:
            raise ValueError(f"a tournament needs at least 2 players, not {len(names)}")
        if len(set(names)) != len(names):
            duplicate = next(n for n in names if names.count(n) > 1)
            raise ValueError(f"player names must be unique; {duplicate!r} appears twice")
        if self.games_per_pair < 2 or self.games_per_pair % 2:
            raise ValueError(
                "games per pair must be even and >= 2 (each pair plays both seats),"
                f" not {self.games_per_pair}"
            )
        if not self.move_time > 0:
            raise ValueError(f"move time must be > 0 seconds, not {self.move_time!r}")

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TournamentConfig:
        data = json.loads(text)
        data["players"] = tuple(TournamentPlayer(**p) for p in data["players"])
        return cls(**data)

    @property
    def id(self) -> str:
        """A stable id: the same configuration is the same tournament (and resumes)."""
        identity = asdict(self)
        for player in identity["players"]:
            player.pop("instances")  # how many processes run a player does not change it
        digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
        return f"t-{digest[:10]}"


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    index: int
    seats: tuple[str, ...]  # player name per seat
    seed: int


def build_schedule(config: TournamentConfig, num_seats: int = 2) -> list[ScheduledGame]:
    """Every pair (group of `num_seats`) plays `games_per_pair` games, seats rotating.

    Games are ordered round by round (each round: every pair once), so the
    games of an interrupted tournament are spread evenly over the pairs.
    """
    groups = list(itertools.combinations(config.names, num_seats))
    rng = random.Random(config.seed)
    schedule: list[ScheduledGame] = []
    for round_index in range(config.games_per_pair):
        for group in groups:
            shift = round_index % num_seats
            seats = tuple(group[shift:] + group[:shift])
            schedule.append(ScheduledGame(len(schedule), seats, rng.getrandbits(31)))
    return schedule


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished tournament game."""

    index: int
    seats: tuple[str, ...]
    scores: tuple[float, ...]
    termination: str
    match_id: str
    plies: int

    def score_of(self, name: str) -> float:
        return self.scores[self.seats.index(name)]


class TournamentRecords:
    """Tournaments and their results in the SQLite records database."""

    def __init__(self, store: Store) -> None:
        self.store = store  # its schema holds the tournament tables

    def save(self, config: TournamentConfig, status: str) -> None:
        now = time.time()
        with self.store.transaction() as db:
            db.execute(
                "INSERT INTO tournaments (id, config, status, created_at, updated_at)"
                " VALUES (?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET status=excluded.status,"
                " updated_at=excluded.updated_at",
                (config.id, config.to_json(), status, now, now),
            )

    def load(self, tournament_id: str) -> tuple[TournamentConfig, str] | None:
        """The tournament with this id (or unique id prefix) and its status."""
        with self.store.reading() as db:
            rows = db.execute(
                "SELECT id, config, status FROM tournaments WHERE id=? OR id LIKE ? ESCAPE '\\'"
                " LIMIT 2",
                (tournament_id, like_prefix(tournament_id)),
            ).fetchall()
        exact = [row for row in rows if row[0] == tournament_id]
        if exact or len(rows) == 1:
            row = (exact or rows)[0]
            return TournamentConfig.from_json(row[1]), row[2]
        return None

    def list(self) -> list[tuple[TournamentConfig, str, float]]:
        with self.store.reading() as db:
            rows = db.execute(
                "SELECT config, status, created_at FROM tournaments ORDER BY created_at DESC"
            ).fetchall()
        return [(TournamentConfig.from_json(r[0]), r[1], r[2]) for r in rows]

    def add_result(self, tournament_id: str, result: GameResult) -> None:
        with self.store.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO tournament_games (tournament, idx, seats, scores,"
                " termination, match_id, plies, finished_at) VALUES (?,?,?,?,?,?,?,?)",
                (
                    tournament_id,
                    result.index,
                    json.dumps(list(result.seats)),
                    json.dumps(list(result.scores)),
                    result.termination,
                    result.match_id,
                    result.plies,
                    time.time(),
                ),
            )

    def results(self, tournament_id: str) -> dict[int, GameResult]:
        """Finished games by schedule index.

        Also adopts finished match records tagged with this tournament that have
        no result row yet (the process was killed between the server's commit
        and the director's), so no finished game is ever played twice.
        """
        with self.store.reading() as db:
            rows = db.execute(
                "SELECT idx, seats, scores, termination, match_id, plies FROM tournament_games"
                " WHERE tournament=?",
                (tournament_id,),
            ).fetchall()
        results = {
            row[0]: GameResult(
                row[0], tuple(json.loads(row[1])), tuple(json.loads(row[2])), row[3], row[4], row[5]
            )
            for row in rows
        }
        for record in self.store.list_matches(
            1_000_000, status="finished", tournament=tournament_id
        ):
            index = record.extra.get("index")
            seats = record.extra.get("seats") or record.players
            if isinstance(index, int) and index not in results and record.scores is not None:
                result = GameResult(
                    index,
                    tuple(seats),
                    tuple(record.scores),
                    record.termination or "",
                    record.id,
                    record.plies,
                )
                self.add_result(tournament_id, result)
                results[index] = result
        return results


@dataclass
class PlayerState:
    name: str
    secret: str
    failures: int = 0  # consecutive forfeits
    withdrawn: str | None = None  # the reason, once withdrawn


class _Wake:
    """An internal event for the director's queue (a withdrawal from outside)."""


class TournamentDirector:
    """Plays a tournament's missing games through a server, as a protocol client."""

    def __init__(
        self,
        config: TournamentConfig,
        *,
        secrets: dict[str, str],
        concurrency: int,
        done: dict[int, GameResult] | None = None,
        pool: str | None = None,
        max_failures: int = 3,
        on_result: Callable[[GameResult], None] | None = None,
        on_withdrawn: Callable[[str, str], None] | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, not {concurrency}")
        self.config = config
        self.id = config.id
        self.pool = pool or config.id
        self.game: Game[Any, Any] = make_game(config.game, config.options)
        self.schedule = build_schedule(config, self.game.num_players)
        self.concurrency = concurrency
        self.max_failures = max_failures
        self.on_result = on_result
        self.on_withdrawn = on_withdrawn
        self.results: dict[int, GameResult] = dict(done or {})
        self.players = {name: PlayerState(name, secrets[name]) for name in config.names}
        self.pending = [g for g in self.schedule if g.index not in self.results]
        self.requested: collections.deque[ScheduledGame] = collections.deque()
        self.running: dict[str, ScheduledGame] = {}
        self.idle: dict[str, int] = {}
        self._queue_send, self._queue = trio.open_memory_channel[Any](256)

    @property
    def total(self) -> int:
        return len(self.schedule)

    def withdraw(self, name: str, reason: str) -> None:
        """Take a player out: its unplayed games become forfeits (losses)."""
        player = self.players[name]
        if player.withdrawn is not None:
            return
        player.withdrawn = reason
        log.warning("player_withdrawn", tournament=self.id, player=name, reason=reason)
        if self.on_withdrawn:
            self.on_withdrawn(name, reason)
        with contextlib.suppress(trio.WouldBlock):  # a full queue: the director is awake anyway
            self._queue_send.send_nowait(_Wake())

    async def run(self, host: str, port: int) -> dict[int, GameResult]:
        """Connect, play every pending game, return all results by index."""
        try:
            stream = await trio.open_tcp_stream(host, port)
        except OSError as exc:
            raise TournamentError(f"cannot connect to the server at {host}:{port}: {exc}") from None
        async with stream:
            await stream.send_all(
                encode_message(Hello(version=PROTOCOL_VERSION, name=f"director-{self.id}"[:64]))
            )
            await stream.send_all(
                encode_message(
                    Direct(
                        pool=self.pool,
                        players=[PoolPlayer(p.name, p.secret) for p in self.players.values()],
                    )
                )
            )
            error: TournamentError | None = None
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._read, stream)
                try:
                    await self._direct(stream)
                except TournamentError as exc:
                    error = exc
                nursery.cancel_scope.cancel()
        if error is not None:
            raise error
        return self.results

    async def _read(self, stream: trio.SocketStream) -> None:
        reader = FrameReader(stream, 1 << 24)
        decoder = server_message_decoder()
        try:
            while True:
                message = decoder.decode(await reader.read_frame())
                if isinstance(message, Ping):
                    await stream.send_all(encode_message(Pong(message.id)))
                    continue
                await self._queue_send.send(message)
        except (ConnectionClosed, ProtocolError, trio.BrokenResourceError) as exc:
            await self._queue_send.send(TournamentError(f"lost the server connection: {exc}"))

    async def _direct(self, stream: trio.SocketStream) -> None:
        while self.pending or self.requested or self.running:
            await self._forfeit_withdrawn()
            await self._request_pairs(stream)
            if not (self.pending or self.requested or self.running):
                break
            message = await self._queue.receive()
            if isinstance(message, TournamentError):
                raise message
            if isinstance(message, PoolStatus):
                self.idle = dict(message.idle)
            elif isinstance(message, Paired):
                scheduled = self.requested.popleft()
                self.running[message.match] = scheduled
            elif isinstance(message, MatchEnd):
                scheduled_or_none = self.running.pop(message.match, None)
                if scheduled_or_none is not None:
                    self._finished(scheduled_or_none, message)
            elif isinstance(message, Error):
                if message.code == "not_available" and self.requested:
                    # a player left between our view of the pool and the request
                    self.pending.insert(0, self.requested.popleft())
                    await trio.sleep(0.05)
                elif message.fatal or message.code in {"pool_taken", "not_director", "bad_request"}:
                    raise TournamentError(f"the server refused: {message.code}: {message.message}")
                else:
                    log.warning("server_error", code=message.code, error=message.message)
            elif isinstance(message, Welcome | _Wake):
                pass

    async def _request_pairs(self, stream: trio.SocketStream) -> None:
        idle = dict(self.idle)
        for scheduled in list(self.pending):
            if len(self.running) + len(self.requested) >= self.concurrency:
                break
            if any(self.players[name].withdrawn for name in scheduled.seats):
                continue
            needed = collections.Counter(scheduled.seats)
            if any(idle.get(name, 0) < count for name, count in needed.items()):
                continue
            for name, count in needed.items():
                idle[name] -= count
            self.pending.remove(scheduled)
            self.requested.append(scheduled)
            await stream.send_all(
                encode_message(
                    Pair(
                        pool=self.pool,
                        seats=list(scheduled.seats),
                        game=self.config.game,
                        options=self.config.options,
                        move_time=self.config.move_time,
                        tournament=self.id,
                        index=scheduled.index,
                        seed=scheduled.seed,
                    )
                )
            )
        self.idle = idle

    def _finished(self, scheduled: ScheduledGame, end: MatchEnd) -> None:
        if end.termination == Termination.ABORTED.value:
            self.pending.insert(0, scheduled)  # the server stopped it: play it again
            return
        result = GameResult(
            scheduled.index,
            scheduled.seats,
            tuple(end.scores),
            end.termination,
            end.match,
            end.ply,
        )
        self._record(result)
        if result.termination in FAILURES:
            loser = min(range(len(result.scores)), key=lambda s: result.scores[s])
            player = self.players[scheduled.seats[loser]]
            player.failures += 1
            if player.failures >= self.max_failures:
                self.withdraw(
                    player.name,
                    f"{player.failures} forfeits in a row (last: {result.termination})",
                )
        else:
            for name in scheduled.seats:
                self.players[name].failures = 0

    def _record(self, result: GameResult) -> None:
        self.results[result.index] = result
        if self.on_result:
            self.on_result(result)

    async def _forfeit_withdrawn(self) -> None:
        """Score the pending games of withdrawn players as their losses."""
        for scheduled in list(self.pending):
            withdrawn = [n for n in scheduled.seats if self.players[n].withdrawn]
            if not withdrawn:
                continue
            self.pending.remove(scheduled)
            n = len(scheduled.seats)
            losers = {i for i, name in enumerate(scheduled.seats) if name in withdrawn}
            if len(losers) == n:
                scores = tuple(1.0 / n for _ in range(n))
            else:
                share = 1.0 / (n - len(losers))
                scores = tuple(0.0 if i in losers else share for i in range(n))
            self._record(
                GameResult(
                    scheduled.index,
                    scheduled.seats,
                    scores,
                    Termination.WITHDRAWN.value,
                    "-",
                    0,
                )
            )
        await trio.lowlevel.checkpoint()
