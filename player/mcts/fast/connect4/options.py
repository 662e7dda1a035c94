"""Connect four's options (the compiled engine's knowledge of it): its evaluation, UCB1 constant and backups.

The agent's spec lists them after the generic options (`player.mcts.options`);
other games ignore them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from player.mcts.option import FAST, MCTSOption, defaults

OPTIONS: tuple[MCTSOption, ...] = (
    MCTSOption(
        "connect4_eval", float, 0.7,
        "connect four (7 x 6): the learned evaluation's share of a leaf's value, a rollout's"
        " result the rest (0 = rollouts only)",
        low=0, high=1, engines=FAST,
    ),
    MCTSOption(
        "connect4_c", float, 0.5, "connect four: UCB1 constant with evaluated leaves", low=0,
        engines=FAST,
    ),
    MCTSOption(
        "connect4_minimax", float, 0.4,
        "connect four: implicit minimax backups, the weight in selection of the minimax of the"
        " tree's evaluations beside a child's mean reward (0 = off)",
        low=0, high=1, engines=FAST,
    ),
    MCTSOption(
        "connect4_weights", str, "shipped",
        "connect four: the evaluation's weights: shipped, or the path of a weights file"
        " (.npz, with the arrays of the shipped one)",
        engines=FAST,
    ),

)  # fmt: skip

DEFAULTS: Mapping[str, Any] = defaults(OPTIONS)
