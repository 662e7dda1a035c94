"""A deliberately faulty agent, for testing servers and tournaments.

``faulty:crash_after=3`` plays random moves and kills its whole process
(exit code 3) when asked for its 4th move; ``faulty:stall_after=2`` stops
answering (sleeps past any time limit) on its 3rd; ``faulty:late_at=1`` answers
its 2nd move of every game a second after its time limit (a slow engine: it
loses on time, then plays the next game). This is how the test suite (and a
server operator) checks that crashes and stalls cost only the faulty player's
game, and that a time loss is not a crash.
"""

from __future__ import annotations

import os
import random
import threading
import time
from typing import Any

from games.base import Game
from player.agent import Agent, SearchLimit
from player.spec import AgentOption, register_agent

CRASH_EXIT_CODE = 3
#: how far past its time limit a ``late_at`` move answers (seconds)
LATE_BY = 1.0


class FaultyAgent(Agent):
    """Random moves until a chosen move count, then a crash or a stall."""

    def __init__(
        self,
        *,
        crash_after: int | None = None,
        stall_after: int | None = None,
        late_at: int | None = None,
        seed: int | None = None,
    ) -> None:
        for key, value in (
            ("crash_after", crash_after),
            ("stall_after", stall_after),
            ("late_at", late_at),
        ):
            if value is not None and value < 0:
                raise ValueError(f"option {key!r} must be >= 0, not {value}")
        self.name = "faulty"
        self.crash_after = crash_after
        self.stall_after = stall_after
        self.late_at = late_at
        self.rng = random.Random(seed)
        self.moves = 0
        self.game_moves = 0
        self._woken = threading.Event()

    def start(self, game: Game[Any, Any], seat: int) -> None:
        super().start(game, seat)
        self.game_moves = 0
        self._woken.clear()

    def interrupt(self) -> None:
        self._woken.set()  # the match ended: a late move stops waiting, as an engine's would

    def choose(self, state: Any, limit: SearchLimit) -> Any:
        if self.crash_after is not None and self.moves >= self.crash_after:
            os._exit(CRASH_EXIT_CODE)  # no cleanup, no goodbye: like a segfault
        if self.stall_after is not None and self.moves >= self.stall_after:
            time.sleep(3600)
        if self.game_moves == self.late_at:
            self._woken.wait((limit.time or 0.0) + LATE_BY)  # until then, or `interrupt`
        self.moves += 1
        self.game_moves += 1
        moves = self.require_game().legal_moves(state)
        return moves[int(self.rng.random() * len(moves))]


FAULTY = register_agent(
    "faulty",
    FaultyAgent,
    {
        "crash_after": AgentOption("crash_after", int, None, "exit the process at this move count"),
        "stall_after": AgentOption("stall_after", int, None, "stop answering at this move count"),
        "late_at": AgentOption(
            "late_at", int, None, "answer this move of every game (0 = first) a second late"
        ),
        "seed": AgentOption("seed", int, None, "random seed (none = from the OS)"),
    },
    description="random moves, then a crash, a stall or a late move (for testing fault handling)",
)
