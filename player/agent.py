"""The `Agent` interface: a move chooser driven by the client runtime (or a test).

Why this shape: the runtime owns the network and the clock; an agent only
turns a state and a budget into a move. `choose` blocks (the runtime calls it
from a worker thread), so agents are plain synchronous code, and every agent is
also usable in-process (tests, benchmarks) through `play_local_game`.
"""

from __future__ import annotations

import math
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from games.base import Game, Outcome


@dataclass(frozen=True, slots=True)
class SearchLimit:
    """Budget for one move: seconds of wall-clock time (None = no time limit) and an optional iteration cap."""

    time: float | None = None
    iterations: int | None = None

    def __post_init__(self) -> None:
        if self.time is None and self.iterations is None:
            raise ValueError("a SearchLimit needs a time or an iteration cap (both are None)")
        if self.time is not None and (
            isinstance(self.time, bool)
            or not isinstance(self.time, int | float)
            or not math.isfinite(self.time)
            or self.time <= 0
        ):
            raise ValueError(
                f"SearchLimit time must be a positive number of seconds, not {self.time!r}"
            )
        if self.iterations is not None and (
            isinstance(self.iterations, bool)
            or not isinstance(self.iterations, int)
            or self.iterations <= 0
        ):
            raise ValueError(
                f"SearchLimit iterations must be a positive integer, not {self.iterations!r}"
            )

    def capped(self, time: float | None) -> SearchLimit:
        """This limit with its time reduced to at most `time` seconds (None: unchanged)."""
        if time is None or (self.time is not None and self.time <= time):
            return self
        return SearchLimit(time=time, iterations=self.iterations)


@dataclass(frozen=True, slots=True)
class MoveInfo:
    """What an agent says about the move it just chose; every field is optional.

    `eval` is the mover's expected score after the move (0 loss, 0.5 draw, 1 win),
    `depth` the search depth, `visits` the simulations or nodes searched, `pv` the
    expected continuation in the game's notation (the move itself first). It
    travels with the move (``move.eval``/``depth``/``visits``/``pv``) and is
    stored with it in the match record.
    """

    eval: float | None = None
    depth: int | None = None
    visits: int | None = None
    pv: tuple[str, ...] = ()
    #: Go, with a pass: the agent's own count of the board (``W+12.5``; an engine's
    #: ``final_score``), kept in the record where it differs from the server's
    count: str | None = None


@dataclass(frozen=True, slots=True)
class DeadStonesView:
    """Go between people after two passes: the dead stones being agreed on (``scoring``).

    `state` is the final board, `dead` the points marked dead, `accepted` by seat
    whether it accepted this set, `area` and `points` the count with `dead` taken
    off, `time_left` the seconds left to agree (docs/PROTOCOL.md, "Dead stones").
    """

    state: Any
    dead: frozenset[int]
    accepted: tuple[bool, ...]
    area: tuple[int, ...]
    points: tuple[float, ...]
    time_left: float


@dataclass(frozen=True, slots=True)
class MarkingAction:
    """What a person does while dead stones are marked: toggle the chain on `point`
    (``mark``), accept exactly `dead` (``accept``), or play on (``resume``)."""

    kind: Literal["mark", "accept", "resume"]
    point: int = 0
    dead: frozenset[int] = frozenset()


def mix_seeds(own: int | None, match: int) -> int:
    """One seed from an agent's own seed (None: unset) and a match's seed."""
    if own is None:
        return match
    return (own * 1_000_003 + match) & 0x7FFF_FFFF_FFFF


class Agent(ABC):
    """A move chooser. Agents do no network I/O.

    `choose()` is blocking and is called from a worker thread by the client
    runtime, never concurrently with another call on the same agent. The
    runtime calls `start` once per match, then `sync` with the moves played
    so far (none at a fresh start; after a reconnect `sync` again, preceded
    by `start` if moves were missed), `choose` on each of its turns,
    `observe` for every move played (its own and the opponents', in order),
    `finish` at the end of the match and `close` when the agent is discarded.

    The default `sync` and `observe` keep `history`, the moves played from
    the initial state: an agent that overrides `observe` and wants the
    history calls ``super().observe(...)``.
    """

    #: the spec string the agent was built from, e.g. "mcts:time=0.5"
    name: str = "agent"
    #: the budget from the spec (e.g. time=0.5 -> SearchLimit(time=0.5)), or None
    default_limit: SearchLimit | None = None
    #: on a clock, True: `choose` gets all the time left and spends it as it likes (a
    #: human); False: the runtime gives it a share (time left / moves to go + increment)
    whole_clock: bool = False

    game: Game[Any, Any] | None = None
    seat: int | None = None
    #: the moves of the current match so far, from the initial state (kept by `sync`/`observe`)
    history: list[Any]
    #: a person plays through this agent: the client says ``hello.human``, and a Go match
    #: between people marks dead stones (`mark_dead`) instead of counting as it stands
    human: bool = False

    def prepare(self, game: Game[Any, Any]) -> None:
        """(Blocking) get ready to play `game` before a match is sought: start what takes
        time to start (an engine's process and handshake), so that it is not paid on the
        first move's clock. Called before every seek; it must be cheap when ready. An
        AgentError stops the player. Default: nothing."""
        return None  # a hook: nothing to do by default

    def start(self, game: Game[Any, Any], seat: int) -> None:
        """A new match of `game` begins; this agent plays `seat`."""
        self.game = game
        self.seat = seat
        self.history = []

    def sync(self, state: Any, moves: Sequence[Any]) -> None:
        """The match so far: `moves`, played from the game's initial state, led to `state`.

        Called after `start` at a match start (usually no moves) and after a
        reconnect, so an agent can rebuild what it needs from the history
        (e.g. reuse its search tree, or replay the moves into another engine).
        The default remembers them in `history`.
        """
        self.history = list(moves)

    def check_game(self, game: Game[Any, Any]) -> None:
        """Raise ValueError (one line) if this agent cannot play `game` at all, so a command
        refuses it before any match (e.g. a GTP engine asked for connect four). Default: any."""
        return None  # a hook: every game by default

    @abstractmethod
    def choose(self, state: Any, limit: SearchLimit) -> Any:
        """Return a legal move for `state` within `limit`."""

    def clocks(self, remaining: Sequence[float], increment: float) -> None:
        """Before `choose` in a match on a clock: every seat's seconds left, and the increment.

        Keep it quick (it may run on the runtime's event loop). Default: nothing.
        """
        return None  # a hook: nothing to do by default

    def seed_match(self, seed: int) -> None:
        """Reseed for the next match from the server's per-game seed (tournaments).

        Called before `start`. The default reseeds an attribute ``rng`` (a
        `random.Random`) from `seed` mixed with the agent's own ``seed``, so a
        tournament replays the same way; agents without randomness ignore it.
        """
        rng = getattr(self, "rng", None)
        if isinstance(rng, random.Random):
            rng.seed(mix_seeds(getattr(self, "seed", None), seed))

    def observe(self, state: Any, move: Any, new_state: Any) -> None:
        """`move` was played in `state` (by any seat), giving `new_state`.

        Keep it quick: the client runtime may call it on its event loop.
        The default appends `move` to `history`.
        """
        if not hasattr(self, "history"):
            self.history = []
        self.history.append(move)

    def evaluation(self) -> float | None:
        """The agent's expected score (0 loss, 0.5 draw, 1 win) after the move `choose` just
        returned, if it has one; sent with the move (``move.eval``) for adjudication."""
        return None

    def interrupt(self) -> None:
        """The runtime no longer wants the move `choose` may be thinking about (the match
        ended meanwhile): return from `choose` soon; what it returns is dropped.

        Called from the event loop, not under the agent lock, so it must be quick and
        thread-safe (set a flag). `start` begins the next match afresh. Default: nothing.
        """
        return None  # a hook: nothing to do by default

    def move_info(self) -> MoveInfo | None:
        """What the agent says about the move `choose` just returned (evaluation, depth,
        visits, principal variation), if anything. The default wraps `evaluation`."""
        evaluation = self.evaluation()
        return None if evaluation is None else MoveInfo(eval=evaluation)

    def mark_dead(self, view: DeadStonesView) -> MarkingAction | None:
        """(Blocking, a `human` agent) the next thing to do while dead stones are marked;
        None: nothing more (marking is over). Newer views arrive by `marking_changed`."""
        return None

    def marking_changed(self, view: DeadStonesView | None) -> None:
        """The marking changed (None: it is over). Called from the event loop without the
        agent lock, while `mark_dead` may be waiting: it must not block."""
        return None  # a hook: nothing to do by default

    def finish(self, outcome: Outcome | None) -> None:
        """The match is over (`outcome` is None if it was aborted)."""
        return None  # a hook: nothing to do by default

    def close(self) -> None:
        """Release resources (worker processes). The agent is not used afterwards."""
        return None  # a hook: nothing to do by default

    def require_game(self) -> Game[Any, Any]:
        """The game given to `start`, or RuntimeError if `start` was not called."""
        if self.game is None:
            raise RuntimeError(f"agent {self.name!r}: start() must be called before choose()")
        return self.game

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


@dataclass(frozen=True, slots=True)
class LocalGame:
    """The record of a game played in-process by `play_local_game`."""

    outcome: Outcome
    moves: tuple[Any, ...]
    final_state: Any


def play_local_game(
    game: Game[Any, Any],
    agents: Sequence[Agent],
    limit: SearchLimit | Sequence[SearchLimit | None] | None = None,
    *,
    on_move: Callable[[int, Any, Any], None] | None = None,
    max_plies: int | None = None,
) -> LocalGame:
    """Play one game of `game` between `agents` (agent i plays seat i), in this thread.

    `limit` is one budget for all seats or one per seat; a seat without one uses
    its agent's `default_limit`, or one second if it has none. Every agent is started, told of every move and
    finished; the caller closes them. `on_move(seat, state, move)` is called
    before each move is applied. Raises ValueError if an agent returns an
    illegal move or the game exceeds `max_plies`.
    """
    if len(agents) != game.num_players:
        raise ValueError(f"{game.name} needs {game.num_players} agents, not {len(agents)}")
    if limit is None or isinstance(limit, SearchLimit):
        limits: list[SearchLimit | None] = [limit] * len(agents)
    else:
        limits = list(limit)
        if len(limits) != len(agents):
            raise ValueError(f"need one limit per seat ({len(agents)}), not {len(limits)}")
    budgets: list[SearchLimit] = []
    for agent, seat_limit in zip(agents, limits, strict=True):
        budget = seat_limit if seat_limit is not None else agent.default_limit
        budgets.append(budget if budget is not None else SearchLimit(time=1.0))
    state = game.initial_state()
    for seat, agent in enumerate(agents):
        agent.start(game, seat)
        agent.sync(state, ())
    moves: list[Any] = []
    while (outcome := game.outcome(state)) is None:
        if max_plies is not None and len(moves) >= max_plies:
            raise ValueError(f"game exceeded {max_plies} plies")
        seat = game.to_move(state)
        move = agents[seat].choose(state, budgets[seat])
        if on_move is not None:
            on_move(seat, state, move)
        new_state = game.play(state, move)
        moves.append(move)
        for agent in agents:
            agent.observe(state, move, new_state)
        state = new_state
    for agent in agents:
        agent.finish(outcome)
    return LocalGame(outcome, tuple(moves), state)
