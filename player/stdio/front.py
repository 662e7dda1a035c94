"""What every stdio front shares: the game a controller set up, told to the agent lazily,
and the budget of a move from the agent's own limit and the controller's time.

Why a room of its own: GTP, Gomocup and our text protocol differ in how a
controller says the position and the time, not in what the agent needs. The
agent is told of the game as the arena's client runtime tells it (`start`,
`sync`, `observe`, `choose`), and only when it must move: a controller may
undo, clear the board, set a whole position or play several moves in a row,
and the agent only needs the game as it stands when it is asked for a move.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol, TextIO

from games import Game
from player.agent import Agent, SearchLimit
from player.errors import IllegalChoice as IllegalChoice

__all__ = [
    "DEFAULT_SECONDS",
    "MARGIN",
    "MIN_SECONDS",
    "MOVES_AHEAD",
    "AgentGame",
    "IllegalChoice",
    "LineFront",
    "answer_lines",
    "budget",
    "one_line",
]

#: moves a match clock's time left is spread over
MOVES_AHEAD = 30
#: seconds kept back from every clock budget (the pipe, the controller's own overhead)
MARGIN = 0.1
#: the budget when neither the agent nor the controller gives one
DEFAULT_SECONDS = 1.0
#: the least budget a clock can give
MIN_SECONDS = 0.05


class LineFront(Protocol):
    """A front that answers one controller line at a time, and knows when it is done."""

    @property
    def done(self) -> bool: ...

    def handle(self, line: str) -> str | None: ...


def answer_lines(front: LineFront, lines: Iterable[str], out: TextIO) -> None:
    """Write `front`'s answer to each of `lines` on `out` (flushed at once, for the
    controller waits on it) until the front is done or the input ends."""
    for line in lines:
        answer = front.handle(line)
        if answer:
            out.write(answer)
            out.flush()
        if front.done:
            break


class AgentGame:
    """One game as a controller set it up (`moves` from the initial position), and an
    agent brought up to date with it just before each of its choices."""

    def __init__(self, agent: Agent, game: Game[Any, Any]) -> None:
        self.agent = agent
        self.game: Game[Any, Any] = game
        self.moves: list[Any] = []
        self.state: Any = game.initial_state()
        #: the agent's view: the seat it was started for and the moves it was told
        self._seat: int | None = None
        self._told = 0
        self._told_state: Any = self.state

    def reset(self, moves: Sequence[Any] = (), game: Game[Any, Any] | None = None) -> None:
        """The game (a new one, if given) with `moves` played (GameError if one is illegal);
        the agent is started afresh before its next move."""
        game = self.game if game is None else game
        state = game.initial_state()
        for move in moves:
            state = game.play(state, move)
        self.game, self.state, self.moves = game, state, list(moves)
        self._seat = None

    def play(self, move: Any) -> None:
        """Play `move` for the side to move (GameError if it is illegal)."""
        state = self.game.play(self.state, move)
        self.moves.append(move)
        self.state = state

    def undo(self) -> None:
        """Take the last move back (IndexError if there is none)."""
        if not self.moves:
            raise IndexError("no move to take back")
        self.reset(self.moves[:-1])

    @property
    def over(self) -> bool:
        return self.game.outcome(self.state) is not None

    def choose(self, limit: SearchLimit) -> Any:
        """The agent's move for the side to move (not played here; IllegalChoice)."""
        agent, game = self.agent, self.game
        seat = game.to_move(self.state)
        if self._seat != seat:
            agent.start(game, seat)
            agent.sync(self.state, list(self.moves))
            self._seat = seat
        else:  # the moves since its last choice
            state = self._told_state
            for move in self.moves[self._told :]:
                after = game.apply(state, move)
                agent.observe(state, move, after)
                state = after
        self._told, self._told_state = len(self.moves), self.state
        move = agent.choose(self.state, limit)
        if move not in game.legal_moves(self.state):
            raise IllegalChoice(f"the agent chose an illegal move: {move!r}")
        return move  # the agent is told of it with the moves after it, before its next one


def budget(agent: Agent, seconds: float | None) -> SearchLimit:
    """The limit of one move: the agent's own (``mcts:time=1``) when its spec has one,
    cut to the controller's `seconds` (already less `MARGIN`) when those are fewer;
    the controller's seconds alone otherwise; `DEFAULT_SECONDS` with neither."""
    own = agent.default_limit
    if seconds is not None:
        seconds = max(MIN_SECONDS, seconds)
    if own is not None:
        if seconds is None or (own.time is not None and own.time <= seconds):
            return own
        return SearchLimit(time=seconds, iterations=own.iterations)
    return SearchLimit(time=seconds if seconds is not None else DEFAULT_SECONDS)


def one_line(exc: BaseException) -> str:
    """An error's message on one line (for a protocol's error reply)."""
    return " ".join(str(exc).split()) or type(exc).__name__
