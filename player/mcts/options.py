"""The ``mcts`` options in two layers: the generic search's table here, each game's in its package.

The generic options (time, c, workers, reuse, solver, ...) are `GENERIC`;
each game's knowledge declares its own (defaults, help, range) in its
package's ``options.py`` (`player.mcts.fast.connect4.options`, ``reversi``,
``mnk`` for gomoku's threats), and `OPTIONS` lists them all in spec order.

Why one table per layer: the defaults and checks used to live in three places (the
agent's constructor, its spec registration, each engine's constructor) and
had drifted apart: the exploration constant defaulted to 1.4 in the agent and
the Python engine but to 1.0 in the compiled one, and the memory cap was
defined twice. Now the agent registers `agent_options()` and checks its
values with `check_options`; both engines take their defaults from `default`
and check what they read with the same `MCTSOption.check`, so an error names
the option the same way wherever it is caught.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from player.mcts.fast.connect4 import options as connect4
from player.mcts.fast.mnk import options as mnk
from player.mcts.fast.reversi import options as reversi
from player.mcts.option import AGENT, MCTSOption
from player.spec import AgentOption

__all__ = [
    "ENGINES",
    "GAMES",
    "GENERIC",
    "MAX_WORKERS",
    "METRICS",
    "OPTIONS",
    "ROLLOUTS",
    "MCTSOption",
    "agent_options",
    "check_options",
    "default",
]

MAX_WORKERS = 64
ENGINES = ("auto", "fast", "python")
METRICS = ("uct", "uctv")
ROLLOUTS = ("smart", "random")

#: the generic search options: every game's, read by the agent or the engines
GENERIC: tuple[MCTSOption, ...] = (
    MCTSOption(
        "time", float, 1.0, "seconds per move", low=0, above=True, unit="seconds",
        nullable=True, engines=AGENT,
    ),
    MCTSOption(
        "iterations", int, None, "iteration cap per move (per worker)", low=1, nullable=True,
        engines=AGENT,
    ),
    MCTSOption("c", float, 1.4, "UCB1 exploration constant", low=0),
    MCTSOption(
        "metric", str, "uct", "uct: win counts; uctv: game points (normalised)",
        choices=METRICS, engines=("python",),
    ),
    MCTSOption(
        "max_moves", int, None, "rollout depth cap (capped = draw)", low=1, nullable=True,
        engines=("python",),
    ),
    MCTSOption(
        "workers", int, 1,
        "threads growing one tree in a timed search (compiled engine; the Python engine:"
        " root-parallel processes, visits summed); a search capped by iterations alone uses one",
        low=1, high=MAX_WORKERS, engines=AGENT,
    ),
    MCTSOption("reuse", bool, True, "keep the subtree between moves"),
    MCTSOption("solver", bool, True, "MCTS-Solver: prove wins and losses"),
    MCTSOption(
        "seed", int, None, "random seed (none = from the OS)", nullable=True, engines=AGENT
    ),
    MCTSOption(
        "engine", str, "auto", "fast: compiled (built-in games), python: generic",
        choices=ENGINES, engines=AGENT,
    ),
    MCTSOption(
        "rollout", str, "smart", "compiled engine: smart (win/block) or random",
        choices=ROLLOUTS, engines=("fast",),
    ),
    MCTSOption(
        "exact", float, 0.5,
        "share of each move's time for an exact search from the root (connect four);"
        " its proof decides the move; 0 = off",
        low=0, high=1, engines=("fast",),
    ),
    MCTSOption(
        "memory", float, 512, "MiB per search tree (the tree stops growing)", low=1,
        unit="MiB",
    ),
)  # fmt: skip

#: each game's own options, declared in its knowledge package, in spec order after the generic ones
GAMES: Mapping[str, tuple[MCTSOption, ...]] = {
    "mnk": mnk.OPTIONS,
    "connect4": connect4.OPTIONS,
    "reversi": reversi.OPTIONS,
}

OPTIONS: Mapping[str, MCTSOption] = {
    option.name: option for table in (GENERIC, *GAMES.values()) for option in table
}
"""Every option of the ``mcts`` agent by name, in spec order: the generic ones, then each game's."""


def default(name: str) -> Any:
    """The default of option `name` (KeyError for an unknown one)."""
    return OPTIONS[name].default


def agent_options() -> dict[str, AgentOption]:
    """The table as `player.spec.register_agent` takes it."""
    return {name: option.agent_option() for name, option in OPTIONS.items()}


def check_options(values: Mapping[str, Any]) -> None:
    """Check each given option against the table, then the rule between options.

    Raises ValueError naming the first bad option (an unknown name too). The
    rule: ``time`` and ``iterations`` (the given values, else the defaults)
    cannot both be None, when either is given.
    """
    for name, value in values.items():
        option = OPTIONS.get(name)
        if option is None:
            raise ValueError(f"unknown mcts option {name!r}")
        option.check(value)
    budget = [values.get(name, default(name)) for name in ("time", "iterations")]
    if ("time" in values or "iterations" in values) and budget == [None, None]:
        raise ValueError("options 'time' and 'iterations' cannot both be none")
