"""One match: the state, the clock and the seats, and the task that keeps time.

Why this shape: everything that can change a match (a move, a resignation, a
seat dropping or coming back) arrives through a synchronous handler
(`on_move`, `on_resign`, `on_disconnect`, `on_rejoin`) called by the
connection's session task. Trio switches tasks only at `await`, and the
handlers never await, so each runs to completion on the state it sees: no
races, no locks, and a move is validated, applied, broadcast and answered with
the next `turn` in the same step it is read, without waiting for another task
to be scheduled. The match's own task only keeps time: it sleeps until the
current deadline (the move's time limit, or a dropped seat's grace) and
enforces it, then records the result. The state is the server's: clients only
ever propose moves.

Clock rules (docs/PROTOCOL.md): each move has `move_time` seconds, plus a
`lag_margin` of network slack before it is a timeout; or, with a `Clock`
(``5+3``), each seat has its own remaining time, an increment per move and a
bounded lag compensation (`server.clock`). While the seat to move is
disconnected its clock is paused; it forfeits if it is not back within
`reconnect_grace` seconds. A seat that no connection ever took (its player,
paired on another node, never followed the ``redirect``) is not a forfeit:
the match ends aborted, without a result, once the grace from its start is
over, so that a tournament plays the game again.

Dead stones (docs/PROTOCOL.md, "Go: dead stones between people"): in a Go
match whose every seat said ``hello.human``, the pass that would be the second
in a row is held, not played: the clocks stop and the seats agree on the dead
stones (`server.marking`) within `marking_time`. Agreement plays the held pass
and counts with the dead taken off; ``resume`` withdraws it, so the recorded
moves stay plain Tromp–Taylor moves; no agreement in time counts the board as
it stands (or the one set a seat accepted and nobody changed since). In a Go
match between engines the board is counted as it stands, unless the policy
has a referee (``arena serve --referee``): then, before the end is recorded
and announced, the referee is asked for the dead stones (in a worker thread,
within `REFEREE_TIME`), and they are taken off before the count; the reason
names them and the referee. A referee that fails or is late leaves the count
as it stands, and the reason says so.

Match ids come from `server.match_ids` (unique per database forever).
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
import structlog
import trio

from games import Game, InvalidMoveError, Outcome, Termination
from games.go import PASS, Go, taken_off_text
from protocol.codec import encode_message
from protocol.messages import (
    Accept,
    Clock,
    Illegal,
    Mark,
    MatchEnd,
    MatchInfo,
    MatchStart,
    Move,
    Resume,
    Resumed,
    Scoring,
    TimeControl,
    Turn,
    Update,
)
from server.clock import GameClock
from server.config import MatchPolicy
from server.connection import Connection, LazyFlusher
from server.fanout import Fanout
from server.marking import DeadStones, MarkingError
from server.match_ids import new_match_id
from store import Recorder
from store.matches import MatchRecord, MatchTags, ResultRecord

log = structlog.get_logger("arena.server")

#: seconds past a deadline after which the match task's wake-up means that this process
#: did not run (a frozen host, a blocked loop): the deadline is enforced only after the
#: seats' input has been read, `STALL_RECHECK` seconds later
STALL = 1.0
STALL_RECHECK = 0.5
#: the least time (seconds) two people get to agree on the dead stones; a longer
#: per-move time gives them that instead
MARKING_TIME = 60.0
#: seconds a referee may take to say which stones are dead (the count as it stands after)
REFEREE_TIME = 30.0


@dataclass
class Seat:
    index: int
    name: str
    token: str
    conn: Connection | None
    disconnected_at: float | None = None
    disconnect_code: str | None = None
    #: a connection has held the seat (a seat paired on another node is empty until its
    #: player follows the ``redirect``): one never taken ends the match without a result
    joined: bool = False


@dataclass
class Stats:
    """Server-side counters for benchmarks: moves relayed and added latency."""

    moves: int = 0
    finished: int = 0  # matches ended
    recorded: int = 0  # ... whose result was committed before match_end
    latencies: list[float] = field(default_factory=list)
    keep_latencies: bool = False


class Match:
    """A match between seated connections; `run` plays it to the end."""

    def __init__(
        self,
        game: Game[Any, Any],
        players: list[tuple[str, Connection | None]],
        policy: MatchPolicy,
        recorder: Recorder,
        *,
        match_id: str | None = None,
        tournament: str | None = None,
        tags: MatchTags | None = None,
        stats: Stats | None = None,
        seed: int | None = None,
        opening: Sequence[Any] = (),
        max_plies: int | None = None,
        clock: Clock | None = None,
        on_over: Callable[[Match], None] | None = None,
        flusher: LazyFlusher | None = None,
    ) -> None:
        if len(players) != game.num_players:
            raise ValueError(f"{game.name} needs {game.num_players} players, got {len(players)}")
        self.id = match_id or new_match_id()
        self.game = game
        self.policy = policy
        self.recorder = recorder
        self.tournament = tournament
        #: told when the match is over (its end sent), before `finished` is set
        self.on_over = on_over
        self.tags = tags or MatchTags()
        self.clock = (
            None if clock is None else GameClock(clock, policy.lag_margin, game.num_players)
        )
        if clock is not None:
            self.tags = msgspec.structs.replace(self.tags, clock=clock)
        self.stats = stats
        self.seed = seed
        self.aborted = False
        self.seats = [
            Seat(index, name, secrets.token_urlsafe(16), conn, joined=conn is not None)
            for index, (name, conn) in enumerate(players)
        ]
        #: its spectators; an update is encoded once and the same bytes go to each
        self.spectators = Fanout(flusher)
        # connections told only the result (a tournament director)
        self.observers: set[Connection] = set()
        self.state: Any = game.initial_state()
        self.ply = 0
        self.outcome: Outcome | None = None
        self.reason = ""
        self.finished = trio.Event()
        self._encoded_state: Any = game.encode_state(self.state)
        self.moves: list[Any] = []  # wire-encoded moves from the initial position
        self.notations: list[str] = []  # the same moves in the game's notation
        self.max_plies = max_plies  # a draw at this ply (tournament adjudication)
        # book moves (a checked tournament opening) are played before the first turn
        self._opening: list[tuple[int, int, Any, str]] = []
        for move in opening:
            wire = game.encode_move(move)
            notation = game.format_move(move)
            self._opening.append((self.ply, self.to_move, wire, notation))
            self.state = game.apply(self.state, move)
            self.ply += 1
            self.moves.append(wire)
            self.notations.append(notation)
        self._encoded_state = game.encode_state(self.state)
        # the clock: "starting", "turn" (waiting for a move), "away" (the seat
        # to move is disconnected) or "over"
        self.phase = "starting"
        self.deadline = math.inf
        # the match task's sleep: moving `deadline` moves this scope's deadline
        # instead of waking the task on every move
        self._sleep: trio.CancelScope | None = None
        self._ending: Outcome | None = None
        self._aborting = False
        #: a Go game between engines ended by the count, and a referee is to be asked
        self._refer = False
        #: each seat's own count of the board, given with its pass (ply, ``W+12``)
        self._own_counts: dict[int, tuple[int, str]] = {}
        self._turn_started = 0.0
        self._started_at = 0.0  # trio time of the match task's start
        self._rechecking = False  # a deadline found long past is being checked again
        self._time_left = policy.move_time
        self._turn_time = policy.move_time  # the time the current turn started with
        self._retries = policy.illegal_retries
        self._last_received: float | None = None
        self._legal: Sequence[Any] = ()
        # bound once: the per-move line costs no logger construction
        self._log = log.bind(match=self.id)
        self._legal_ply = -1
        #: people on every seat of a Go match: they agree on the dead stones after two
        #: passes (decided once, from the connections that start the match)
        self.marks_dead = isinstance(game, Go) and all(
            conn is not None and conn.human for _, conn in players
        )
        #: while marking: the agreement, the held pass (seat, move, message, think time)
        #: and when the marking time is over
        self.marking: DeadStones | None = None
        self._held: tuple[int, Any, Move, float] | None = None
        self._marking_ends = math.inf

    # --- views -----------------------------------------------------------------

    @property
    def players(self) -> list[str]:
        return [seat.name for seat in self.seats]

    def info(self) -> MatchInfo:
        status = "finished" if self.outcome is not None else "playing"
        return MatchInfo(self.id, self.game.name, self.game.options, self.players, self.ply, status)

    def start_message(self, seat: int | None) -> MatchStart:
        return MatchStart(
            match=self.id,
            game=self.game.name,
            options=self.game.options,
            seat=seat,
            players=self.players,
            time_control=self.time_control,
            token=None if seat is None else self.seats[seat].token,
            state=self._encoded_state,
            ply=self.ply,
            to_move=self.game.to_move(self.state),
            seed=self.seed,
            moves=list(self.moves),
            notations=list(self.notations),
        )

    @property
    def time_control(self) -> TimeControl:
        clock = None if self.clock is None else self.clock.clock
        return TimeControl(self.policy.move_time, self.policy.lag_margin, clock)

    def _broadcast(self, frame: bytes, *, lazy_seats: bool = False) -> None:
        """Send to every seat and spectator.

        `lazy_seats`: the seats' copies wait for the caller's flush (or the
        seat's next frame), so an update and the turn that follows it leave
        in one write; the spectators' may travel with the updates that follow
        it within `LAZY_FLUSH` (server/fanout.py).
        """
        for seat in self.seats:
            if seat.conn is not None:
                seat.conn.send_frame(frame, urgent=not lazy_seats)
        self.spectators.publish(frame, urgent=not lazy_seats)

    def add_spectator(self, conn: Connection) -> None:
        self.spectators.add(conn, encode_message(self.start_message(None)))
        if self.phase == "marking":
            conn.send(self._scoring())

    # --- the match task ----------------------------------------------------------

    async def run(self) -> None:
        """Play the match to its end, record it and announce the result."""
        # this task runs in its own copy of the starter's context: drop its connection
        structlog.contextvars.unbind_contextvars("conn", "name")
        structlog.contextvars.bind_contextvars(match=self.id)
        self.recorder.open_match(
            MatchRecord(
                id=self.id,
                game=self.game.name,
                options=self.game.options,
                move_time=self.policy.move_time,
                lag_margin=self.policy.lag_margin,
                players=self.players,
                status="running",
                scores=None,
                winner=None,
                termination=None,
                reason=None,
                points=None,
                plies=0,
                started_at=time.time(),
                ended_at=None,
                tournament=self.tournament,
                tags=self.tags,
            )
        )
        self._started_at = trio.current_time()
        for ply, seat_index, wire, notation in self._opening:
            self.recorder.move(self.id, ply, seat_index, wire, notation, 0.0, time.time())
        self._log.info("match_start", game=self.game.describe(), players=self.players)
        for seat in self.seats:
            if seat.conn is not None:  # the first mover's rides with its turn
                seat.conn.send(self.start_message(seat.index), urgent=seat.index != self.to_move)
        self._begin_turn()
        try:
            while self._ending is None:
                with trio.CancelScope(deadline=self.deadline) as self._sleep:
                    await trio.sleep_forever()
                self._sleep = None
                now = trio.current_time()
                if self._ending is None and now >= self.deadline:
                    if now - self.deadline > STALL and not self._rechecking:
                        # this process did not run for a while (its host was frozen, or
                        # its loop blocked): what the seats sent meanwhile (a move waiting
                        # in its socket) is read before the deadline is enforced
                        self._log.warning("match_clock_stalled", late=round(now - self.deadline, 3))
                        self._rechecking = True
                        self.deadline = now + STALL_RECHECK
                        continue
                    self._rechecking = False
                    self._on_deadline()
        finally:
            if self._ending is None:  # cancelled: the server is shutting down
                self.phase = "over"
                self.reason = "the server shut down"
                with trio.CancelScope(shield=True), trio.move_on_after(5):
                    await self._finish(self._forfeit(None, Termination.ABORTED), status="aborted")
        status = "aborted" if self._aborting else "finished"
        if self._refer and not self._aborting:
            self._ending = await self._referee_count(self._ending)
        if self._ending.termination is Termination.SCORE and not self._aborting:
            self.reason += self._own_counts_note(self._ending)
        await self._finish(self._ending, status=status)

    def _own_counts_note(self, outcome: Outcome) -> str:
        """``; own counts: NAME W+12`` for each seat whose own count of the final board
        (given with one of the last two passes) differs from the server's, which stands."""
        ours = self.game.result_text(outcome)
        differing = [
            f"{self.seats[seat].name} {count}"
            for seat, (ply, count) in sorted(self._own_counts.items())
            if ply >= self.ply - 2 and count != ours
        ]
        return f"; own counts: {', '.join(differing)}" if differing else ""

    async def _referee_count(self, as_it_stands: Outcome) -> Outcome:
        """The count with the stones the policy's referee calls dead taken off (the count
        as it stands if it names none, fails, or is not done within `REFEREE_TIME`)."""
        referee, game = self.policy.referee, self.game
        assert referee is not None and isinstance(game, Go)
        moves = [game.decode_move(wire) for wire in self.moves]
        dead: frozenset[int] | None = None
        failure = f"no answer within {REFEREE_TIME:g}s"
        with trio.move_on_after(REFEREE_TIME):
            try:
                dead = await trio.to_thread.run_sync(
                    referee.dead_stones, game, moves, abandon_on_cancel=True
                )
            except Exception as exc:  # the referee's fault is not the players'
                failure = " ".join(str(exc).split()) or type(exc).__name__
        if dead is None:
            self._log.warning("referee_failed", referee=referee.name, error=failure)
            self.reason = f"{self.reason} as the board stands (referee {referee.name}: {failure})"
            return as_it_stands
        self._log.info("referee", referee=referee.name, dead=sorted(dead))
        if not dead:
            self.reason = f"{self.reason} with no dead stones: referee {referee.name}"
            return as_it_stands
        outcome = game.score(game.removing(self.state, dead))
        taken = taken_off_text(game, dead)
        self.reason = f"{_board_reason(game, outcome)} {taken}: referee {referee.name}"
        return outcome

    async def _finish(self, outcome: Outcome, *, status: str) -> None:
        if self.finished.is_set():
            return
        self.outcome = outcome
        self.aborted = status == "aborted"
        recorded = await self.recorder.finish_match(
            ResultRecord(
                match_id=self.id,
                status=status,
                scores=outcome.scores,
                winner=outcome.winner,
                termination=outcome.termination.value,
                reason=self.reason,
                points=outcome.points,
                plies=self.ply,
                ended_at=time.time(),
            )
        )
        if not recorded and self.recorder.superseded(self.id) and not self.aborted:
            # this node was declared dead (frozen past its lease) and another node recorded
            # the match as aborted: that end stands, and everyone is told it (a tournament
            # plays the game again), not the end this node came to after its freeze
            outcome = self.outcome = self._forfeit(None, Termination.ABORTED)
            self.aborted = True
            self.reason = f"aborted: this server was declared dead meanwhile ({self.reason})"
        end_frame = encode_message(
            MatchEnd(
                match=self.id,
                ply=self.ply,
                scores=list(outcome.scores),
                winner=outcome.winner,
                termination=outcome.termination.value,
                reason=self.reason,
                points=None if outcome.points is None else list(outcome.points),
                recorded=recorded,
            )
        )
        if self.stats is not None:
            self.stats.finished += 1
            self.stats.recorded += recorded
        self._broadcast(end_frame)
        for observer in self.observers:
            if observer not in self.spectators:
                observer.send_frame(end_frame)
        self._log.info(
            "match_end",
            result=self.game.result_text(outcome),
            winner=outcome.winner,
            termination=outcome.termination.value,
            reason=self.reason,
            plies=self.ply,
            recorded=recorded,
        )
        if self.on_over is not None:
            self.on_over(self)  # the lobby forgets who held a seat here or watched
        self.finished.set()

    def _forfeit(self, loser: int | None, termination: Termination) -> Outcome:
        """The outcome when `loser` forfeits (None: nobody wins, e.g. aborted)."""
        n = self.game.num_players
        if loser is None:
            return Outcome.draw(n, termination)
        if n == 2:
            return Outcome.win(1 - loser, 2, termination)
        share = 1.0 / (n - 1)
        scores = tuple(0.0 if s == loser else share for s in range(n))
        return Outcome(scores, None, termination)

    # --- the clock --------------------------------------------------------------

    @property
    def to_move(self) -> int:
        return self.game.to_move(self.state)

    def _end(self, outcome: Outcome) -> None:
        """The match is decided; the match task records and announces it."""
        if self._ending is None:
            self._ending = outcome
            self.phase = "over"
            self.deadline = math.inf
            if self._sleep is not None:
                self._sleep.cancel()

    def _begin_turn(self) -> None:
        """A fresh turn for the seat to move: its move time, or what is left on its clock."""
        if self.clock is None:
            self._time_left = self.policy.move_time
        else:
            self._time_left = self.clock.remaining[self.to_move]
        self._turn_time = self._time_left
        self._retries = self.policy.illegal_retries
        self._start_clock()

    def _start_clock(self) -> None:
        """Send the seat to move its turn (with `_time_left`), or wait for it to return."""
        seat = self.seats[self.to_move]
        if seat.conn is None:
            self.phase = "away"
            away_since = seat.disconnected_at
            if away_since is None:  # never taken: its grace runs from the match's start
                away_since = self._started_at if not seat.joined else trio.current_time()
            self._set_deadline(away_since + self.policy.reconnect_grace)
        else:
            self.phase = "turn"
            self._send_turn(seat)
            self._set_deadline(self._turn_started + self._time_left + self._slack(seat.index))

    def _legal_moves(self) -> Sequence[Any]:
        """The legal moves at this ply (computed once: for the turn, then to check the move)."""
        if self._legal_ply != self.ply:
            self._legal = self.game.legal_moves(self.state)
            self._legal_ply = self.ply
        return self._legal

    def _slack(self, seat: int) -> float:
        """Seconds past the time left before the flag falls: the lag margin, or what the
        clock's lag quota can still refund."""
        return self.policy.lag_margin if self.clock is None else self.clock.allowance(seat)

    def _set_deadline(self, deadline: float) -> None:
        """Move the deadline; the sleeping match task is woken only if it must wake sooner.

        A later deadline (every new turn) is left for the task to find when its
        old one passes: no rescheduling per move.
        """
        self.deadline = deadline
        self._rechecking = False
        if self._sleep is not None and deadline < self._sleep.deadline:
            self._sleep.deadline = deadline

    def _on_deadline(self) -> None:
        seat = self.seats[self.to_move]
        if self.phase == "marking":
            self._marking_deadline()
        elif self.phase == "turn":
            if self.clock is None:
                self.reason = (
                    f"{seat.name} did not move within {self.policy.move_time:g}s"
                    f" (+{self.policy.lag_margin:g}s margin)"
                )
            else:
                self.reason = f"{seat.name} ran out of time ({self.clock.clock.label()} clock)"
                self.clock.remaining[seat.index] = 0.0
            log.info("timeout", match=self.id, seat=seat.index)
            self._end(self._forfeit(seat.index, Termination.TIMEOUT))
        elif self.phase == "away" and not seat.joined:
            # nobody ever sat here (its player's node died before the redirect, or the
            # player never came): a game nobody played has no result; it may be replayed
            self.reason = (
                f"{seat.name} never took its seat within {self.policy.reconnect_grace:g}s"
                " (its server may have stopped): no result"
            )
            log.info("seat_never_taken", match=self.id, seat=seat.index)
            self._aborting = True
            self._end(self._forfeit(None, Termination.ABORTED))
        elif self.phase == "away":
            code = seat.disconnect_code
            termination = (
                Termination.DISCONNECT
                if code in (None, "connection_lost", "replaced")
                else Termination.PROTOCOL_ERROR
            )
            self.reason = (
                f"{seat.name} disconnected ({code or 'connection lost'}) and did not"
                f" return within {self.policy.reconnect_grace:g}s"
            )
            self._end(self._forfeit(seat.index, termination))

    def _send_turn(self, seat: Seat, *, restart: bool = True) -> None:
        if restart:
            self._turn_started = trio.current_time()
            time_left = self._time_left
        else:  # a replacing connection continues the same clock
            time_left = max(self._time_left - (trio.current_time() - self._turn_started), 0.0)
        assert seat.conn is not None
        clocks, increment = None, 0.0
        if self.clock is not None:
            clocks, increment = self.clock.view(seat.index, time_left), self.clock.clock.increment
        seat.conn.send(
            Turn(
                match=self.id,
                ply=self.ply,
                state=self._encoded_state,
                legal_moves=[self.game.encode_move(m) for m in self._legal_moves()],
                time_left=time_left,
                clocks=clocks,
                increment=increment,
            )
        )
        if self._last_received is not None:
            if self.stats is not None and self.stats.keep_latencies:
                self.stats.latencies.append(trio.current_time() - self._last_received)
            self._last_received = None

    # --- events (called by sessions; they never await) ---------------------------

    def on_move(self, conn: Connection, seat_index: int, message: Move, received: float) -> None:
        """A `move` from the connection holding `seat_index`."""
        seat = self.seats[seat_index]
        if self.phase != "turn" or seat_index != self.to_move or message.ply != self.ply:
            what = {
                "over": "the match is over",
                "marking": "dead stones are being marked (send resume to play on)",
            }.get(self.phase, "it is not your turn")
            conn.send_error("not_your_turn", f"{what} (ply {self.ply})", match=self.id)
            return
        if conn is not seat.conn:
            return  # a replaced connection's late move
        think = received - self._turn_started
        try:
            move = self.game.decode_move(message.move)
            kind = "illegal"
            legal = move in self._legal_moves()
            reason = "" if legal else f"{self.game.format_move(move)} is not legal in this position"
        except InvalidMoveError as exc:
            kind, legal, reason = "invalid", False, str(exc)
        if legal:
            if self.clock is not None:
                used = self._turn_time - self._time_left + think
                self.clock.move_made(seat_index, used, think)
            if self.marks_dead and move == PASS and self.state.passes >= 1:
                self._hold_pass(seat_index, move, message, think)
                return
            if message.count is not None and isinstance(self.game, Go) and move == PASS:
                self._own_counts[seat_index] = (self.ply, message.count)
            self._apply(seat_index, move, message, think)
            self._last_received = received
            outcome = self.game.outcome(self.state)
            if outcome is not None:
                self.reason = _board_reason(self.game, outcome)
                self._refer = (
                    self.policy.referee is not None
                    and isinstance(self.game, Go)
                    and outcome.termination is Termination.SCORE
                )
                self._end(outcome)
            elif self.max_plies is not None and self.ply >= self.max_plies:
                self.reason = f"draw by adjudication after {self.ply} plies"
                self._end(Outcome.draw(self.game.num_players, Termination.MAX_PLIES))
            else:
                self._begin_turn()
            # the update leaves now for everyone but the mover (whose copy
            # rides with its next frame); the next mover's went with its turn
            for seat in self.seats:
                if seat.conn is not None and seat.index != seat_index:
                    seat.conn.flush()
            return
        conn.send(
            Illegal(
                match=self.id,
                ply=self.ply,
                move=message.move,
                kind=kind,  # type: ignore[arg-type]
                reason=reason,
                retries_left=self._retries,
            )
        )
        log.info("illegal_move", match=self.id, seat=seat_index, kind=kind, reason=reason)
        if self._retries <= 0:
            self.reason = f"{seat.name} played an {kind} move: {reason}"
            self._end(self._forfeit(seat_index, Termination.ILLEGAL_MOVE))
            return
        self._retries -= 1
        self._time_left = max(self._time_left - (trio.current_time() - self._turn_started), 0.0)
        self._start_clock()  # a new turn with the time that is left

    def on_resign(self, seat_index: int, why: str | None = None, fault: str | None = None) -> None:
        """The seat gives up: a resignation, or (with a `fault` the decoder checked) the
        failure of its own program, recorded as that failure's termination."""
        if self.phase in ("over", "starting"):
            return
        # one line of printable text, whatever the client sent (it reaches terminals)
        said = " ".join("".join(c if c.isprintable() else " " for c in why or "").split())
        termination, verb = _FAULTS.get(fault or "", (Termination.RESIGNATION, "resigned"))
        self.reason = f"{self.seats[seat_index].name} {verb}" + (f": {said}" if said else "")
        self._end(self._forfeit(seat_index, termination))

    def abort(self, reason: str) -> None:
        """End the match without a result (the server is stopping); the task records it."""
        if self.phase == "over":
            return
        self.reason = reason
        self._aborting = True
        self._end(self._forfeit(None, Termination.ABORTED))

    def on_adjudicate(self, winner: int | None, termination: Termination, reason: str) -> None:
        """The pool's director adjudicated the current position (docs/PROTOCOL.md)."""
        if self.phase in ("over", "starting"):
            return
        n = self.game.num_players
        self.reason = reason or f"adjudicated ({termination.value})"
        self._end(
            Outcome.draw(n, termination) if winner is None else Outcome.win(winner, n, termination)
        )

    def on_disconnect(self, seat_index: int) -> None:
        """The seat's connection dropped (the lobby has set its `conn` to None)."""
        if self.phase == "marking":  # its grace runs beside the marking time
            self._set_deadline(self._next_marking_deadline())
        elif self.phase == "turn" and seat_index == self.to_move:
            # pause the clock while the seat is away
            used = trio.current_time() - self._turn_started
            self._time_left = max(self._time_left - used, 0.0)
            self._start_clock()

    def on_rejoin(self, seat_index: int, conn: Connection) -> None:
        """The seat is back (or taken over) on `conn`: full state, and its turn if it is."""
        if self.phase == "over":
            return
        self.seats[seat_index].joined = True
        conn.send(self.start_message(seat_index))
        if self.phase == "marking":
            conn.send(self._scoring())
            return
        if seat_index != self.to_move:
            return
        if self.phase == "away":
            self._start_clock()  # the paused clock runs again
        elif self.phase == "turn":
            self._send_turn(self.seats[seat_index], restart=False)

    # --- dead stones (Go between people) ----------------------------------------

    def _hold_pass(self, seat: int, move: Any, message: Move, think: float) -> None:
        """The second pass in a row between people: held while they mark the dead."""
        self._held = (seat, move, message, think)
        self.phase = "marking"
        assert isinstance(self.game, Go)
        self.marking = DeadStones(self.game, self.game.apply(self.state, move))
        self._marking_ends = trio.current_time() + max(MARKING_TIME, self.policy.move_time)
        self._set_deadline(self._next_marking_deadline())
        self._log.info("marking_start", seat=seat, ply=self.ply)
        self._broadcast(encode_message(self._scoring()))

    def _scoring(self) -> Scoring:
        marking = self.marking
        assert marking is not None
        points = marking.outcome().points or (0.0, 0.0)
        return Scoring(
            match=self.id,
            ply=self.ply,
            dead=sorted(marking.dead),
            accepted=list(marking.accepted),
            area=list(marking.area()),
            points=list(points),
            time_left=max(self._marking_ends - trio.current_time(), 0.0),
        )

    def on_marking(
        self, conn: Connection, seat_index: int, message: Mark | Accept | Resume
    ) -> None:
        """A seat's `mark`, `accept` or `resume` while the dead stones are marked."""
        marking = self.marking
        if self.phase != "marking" or marking is None:
            conn.send_error(
                "not_marking",
                f"no dead stones are being marked in this match (ply {self.ply})",
                match=self.id,
            )
            return
        if conn is not self.seats[seat_index].conn:
            return  # a replaced connection's late request
        if isinstance(message, Resume):
            self._resume(seat_index)
            return
        self._log.info(
            "marking",
            seat=seat_index,
            request=type(message).__struct_config__.tag,
            point=getattr(message, "point", None),
        )
        try:
            if isinstance(message, Mark):
                marking.toggle(message.point)
            elif marking.accept(seat_index, message.dead):
                self._conclude(marking.dead, "both agreed")
                return
        except MarkingError as exc:
            stale = isinstance(message, Accept)
            conn.send_error("stale_marking" if stale else "bad_mark", str(exc), match=self.id)
            if stale:
                conn.send(self._scoring())
            return
        self._broadcast(encode_message(self._scoring()))

    def _resume(self, seat_index: int) -> None:
        """Play goes on: the held pass is withdrawn, and its seat moves again."""
        self._held, self.marking, self._marking_ends = None, None, math.inf
        self._log.info("marking_resumed", seat=seat_index, ply=self.ply)
        self._broadcast(encode_message(Resumed(match=self.id, ply=self.ply, seat=seat_index)))
        self._begin_turn()

    def _conclude(self, dead: frozenset[int], how: str) -> None:
        """Play the held pass and count the board with `dead` taken off."""
        held, marking = self._held, self.marking
        assert held is not None and marking is not None
        self._held, self.marking = None, None
        seat, move, message, think = held
        self._apply(seat, move, message, think)
        game = self.game
        assert isinstance(game, Go)
        outcome = game.score(game.removing(marking.state, dead))
        if dead:
            taken = taken_off_text(game, dead)
        else:
            taken = "with no dead stones" if how == "both agreed" else "as the board stands"
        self.reason = f"{_board_reason(game, outcome)} {taken}: {how}"
        for other in self.seats:
            if other.conn is not None and other.index != seat:
                other.conn.flush()
        self._end(outcome)

    def _next_marking_deadline(self) -> float:
        """When the marking time is over, or an absent seat's grace, whichever is sooner."""
        graces = [
            seat.disconnected_at + self.policy.reconnect_grace
            for seat in self.seats
            if seat.conn is None and seat.disconnected_at is not None
        ]
        return min([self._marking_ends, *graces])

    def _marking_deadline(self) -> None:
        """A seat gone past its grace forfeits; at the end of the marking time the board
        is counted: with the set one seat accepted and nobody changed since, else as it
        stands (Tromp–Taylor)."""
        now = trio.current_time()
        for seat in self.seats:
            if (
                seat.conn is None
                and seat.disconnected_at is not None
                and now >= seat.disconnected_at + self.policy.reconnect_grace
            ):
                code = seat.disconnect_code
                self.reason = (
                    f"{seat.name} disconnected ({code or 'connection lost'}) while the dead"
                    f" stones were marked and did not return within"
                    f" {self.policy.reconnect_grace:g}s"
                )
                self._end(self._forfeit(seat.index, Termination.DISCONNECT))
                return
        if now < self._marking_ends:  # an absent seat came back: wait for the marking time
            self._set_deadline(self._next_marking_deadline())
            return
        marking = self.marking
        assert marking is not None
        within = f"within {max(MARKING_TIME, self.policy.move_time):g}s"
        accepted = [self.seats[i].name for i, ok in enumerate(marking.accepted) if ok]
        if accepted:
            how = f"{accepted[0]} accepted them and nobody changed them {within}"
            self._conclude(marking.dead, how)
        else:
            self._conclude(frozenset(), f"no agreement on dead stones {within}")

    def _apply(self, seat: int, move: Any, message: Move, think: float) -> None:
        """Play the mover's `message` (its `move` decoded), record it with what the mover
        said about it (eval, depth, visits, pv), and broadcast the update."""
        game = self.game
        notation = game.format_move(move)
        self.state = game.apply(self.state, move)
        played_ply = self.ply
        self.ply += 1
        wire_move = message.move
        self.moves.append(wire_move)
        self.notations.append(notation)
        self._encoded_state = game.encode_state(self.state)
        evaluation, depth, visits, pv = message.eval, message.depth, message.visits, message.pv
        info = (
            None
            if evaluation is None and depth is None and visits is None and not pv
            else (evaluation, depth, visits, pv)
        )
        self.recorder.move(self.id, played_ply, seat, wire_move, notation, think, time.time(), info)
        self._broadcast(
            lazy_seats=True,
            frame=encode_message(
                Update(
                    match=self.id,
                    ply=self.ply,
                    seat=seat,
                    move=wire_move,
                    notation=notation,
                    state=self._encoded_state,
                    think_time=think,
                    clocks=None if self.clock is None else self.clock.view(),
                    eval=evaluation,
                    depth=depth,
                    visits=visits,
                    pv=pv,
                )
            ),
        )
        self._log.info("move", seat=seat, ply=played_ply, move=notation, think=round(think, 4))
        if self.stats is not None:
            self.stats.moves += 1


#: a ``resign`` with a ``fault`` (docs/PROTOCOL.md): the termination it ends the match
#: with, and the words of its reason (``e crashed: engine pg: engine exited (code 3)``)
_FAULTS: dict[str, tuple[Termination, str]] = {
    "crash": (Termination.CRASH, "crashed"),
    "stalled": (Termination.STALLED, "stalled"),
    "illegal": (Termination.ILLEGAL_MOVE, "played an illegal move"),
    "protocol": (Termination.PROTOCOL_ERROR, "broke its protocol"),
}


def _board_reason(game: Game[Any, Any], outcome: Outcome) -> str:
    if outcome.winner is None:
        return f"draw ({outcome.termination.value})"
    names = game.seat_names
    who = names[outcome.winner] if outcome.winner < len(names) else f"seat {outcome.winner}"
    return f"{who} wins ({outcome.termination.value})"
