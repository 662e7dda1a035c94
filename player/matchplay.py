"""Playing one match: the server's match events turned into agent calls and moves.

Why a separate piece: `PlayerClient` (player/runtime.py) owns connections
and reconnection, and holds one `MatchPlay`, which owns what happens inside a
match (start, turns, budgets, updates, the end) and the agent's worker
thread. It asks the client for a new match through the `request_match`
callback it is given. The policies:

- Budget: per-move limit: ``min(agent's own time limit, time_left -
  safety_margin)``; clock: see `clock_budget`. Never below ``min_budget``;
  the agent's iteration cap (if any) is kept.
- The agent runs in a worker thread (``abandon_on_cancel``) while the
  session's reader answers pings. Every agent call holds one
  `threading.Lock`: an abandoned search (its match ended meanwhile) finishes
  before the agent is called again, as the `Agent` contract requires.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, TypeVar

import structlog
import trio

from games import Game, InvalidMoveError, InvalidStateError, Outcome, Termination, make_game
from player.agent import Agent, DeadStonesView, MarkingAction, SearchLimit
from player.errors import AgentError, ClientError, ResignMatch, ServerProtocolError
from player.moveinfo import wire_fields
from player.results import MatchResult
from protocol.client import Connection
from protocol.messages import (
    Accept,
    Mark,
    MatchEnd,
    MatchStart,
    Move,
    Resign,
    Resume,
    Scoring,
    TimeControl,
    Turn,
    Update,
)

log = structlog.get_logger("arena.player")

T = TypeVar("T")


@dataclass
class MatchState:
    """The match being played: the server's view, kept up to date by updates."""

    id: str
    game: Game[Any, Any]
    seat: int
    players: tuple[str, ...]
    token: str | None
    time_control: TimeControl
    state: Any
    ply: int
    #: the time budget given to the agent for each of its moves (honest labels)
    budgets: list[float] = field(default_factory=list)


@dataclass
class Choice:
    """The agent's last move: the ply, the budget it had and the time it took."""

    ply: int
    budget: float | None
    elapsed: float


#: a clock is shared out as if this many of the player's own moves were still to come
MOVES_TO_GO = 20


def clock_budget(
    time_left: float, increment: float, safety_margin: float, moves_to_go: int = MOVES_TO_GO
) -> float:
    """Seconds to think on a clock: ``time_left / moves_to_go + 3/4 of the increment``.

    Never more than half of what is left (minus `safety_margin`, for the
    network and the move's own overhead), so a long think early cannot
    flag-fall later; the increment keeps the budget up when the clock is low.
    """
    share = time_left / moves_to_go + 0.75 * increment
    return min(share, time_left / 2) - safety_margin


class PlaySettings(Protocol):
    """What `MatchPlay` reads of the client's settings (`PlayerConfig`)."""

    @property
    def games(self) -> int: ...

    @property
    def safety_margin(self) -> float: ...

    @property
    def min_budget(self) -> float: ...

    @property
    def agent_busy_timeout(self) -> float: ...


class MatchPlay:
    """Plays the matches of one client with one agent (see the module docstring)."""

    def __init__(
        self,
        agent: Agent,
        config: PlaySettings,
        game: Game[Any, Any],
        *,
        request_match: Callable[[Connection], Awaitable[None]],
        on_result: Callable[[MatchResult], None] | None = None,
    ) -> None:
        self.agent = agent
        self.config = config
        self.game = game
        self.results: list[MatchResult] = []
        self._request_match = request_match
        self._on_result = on_result
        self._agent_lock = threading.Lock()
        #: the match under way, if any (kept across a reconnect to rejoin it)
        self.match: MatchState | None = None
        #: the request the server has not answered yet
        self.pending: Literal["seek", "join", "rejoin", "redirect"] | None = None
        #: matches started or moves seen: a connection that saw some was not wasted
        self.progress = 0
        self.stop = False
        self._think_scope: trio.CancelScope | None = None
        #: the connection's nursery scope, cancelled when the agent fails
        self.session_scope: trio.CancelScope | None = None
        #: the agent's failure in this session, if any
        self.failure: ClientError | None = None
        self._choice: Choice | None = None
        #: while dead stones are marked (Go between people): the latest view, and the
        #: scope of the task that asks the agent what to do
        self.marking: DeadStonesView | None = None
        self._marking_scope: trio.CancelScope | None = None

    @property
    def done(self) -> bool:
        """True when no further match will be played."""
        games = self.config.games
        return self.stop or (games > 0 and len(self.results) >= games)

    @property
    def playing(self) -> bool:
        """True while a match is under way here (started, its end not yet handled)."""
        return self.match is not None

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

    async def on_match_start(self, start: MatchStart) -> None:
        if start.seat is None:
            raise ServerProtocolError(f"match_start for {start.match!r} gives this player no seat")
        self.pending = None
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
        current = self.match
        self.progress += 1
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
            await self.lose_track(current, "a new match started before this one ended")
        self.match = MatchState(
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
            time_control=start.time_control.label(),
            seed=start.seed,
        )
        self._check_think_time(start.time_control)
        if start.seed is not None:  # a tournament game: reproducible agents
            await self._agent_call(self.agent.seed_match, start.seed)
        await self._agent_call(self.agent.start, game, start.seat)
        await self._agent_call(self.agent.sync, state, history)

    def on_turn(self, conn: Connection, nursery: trio.Nursery, turn: Turn) -> None:
        match = self.match
        if match is None or turn.match != match.id:
            log.warning("turn_for_unknown_match", turn_match=turn.match)
            return
        state = self._decode_state(match.game, turn.state)
        legal = [self._decode_move(match.game, m) for m in turn.legal_moves]
        match.state, match.ply = state, turn.ply
        limit = self.budget(turn.time_left, clock=turn.clocks is not None, increment=turn.increment)
        self.cancel_think()
        scope = trio.CancelScope()
        self._think_scope = scope
        clocks = None if turn.clocks is None else (tuple(turn.clocks), turn.increment)
        nursery.start_soon(self._think, conn, match, turn.ply, state, legal, limit, scope, clocks)

    def _check_think_time(self, tc: TimeControl) -> None:
        """Say so when the agent's own ``time=`` is more than this match allows (honest labels)."""
        default = self.agent.default_limit
        if default is None or default.time is None or tc.clock is not None:
            return
        effective = max(self.config.min_budget, tc.move_time - self.config.safety_margin)
        if default.time > effective:
            log.warning(
                "think_time_capped",
                agent=self.agent.name,
                requested=default.time,
                effective=round(effective, 3),
                note=f"the server allows {tc.move_time:g}s a move: {self.agent.name} thinks"
                f" {effective:g}s, not {default.time:g}s",
            )

    def _think_label(self, match: MatchState) -> str:
        """``thought 0.95s a move (asked 5s)`` when the agent got less than its ``time=``."""
        default = self.agent.default_limit
        if default is None or default.time is None or not match.budgets:
            return ""
        mean = sum(match.budgets) / len(match.budgets)
        if min(match.budgets) >= default.time * 0.99:
            return ""
        return f"thought {mean:.3g}s a move on average (asked {default.time:g}s, capped)"

    def budget(
        self, time_left: float, *, clock: bool = False, increment: float = 0.0
    ) -> SearchLimit:
        """The search limit for a turn with `time_left` seconds (on a clock: see `clock_budget`)."""
        config = self.config
        if clock and not self.agent.whole_clock:
            available = clock_budget(time_left, increment, config.safety_margin)
        else:
            available = time_left - config.safety_margin
        available = max(config.min_budget, available)
        default = self.agent.default_limit
        return SearchLimit(time=available) if default is None else default.capped(available)

    async def _think(
        self,
        conn: Connection,
        match: MatchState,
        ply: int,
        state: Any,
        legal: list[Any],
        limit: SearchLimit,
        scope: trio.CancelScope,
        clocks: tuple[tuple[float, ...], float] | None = None,
    ) -> None:
        with scope:
            started = trio.current_time()
            try:
                try:
                    if clocks is not None:
                        await self._agent_call(self.agent.clocks, *clocks, quick=True)
                    move = await self._agent_call(self.agent.choose, state, limit, abandon=True)
                except ResignMatch as exc:
                    self.stop = self.stop or exc.stop
                    log.info("resign", reason=exc.reason, fault=exc.fault, ply=ply)
                    await conn.send(
                        Resign(match=match.id, reason=exc.reason[:200], fault=exc.fault)
                    )
                    return
                except AgentError as exc:  # the agent failed: a crash (or a stall), not a choice
                    resign = Resign(match=match.id, reason=str(exc)[:200], fault=exc.fault)
                    await best_effort(conn.send(resign))
                    raise
                self._choice = Choice(ply, limit.time, trio.current_time() - started)
                if limit.time is not None:
                    match.budgets.append(limit.time)
                if move not in legal:
                    log.warning("agent_move_not_legal", ply=ply, move=repr(move))
                try:
                    wire = match.game.encode_move(move)
                except Exception as exc:
                    raise AgentError(
                        f"agent {self.agent.name!r} returned {move!r}, not a move"
                    ) from exc
                await conn.send(Move(match=match.id, ply=ply, move=wire, **self._move_info(ply)))
            except ClientError as exc:
                self.failure = exc
                if self.session_scope is not None:
                    self.session_scope.cancel()

    def _move_info(self, ply: int) -> dict[str, Any]:
        """The `Move` fields of what the agent says about the move it just chose.

        Out-of-range values are dropped and a failing `move_info` sends none: an
        agent's bug is not the server's problem, and it must not cost the move.
        """
        try:
            info = self.agent.move_info()
        except Exception as exc:
            log.warning("agent_move_info_failed", ply=ply, error=repr(exc))
            return {}
        fields, dropped = wire_fields(info)
        if dropped:
            log.warning("agent_move_info_dropped", ply=ply, fields=dropped, info=repr(info))
        return fields

    # --- dead stones (Go between people) --------------------------------------------

    def on_scoring(self, conn: Connection, nursery: trio.Nursery, scoring: Scoring) -> None:
        """The dead stones being agreed on: the agent is told, or asked what to do."""
        match = self.match
        if match is None or scoring.match != match.id:
            return
        # the board the held pass ends: the position before it (a pass changes no stone)
        final = self.marking.state if self.marking is not None else match.state
        view = DeadStonesView(
            state=final,
            dead=frozenset(scoring.dead),
            accepted=tuple(scoring.accepted),
            area=tuple(scoring.area),
            points=tuple(scoring.points),
            time_left=scoring.time_left,
        )
        self.marking = view
        log.info("scoring", dead=scoring.dead, accepted=scoring.accepted, points=scoring.points)
        if not self.agent.human:
            return  # the server never asks an engine; a spectating view is not ours to mark
        self.agent.marking_changed(view)  # first: a waiting `mark_dead` sees the newest
        if self._marking_scope is None:
            scope = self._marking_scope = trio.CancelScope()
            nursery.start_soon(self._mark, conn, match.id, scope)

    async def _mark(self, conn: Connection, match_id: str, scope: trio.CancelScope) -> None:
        """Ask the agent for marking actions and send them, until marking ends."""
        with scope:
            try:
                while self.marking is not None:
                    action: MarkingAction | None = await self._agent_call(
                        self.agent.mark_dead, self.marking, abandon=True
                    )
                    if action is None:
                        return
                    if action.kind == "mark":
                        await conn.send(Mark(match=match_id, point=action.point))
                    elif action.kind == "accept":
                        await conn.send(Accept(match=match_id, dead=sorted(action.dead)))
                    else:
                        await conn.send(Resume(match=match_id))
            except ResignMatch as exc:
                self.stop = self.stop or exc.stop
                await conn.send(Resign(match=match_id, reason=exc.reason[:200], fault=exc.fault))
            except ClientError as exc:
                self.failure = exc
                if self.session_scope is not None:
                    self.session_scope.cancel()

    def end_marking(self) -> None:
        """Marking is over (resumed, or the match ended): the agent stops asking."""
        if self.marking is None:
            return
        self.marking = None
        if self.agent.human:
            self.agent.marking_changed(None)
        if self._marking_scope is not None:
            self._marking_scope.cancel()
            self._marking_scope = None

    def cancel_think(self) -> None:
        if self._think_scope is not None:
            self._think_scope.cancel()
            self._think_scope = None

    async def on_update(self, update: Update) -> None:
        match = self.match
        if match is None or update.match != match.id:
            log.debug("update_for_other_match", update_match=update.match)
            return
        self.end_marking()  # the held pass played: the dead stones are agreed
        move = self._decode_move(match.game, update.move)
        new_state = self._decode_state(match.game, update.state)
        previous = match.state
        match.state, match.ply = new_state, update.ply
        self.progress += 1
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

    async def on_match_end(self, conn: Connection, end: MatchEnd) -> bool:
        match = self.match
        if match is None or end.match != match.id:
            log.debug("match_end_for_other_match", end_match=end.match)
            return False
        self.cancel_think()
        self.end_marking()
        self.agent.interrupt()  # a search still running for this match may stop now
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
            result=match.game.result_text(outcome),
            termination=termination.value,
            reason=end.reason,
            plies=end.ply,
            score=outcome.scores[match.seat] if match.seat < len(outcome.scores) else None,
        )
        structlog.contextvars.unbind_contextvars("match", "seat")
        return await self.next_match(conn)

    async def prepare(self) -> None:
        """Have the agent ready for a match (`Agent.prepare`): before each seek or join."""
        await self._agent_call(self.agent.prepare, self.game)

    async def next_match(self, conn: Connection) -> bool:
        if self.done:
            return True
        await self._request_match(conn)
        return False

    def _record(self, match: MatchState, outcome: Outcome | None, reason: str, plies: int) -> None:
        self.match = None
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
            think=self._think_label(match),
            result_text="" if outcome is None else match.game.result_text(outcome),
        )
        self.results.append(result)
        if self._on_result is not None:
            self._on_result(result)

    async def lose_track(self, match: MatchState, reason: str) -> None:
        log.warning("match_lost", lost_match=match.id, reason=reason)
        self.agent.interrupt()
        await self._agent_call(self.agent.finish, None)
        self._record(match, None, reason, match.ply)
        structlog.contextvars.unbind_contextvars("match", "seat")

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
                " (a search that does not stop?)",
                fault="stalled",
            )
        try:
            return fn(*args)
        finally:
            self._agent_lock.release()


async def best_effort(send: Awaitable[None]) -> None:
    """Send, ignoring a client error (the connection may be gone: the caller fails anyway)."""
    with contextlib.suppress(ClientError):
        await send
