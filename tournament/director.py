"""The tournament director: a protocol client that has a server play a tournament's games.

Why a protocol client: players are ordinary clients that seek in the
tournament's *pool* with a join secret, and the director is one more client
that tells the server whom to pair (``direct``, ``pair``) and hears each
result (``match_end``). So a tournament runs the same way against an embedded
server or a remote one, and grows by adding player instances on any machine.

What to play comes from a `Plan` (a fixed schedule, or an SPRT that adds
pairs until it decides); each ``pair`` request carries the game's opening and
the ply limit. With the ``proven_nodes`` rule the director also watches its
games (``spectate``) and adjudicates the positions its solver proves
(``adjudicate``), off the event loop.
"""

from __future__ import annotations

import collections
import contextlib
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog
import trio

from games import Game, Termination, make_game
from protocol.client import Connection, open_connection
from protocol.errors import ClientError, ServerRejected
from protocol.messages import (
    Adjudicate,
    Direct,
    Directing,
    Error,
    MatchEnd,
    MatchStart,
    Pair,
    Paired,
    PoolPlayer,
    PoolStatus,
    Spectate,
    Update,
)
from tournament.adjudication import Proof, prove
from tournament.config import TournamentConfig
from tournament.errors import TournamentError as TournamentError
from tournament.results import GameResult
from tournament.schedule import Plan, ScheduledGame, make_plan

__all__ = ["FAILURES", "TournamentDirector", "TournamentError"]

log = structlog.get_logger("arena.tournament")

#: terminations that count as the loser's failure (not a fair loss over the board);
#: a timeout counts only when the loser never moved in that game (`failed`)
FAILURES = frozenset(
    {
        Termination.TIMEOUT.value,
        Termination.DISCONNECT.value,
        Termination.PROTOCOL_ERROR.value,
        Termination.ILLEGAL_MOVE.value,
        Termination.CRASH.value,
        Termination.STALLED.value,
    }
)


def failed(termination: str, ply: int, opening_plies: int, seats: int) -> bool:
    """Whether a game that ended so is its loser's failure, one step to its withdrawal.

    A disconnect, a crash, a stall, a protocol error or an illegal move always is. A timeout is
    only when the loser had not moved yet in the game (a player that stalls or
    never answers): a time loss after moves is a loss over the board, as in
    cutechess and fastchess, so a slow engine keeps its seat and its remaining
    games are played, not scored as losses.
    """
    if termination not in FAILURES:
        return False
    if termination == Termination.TIMEOUT.value:
        return ply - opening_plies < seats
    return True


#: how the director introduces itself, and the largest frame it accepts from the server
CLIENT = "mcts-arena-director/1"
MAX_FRAME = 1 << 24
HANDSHAKE_SECONDS = 10.0

#: seconds before a ``pair`` refused with ``store_unavailable`` is asked again
STORE_RETRY = 1.0
#: seconds before a game refused with ``not_available`` is asked for again (unless a
#: ``pool`` message comes first): the server may refuse a game that another node still
#: plays (one whose node died, until it is aborted), and then sends no ``pool`` message
NOT_AVAILABLE_RETRY = 1.0

#: server error codes that are expected races, not problems
_RACES = frozenset({"stale_position", "unknown_match"})


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
        owner: str = "",
        max_failures: int = 3,
        on_result: Callable[[GameResult], None] | None = None,
        on_withdrawn: Callable[[str, str], None] | None = None,
    ) -> None:
        if concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, not {concurrency}")
        self.config = config
        self.id = config.id
        self.pool = pool or config.id
        self.owner = owner  # the pool's owner key (docs/PROTOCOL.md section 5)
        self.game: Game[Any, Any] = make_game(config.game, config.options)
        self.rules = config.rules
        self.concurrency = concurrency
        self.max_failures = max_failures
        self.on_result = on_result
        self.on_withdrawn = on_withdrawn
        self.results: dict[int, GameResult] = dict(done or {})
        self.plan: Plan = make_plan(config, self.game, concurrency)
        self.players = {name: PlayerState(name, secrets[name]) for name in config.names}
        self.pending = self.plan.initial(self.results)
        self.requested: collections.deque[ScheduledGame] = collections.deque()
        self.running: dict[str, ScheduledGame] = {}
        self.idle: dict[str, int] = {}
        #: games refused with ``not_available``: not asked for again before this time
        self._held: dict[int, float] = {}
        self.adjudicated = 0  # adjudicate requests sent
        self._judging: set[str] = set()
        self._latest: dict[str, tuple[int, Any]] = {}  # a watched game's newest (ply, state)
        # a watched game's evaluations in a row, as seat 0's expected score
        self._evals: dict[str, list[float]] = {}
        self._conn: Connection | None = None
        #: the server accepted our ``direct``
        self._directing = False
        # the main loop, the reader (pongs) and the solvers all send: one frame at a time
        self._queue_send, self._queue = trio.open_memory_channel[Any](256)

    @property
    def total(self) -> int | None:
        """Games in all (None for an SPRT without a pair limit)."""
        return self.plan.total

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
            conn = await open_connection(host, port, client=CLIENT, max_frame=MAX_FRAME)
            self._conn = conn
            await conn.handshake_within(HANDSHAKE_SECONDS, f"director-{self.id}"[:64], "player")
        except ServerRejected as exc:
            raise TournamentError(
                f"the server refused: {exc.code}: {exc.message}", exc.code
            ) from None
        except ClientError as exc:
            raise TournamentError(f"cannot direct at {host}:{port}: {exc}") from None
        try:
            await self._send(self._direct_request())
            error: TournamentError | None = None
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._read, conn)
                try:
                    await self._direct(nursery)
                except TournamentError as exc:
                    error = exc
                nursery.cancel_scope.cancel()
        finally:
            await conn.aclose()
        if error is not None:
            raise error
        return self.results

    def _direct_request(self) -> Direct:
        return Direct(
            pool=self.pool,
            players=[PoolPlayer(p.name, p.secret) for p in self.players.values()],
            owner=self.owner,
        )

    async def _send(self, message: Any) -> None:
        assert self._conn is not None
        try:
            await self._conn.send(message)
        except ClientError as exc:
            raise TournamentError(f"lost the server connection: {exc}") from None

    async def _read(self, conn: Connection) -> None:
        try:
            while True:
                await self._queue_send.send(await conn.receive())  # pings answered there
        except ClientError as exc:
            await self._queue_send.send(TournamentError(f"lost the server connection: {exc}"))

    def _busy(self) -> bool:
        return bool(self.pending or self.requested or self.running)

    async def _direct(self, nursery: trio.Nursery) -> None:
        while self._busy():
            await self._forfeit_withdrawn()
            await self._request_pairs()
            if not self._busy():
                break
            message: Any = _Wake()
            with trio.move_on_at(self._next_retry()):
                message = await self._queue.receive()
            if isinstance(message, TournamentError):
                raise message
            if isinstance(message, Directing):
                self._directing = True
            elif isinstance(message, PoolStatus):
                self.idle = dict(message.idle)
            elif isinstance(message, Paired):
                scheduled = self.requested.popleft()
                self.running[message.match] = scheduled
                if self.rules.proven_nodes is not None or self.rules.by_evaluation:
                    await self._send(Spectate(match=message.match))
            elif isinstance(message, MatchStart | Update):
                self._watch(nursery, message)
                if isinstance(message, Update) and self.rules.by_evaluation:
                    await self._weigh(message)
            elif isinstance(message, MatchEnd):
                scheduled_or_none = self.running.pop(message.match, None)
                self._latest.pop(message.match, None)
                self._evals.pop(message.match, None)
                if scheduled_or_none is not None:
                    self._finished(scheduled_or_none, message)
            elif isinstance(message, Error):
                await self._on_error(message)
            elif isinstance(message, _Wake):
                pass

    def _next_retry(self) -> float:
        """When the next held game may be asked for again (inf: none is held); holds that
        are over are dropped (their games were considered by the last `_request_pairs`)."""
        now = trio.current_time()
        for index in [index for index, until in self._held.items() if until <= now]:
            del self._held[index]
        return min(self._held.values(), default=math.inf)

    async def _on_error(self, message: Error) -> None:
        if message.code == "not_available" and self.requested:
            # a player left between our view of the pool and the request (a ``pool``
            # message follows), or the game is being played on another node, whose
            # players are not ours to take (none follows): nobody was taken, so the
            # players count as idle again, and the game is asked for again after a
            # pause, whichever comes
            scheduled = self.requested.popleft()
            self.pending.insert(0, scheduled)
            for name in scheduled.seats:
                self.idle[name] = self.idle.get(name, 0) + 1
            self._held[scheduled.index] = trio.current_time() + NOT_AVAILABLE_RETRY
            log.info("pair_not_available", index=scheduled.index, error=message.message)
        elif message.code == "store_unavailable" and self.requested:
            # the records (on several servers: the shared database) cannot answer now
            log.warning("pair_retry", error=message.message)
            scheduled = self.requested.popleft()
            self.pending.insert(0, scheduled)
            for name in scheduled.seats:  # nobody was taken: they are idle still
                self.idle[name] = self.idle.get(name, 0) + 1
            await trio.sleep(STORE_RETRY)
        elif message.code == "store_unavailable" and not self._directing:
            # the pool's owner is the shared database's, which cannot answer now
            log.warning("direct_retry", error=message.message)
            await trio.sleep(STORE_RETRY)
            await self._send(self._direct_request())
        elif message.fatal or message.code in {"not_owner", "not_director", "bad_request"}:
            raise TournamentError(
                f"the server refused: {message.code}: {message.message}", message.code
            )
        elif message.code not in _RACES:
            log.warning("server_error", code=message.code, error=message.message)

    async def _request_pairs(self) -> None:
        idle = dict(self.idle)
        for scheduled in list(self.pending):
            if len(self.running) + len(self.requested) >= self.concurrency:
                break
            if any(self.players[name].withdrawn for name in scheduled.seats):
                continue
            if self._held.get(scheduled.index, -math.inf) > trio.current_time():
                continue
            self._held.pop(scheduled.index, None)
            needed = collections.Counter(scheduled.seats)
            if any(idle.get(name, 0) < count for name, count in needed.items()):
                continue
            for name, count in needed.items():
                idle[name] -= count
            self.pending.remove(scheduled)
            self.requested.append(scheduled)
            await self._send(
                Pair(
                    pool=self.pool,
                    seats=list(scheduled.seats),
                    game=self.config.game,
                    options=self.config.options,
                    move_time=self.config.move_time,
                    tournament=self.id,
                    index=scheduled.index,
                    seed=scheduled.seed,
                    opening=scheduled.opening.wire(self.game),
                    max_plies=self.rules.max_plies,
                )
            )
        self.idle = idle

    # --- adjudication by proof ------------------------------------------------------

    def _watch(self, nursery: trio.Nursery, message: MatchStart | Update) -> None:
        """A new position of a watched game: prove it (one search per game; the latest first)."""
        budget = self.rules.proven_nodes
        if budget is None or message.match not in self.running:
            return
        try:
            state = self.game.decode_state(message.state)
        except ValueError:
            return
        self._latest[message.match] = (message.ply, state)
        if message.match not in self._judging:
            self._judging.add(message.match)
            nursery.start_soon(self._judge, message.match, budget)

    async def _judge(self, match: str, budget: int) -> None:
        """Search the game's latest position until one is proven or the game ends."""
        judged = -1
        try:
            while match in self.running and self._latest[match][0] > judged:
                judged, state = self._latest[match]
                if self.game.is_terminal(state):
                    return
                proof = await trio.to_thread.run_sync(prove, self.game, state, budget)
                if proof is not None and match in self.running:
                    await self._adjudicate(match, judged, proof)
                    return
        finally:
            self._judging.discard(match)
            if match not in self.running:
                self._latest.pop(match, None)

    async def _weigh(self, update: Update) -> None:
        """Adjudicate on the engines' evaluations once the rules' run of them is there."""
        if update.match not in self.running:
            return
        scores = self._evals.setdefault(update.match, [])
        if update.eval is None:
            scores.clear()  # a move without an evaluation breaks the run
            return
        scores.append(update.eval if update.seat == 0 else 1.0 - update.eval)
        verdict = self.rules.judge_evaluations(scores)
        if verdict is None:
            return
        _, winner = verdict
        self._evals.pop(update.match, None)
        names = self.running[update.match].seats
        what = "a draw" if winner is None else f"a win for {names[winner]}"
        self.adjudicated += 1
        with contextlib.suppress(TournamentError):  # the reader reports a lost connection
            await self._send(
                Adjudicate(
                    match=update.match,
                    ply=update.ply,
                    winner=winner,
                    termination="evaluation",
                    reason=f"{what} by the engines' evaluations at ply {update.ply}",
                )
            )

    async def _adjudicate(self, match: str, ply: int, proof: Proof) -> None:
        names = self.running[match].seats
        verdict = "a draw" if proof.winner is None else f"a win for {names[proof.winner]}"
        self.adjudicated += 1
        with contextlib.suppress(TournamentError):  # the reader reports a lost connection
            await self._send(
                Adjudicate(
                    match=match,
                    ply=ply,
                    winner=proof.winner,
                    termination="proven",
                    reason=f"proven {verdict} at ply {ply} ({proof.nodes} nodes searched)",
                )
            )

    # --- results -------------------------------------------------------------------

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
            None if end.points is None else tuple(end.points),
            end.reason or None,
        )
        self._record(result)
        if failed(result.termination, end.ply, len(scheduled.opening), len(scheduled.seats)):
            loser = min(range(len(result.scores)), key=lambda s: result.scores[s])
            player = self.players[scheduled.seats[loser]]
            player.failures += 1
            if player.failures >= self.max_failures:
                self.withdraw(
                    player.name,
                    f"{player.failures} failures in a row (last: {result.termination})",
                )
        else:
            for name in scheduled.seats:
                self.players[name].failures = 0

    def _record(self, result: GameResult) -> None:
        self.results[result.index] = result
        if self.on_result:
            self.on_result(result)
        if self.plan.stopped(self.results):
            self.pending.clear()  # decided: nothing new starts; games under way finish
        else:
            outstanding = len(self.pending) + len(self.requested) + len(self.running)
            self.pending += self.plan.more(self.results, outstanding)

    async def _forfeit_withdrawn(self) -> None:
        """Score the pending games of withdrawn players as their losses."""
        for scheduled in list(self.pending):
            withdrawn = [n for n in scheduled.seats if self.players[n].withdrawn]
            if not withdrawn or scheduled not in self.pending:
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
