"""What every protocol adapter does, and the values that pass between an adapter and the agent.

A `Session` speaks one protocol to one running `EngineProcess`: a handshake,
a new game, a turn (the whole game so far in, the engine's answer out), and a
quit line. It knows nothing of the server, the runtime or legality: the agent
checks the answer.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from games.base import Game
from player.agent import MoveInfo
from player.engines.config import EngineConfig
from player.engines.errors import EngineTimeout
from player.engines.process import EngineProcess
from protocol.messages import MAX_PV_MOVE_LENGTH, MAX_PV_MOVES


@dataclass(frozen=True, slots=True)
class Turn:
    """One request for a move: the game so far and the time."""

    game: Game[Any, Any]
    #: every move from the initial position, and the seat that played each
    moves: tuple[Any, ...]
    movers: tuple[int, ...]
    #: the seat to move (the engine's)
    seat: int
    state: Any
    #: seconds the engine is told it may think
    movetime: float
    #: `time.monotonic()` when the budget is spent (a `stop` goes out then, if the protocol has it)
    stop_at: float
    #: when the arena stops waiting for an answer at all
    give_up_at: float
    #: on a clock: every seat's seconds left, and the increment
    clocks: tuple[tuple[float, ...], float] | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """The engine's answer to a `Turn`."""

    #: the move as the engine wrote it (for messages), and as our move (None: resigned)
    text: str
    move: Any | None
    #: what the engine said about it, if anything
    info: MoveInfo | None
    #: seconds from the request to the answer, measured by the client
    think: float
    #: whether `stop` had to be sent
    stopped: bool = False


class Session(ABC):
    """One protocol over one engine process (not thread-safe: the agent serialises calls)."""

    #: the protocol's name in specs
    protocol: ClassVar[str]
    #: the line that asks the engine to exit
    quit_line: ClassVar[str | None] = None

    def __init__(
        self, process: EngineProcess, config: EngineConfig, abort: threading.Event
    ) -> None:
        self.process = process
        self.config = config
        self.abort = abort
        #: what the engine says it is (name, version, author), for logs and `engines check`
        self.engine_name: str | None = None
        self.about: dict[str, str] = {}

    @abstractmethod
    def handshake(self) -> None:
        """Start talking: within ``config.start_timeout`` (EngineError if not)."""

    def prepare(self, game: Game[Any, Any]) -> None:
        """Before a match of `game` is sought: whatever else the engine needs to be ready
        (Gomocup's ``START``); ValueError if the protocol cannot play it. Default: nothing."""
        return None  # a hook: the handshake is all most protocols need

    @abstractmethod
    def new_game(self, game: Game[Any, Any], seat: int) -> None:
        """A new game of `game` begins; the engine plays `seat`."""

    @abstractmethod
    def think(self, turn: Turn) -> Answer:
        """The engine's move for `turn` (EngineError on any fault)."""

    def startup_deadline(self) -> float:
        """When a handshake step must be done by."""
        return time.monotonic() + self.config.start_timeout

    def read(self, deadline: float) -> str:
        """The engine's next line by `deadline`, interruptible by the runtime."""
        return self.process.read_line(deadline, self.abort)

    def timeout(self, what: str, started: float) -> EngineTimeout:
        """The error for an answer to `what` not given in time."""
        return EngineTimeout(
            f"engine did not answer {what} within {time.monotonic() - started:.1f} s"
        )


def movers_of(game: Game[Any, Any], moves: Sequence[Any]) -> tuple[tuple[int, ...], Any]:
    """The seat that played each of `moves` from the initial position, and the position after."""
    state = game.initial_state()
    seats = []
    for move in moves:
        seats.append(game.to_move(state))
        state = game.apply(state, move)
    return tuple(seats), state


def clip_pv(words: Sequence[str]) -> tuple[str, ...]:
    """A principal variation cut to what the protocol carries (docs/PROTOCOL.md, move info)."""
    return tuple(word[:MAX_PV_MOVE_LENGTH] for word in words[:MAX_PV_MOVES])
