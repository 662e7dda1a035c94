"""Connect four's options (the compiled engine's knowledge of it): its evaluation, UCB1 constant and backups.

`Connect4Options` is the knowledge the search of a connect four game takes
(`FastSearch`'s ``knowledge``); the agent's spec lists its fields after the
generic options (`player.mcts.options`), and other games ignore them.
"""

from __future__ import annotations

from dataclasses import dataclass

from player.mcts.option import FAST, MCTSOption, Options, option, table


@dataclass(frozen=True, slots=True)
class Connect4Options(Options):
    """Connect four's leaf evaluation and backups (read by `connect4.plan.plan_for`)."""

    connect4_eval: float = option(
        float,
        0.7,
        "connect four (7 x 6): the learned evaluation's share of a leaf's value, a rollout's"
        " result the rest (0 = rollouts only)",
        low=0,
        high=1,
        engines=FAST,
    )
    connect4_c: float = option(
        float, 0.5, "connect four: UCB1 constant with evaluated leaves", low=0, engines=FAST
    )
    connect4_minimax: float = option(
        float,
        0.4,
        "connect four: implicit minimax backups, the weight in selection of the minimax of the"
        " tree's evaluations beside a child's mean reward (0 = off)",
        low=0,
        high=1,
        engines=FAST,
    )
    connect4_weights: str = option(
        str, "shipped",
        "connect four: the evaluation's weights: shipped, or the path of a weights file"
        " (.npz, with the arrays of the shipped one)",
        engines=FAST,
    )  # fmt: skip


OPTIONS: tuple[MCTSOption, ...] = table(Connect4Options)
