"""A deliberately faulty agent, for testing servers and tournaments.

``faulty:crash_after=3`` plays random moves and kills its whole process
(exit code 3) when asked for its 4th move; ``faulty:stall_after=2`` stops
answering (sleeps past any time limit) on its 3rd. This is how the test suite
(and a server operator) checks that crashes and stalls cost only the faulty
player's game.
"""

from __future__ import annotations

import os
import random
import time
from typing import Any

from player.agent import Agent, SearchLimit
from player.spec import AgentOption, register_agent

CRASH_EXIT_CODE = 3


class FaultyAgent(Agent):
    """Random moves until a chosen move count, then a crash or a stall."""

    def __init__(
        self,
        *,
        crash_after: int | None = None,
        stall_after: int | None = None,
        seed: int | None = None,
    ) -> None:
        for key, value in (("crash_after", crash_after), ("stall_after", stall_after)):
            if value is not None and value < 0:
                raise ValueError(f"option {key!r} must be >= 0, not {value}")
        self.name = "faulty"
        self.crash_after = crash_after
        self.stall_after = stall_after
        self.rng = random.Random(seed)
        self.moves = 0

    def choose(self, state: Any, limit: SearchLimit) -> Any:
        if self.crash_after is not None and self.moves >= self.crash_after:
            os._exit(CRASH_EXIT_CODE)  # no cleanup, no goodbye: like a segfault
        if self.stall_after is not None and self.moves >= self.stall_after:
            time.sleep(3600)
        self.moves += 1
        moves = self.require_game().legal_moves(state)
        return moves[int(self.rng.random() * len(moves))]


FAULTY = register_agent(
    "faulty",
    FaultyAgent,
    {
        "crash_after": AgentOption("crash_after", int, None, "exit the process at this move count"),
        "stall_after": AgentOption("stall_after", int, None, "stop answering at this move count"),
        "seed": AgentOption("seed", int, None, "random seed (none = from the OS)"),
    },
    description="random moves, then a crash or a stall (for testing fault handling)",
)
