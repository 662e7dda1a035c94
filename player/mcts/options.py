"""The ``mcts`` options, one table: name, type, default, range, help, and which engine reads each.

Why one table: the defaults and checks used to live in three places (the
agent's constructor, its spec registration, each engine's constructor) and
had drifted apart: the exploration constant defaulted to 1.4 in the agent and
the Python engine but to 1.0 in the compiled one, and the memory cap was
defined twice. Now the agent registers `agent_options()` and checks its
values with `check_options`; both engines take their defaults from `default`
and check what they read with the same `MCTSOption.check`, so an error names
the option the same way wherever it is caught.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from player.spec import AgentOption, OptionType

__all__ = [
    "ENGINES",
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
REVERSI_LEAVES = ("eval", "rollout")

#: who reads an option: the agent itself, or the search engines named
AGENT = ()
BOTH = ("python", "fast")


@dataclass(frozen=True, slots=True)
class MCTSOption:
    """One option: its spec name, type, default, allowed range and help.

    The range is `choices` for a str, else ``low`` (exclusive when `above`)
    and ``high`` (inclusive); a float must be finite; `nullable` allows None
    (``none`` in a spec). `engines` names the search engines that read it
    (``python``, ``fast``); empty for the agent's own options.
    """

    name: str
    type: OptionType
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    above: bool = False
    unit: str = ""
    choices: tuple[str, ...] | None = None
    nullable: bool = False
    engines: tuple[str, ...] = BOTH

    def rule(self) -> str:
        """What a valid value is, as error messages say it (``a finite number >= 0``)."""
        if self.choices is not None:
            return f"one of {', '.join(self.choices)}"
        if self.low is not None and self.high is not None:
            text = f"between {self.low:g} and {self.high:g}"
        elif self.low is not None:
            text = f"{'>' if self.above else '>='} {self.low:g}"
        else:
            text = "an integer" if self.type is int else "a number"
        if self.unit:
            text += f" {self.unit}"
        if self.nullable:
            return f"{text} (or none)"
        return f"a finite number {text}" if self.type is float else text

    def valid(self, value: Any) -> bool:
        """Whether `value` is allowed (of the right type and in range)."""
        if value is None:
            return self.nullable
        if self.type is bool:
            return isinstance(value, bool)
        if self.type is str:
            return isinstance(value, str) and (self.choices is None or value in self.choices)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if self.type is int and not isinstance(value, int):
            return False
        if not math.isfinite(value):
            return False
        if self.low is not None and (value <= self.low if self.above else value < self.low):
            return False
        return self.high is None or value <= self.high

    def check(self, value: Any) -> None:
        """Raise ValueError (``option 'c' must be a finite number >= 0, not -1``) if invalid."""
        if not self.valid(value):
            raise ValueError(f"option {self.name!r} must be {self.rule()}, not {value!r}")

    def agent_option(self) -> AgentOption:
        """The spec parser's declaration of this option."""
        return AgentOption(
            self.name, self.type, self.default, self.help, self.choices, nullable=self.nullable
        )


_TABLE = (
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
    # threat knowledge of m,n,k games with k >= 5 (gomoku): compiled engine only,
    # off for smaller k; see docs/AGENTS.md
    MCTSOption(
        "threats", bool, False,
        "k-in-a-row games, k >= 5: a root threat search before the tree (win, block, our"
        " VCF; moves that leave the opponent a VCF are proven losses), within 20% of the"
        " time left",
        engines=("fast",),
    ),
    MCTSOption(
        "candidates", int, 12,
        "k-in-a-row games, k >= 5: expand the threat-relevant moves, best first, and at"
        " most this many quiet ones (0 = every legal move)",
        low=0, engines=("fast",),
    ),
    MCTSOption(
        "cutoff", int, 4,
        "k-in-a-row games, k >= 5: plies of threat playout before the static evaluation"
        " decides (0 = play to the end)",
        low=0, engines=("fast",),
    ),
    MCTSOption(
        "vcf", int, 32,
        "k-in-a-row games, k >= 5: positions of the VCF search at each node expanded"
        " (a found VCF is its only move; 0 = off)",
        low=0, engines=("fast",),
    ),
    MCTSOption(
        "vct", int, 20_000,
        "k-in-a-row games, k >= 5: positions of each root VCT search (victory by continuous"
        " threats; ours: played at once; the opponent's: the moves that allow it are proven"
        " losses), ours within 35% of the time left, the opponent's within 25% of the rest;"
        " 0 = off",
        low=0, engines=("fast",),
    ),
    # connect four only (player.mcts.fast.connect4.plan); other games ignore them
    MCTSOption(
        "connect4_eval", float, 0.7,
        "connect four (7 x 6): the learned evaluation's share of a leaf's value, a rollout's"
        " result the rest (0 = rollouts only)",
        low=0, high=1, engines=("fast",),
    ),
    MCTSOption(
        "connect4_c", float, 0.5, "connect four: UCB1 constant with evaluated leaves", low=0,
        engines=("fast",),
    ),
    MCTSOption(
        "connect4_minimax", float, 0.4,
        "connect four: implicit minimax backups, the weight in selection of the minimax of the"
        " tree's evaluations beside a child's mean reward (0 = off)",
        low=0, high=1, engines=("fast",),
    ),
    MCTSOption(
        "connect4_weights", str, "shipped",
        "connect four: the evaluation's weights: shipped, or the path of a weights file"
        " (.npz, as the fit in the source tree writes)",
        engines=("fast",),
    ),
    # reversi only (player.mcts.fast.reversi.plan); other games ignore them
    MCTSOption(
        "reversi_leaf", str, "eval",
        "reversi: eval (alpha-beta on a hand evaluation at the leaves) or rollout (random)",
        choices=REVERSI_LEAVES, engines=("fast",),
    ),
    MCTSOption(
        "reversi_depth", int, 0,
        "reversi: depth of the alpha-beta at evaluated leaves (0: the static evaluation)",
        low=0, high=8, engines=("fast",),
    ),
    MCTSOption(
        "reversi_solve", int, 10,
        "reversi: solve leaves exactly from this many empty squares (0 = never)",
        low=0, high=24, engines=("fast",),
    ),
    MCTSOption(
        "reversi_endgame", int, 20,
        "reversi: solve the root's moves exactly from this many empty squares,"
        " within half the time left (0 = never)",
        low=0, high=40, engines=("fast",),
    ),
    MCTSOption(
        "reversi_c", float, 0.5, "reversi: UCB1 constant with evaluated leaves", low=0,
        engines=("fast",),
    ),
    MCTSOption(
        "reversi_minimax", float, 0.0,
        "reversi: implicit minimax backups with evaluated leaves, as connect4_minimax (0 = off)",
        low=0, high=1, engines=("fast",),
    ),
)  # fmt: skip

OPTIONS: Mapping[str, MCTSOption] = {option.name: option for option in _TABLE}
"""Every option of the ``mcts`` agent by name, in spec order."""


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
