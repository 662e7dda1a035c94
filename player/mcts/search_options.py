"""The generic search options: the first of the ``mcts`` options' two layers.

Why a module of their own: the compiled core (`player.mcts.fast.core.engine`)
reads them, and must not import the games' knowledge that `player.mcts.options`
gathers beside them (the core imports no game's package).
"""

from __future__ import annotations

from dataclasses import dataclass

from player.mcts.option import AGENT, Options, option

__all__ = ["ENGINES", "MAX_WORKERS", "METRICS", "ROLLOUTS", "SearchOptions"]

MAX_WORKERS = 64
ENGINES = ("auto", "fast", "python")
METRICS = ("uct", "uctv")
ROLLOUTS = ("smart", "random")
#: UCB1's exploration constant where the game sets none (option ``c=none``)
UCB_C = 1.4


@dataclass(frozen=True, slots=True)
class SearchOptions(Options):
    """The generic search options: every game's, read by the agent or the engines.

    Constructing one checks each value (`MCTSOption.check`) and the rule
    between two of them: ``time`` and ``iterations`` cannot both be None.
    """

    time: float | None = option(
        float,
        1.0,
        "seconds per move",
        low=0,
        above=True,
        unit="seconds",
        nullable=True,
        engines=AGENT,
    )
    iterations: int | None = option(
        int, None, "iteration cap per move (per worker)", low=1, nullable=True, engines=AGENT
    )
    c: float | None = option(
        float,
        None,
        "UCB1 exploration constant; none = the game's default (1.4; go: 0.1, with RAVE and a prior)",
        low=0,
        nullable=True,
    )
    metric: str = option(
        str,
        "uct",
        "uct: win counts; uctv: game points (normalised)",
        choices=METRICS,
        engines=("python",),
    )
    max_moves: int | None = option(
        int,
        None,
        "rollout depth cap (capped = draw)",
        low=1,
        nullable=True,
        engines=("python",),
    )
    workers: int = option(
        int,
        1,
        "threads growing one tree in a timed search (compiled engine; the Python engine:"
        " root-parallel processes, visits summed); a search capped by iterations alone uses one",
        low=1,
        high=MAX_WORKERS,
        engines=AGENT,
    )
    reuse: bool = option(bool, True, "keep the subtree between moves")
    solver: bool = option(bool, True, "MCTS-Solver: prove wins and losses")
    seed: int | None = option(
        int, None, "random seed (none = from the OS)", nullable=True, engines=AGENT
    )
    engine: str = option(
        str,
        "auto",
        "fast: compiled (built-in games), python: generic",
        choices=ENGINES,
        engines=AGENT,
    )
    rollout: str = option(
        str,
        "smart",
        "compiled engine: smart (win/block) or random",
        choices=ROLLOUTS,
        engines=("fast",),
    )
    exact: float = option(
        float,
        0.5,
        "share of each move's time for an exact search from the root (connect four);"
        " its proof decides the move; 0 = off",
        low=0,
        high=1,
        engines=("fast",),
    )
    rave: float | None = option(
        float,
        None,
        "RAVE's equivalence parameter k (compiled engine, placement games: m,n,k, gomoku,"
        " connect four, go): AMAF weighs as much as a move's own mean at k visits;"
        " 0 = off, none = the game's default",
        low=0,
        nullable=True,
        engines=("fast",),
    )
    prior: bool = option(
        bool,
        True,
        "compiled engine: the game's prior (virtual visits and wins for new nodes), where it has one",
        engines=("fast",),
    )
    memory: float = option(
        float, 512, "MiB per search tree (the tree stops growing)", low=1, unit="MiB"
    )  # fmt: skip

    def __post_init__(self) -> None:
        super(SearchOptions, self).__post_init__()
        if self.time is None and self.iterations is None:
            raise ValueError("options 'time' and 'iterations' cannot both be none")
