"""Reversi's options (the compiled engine's knowledge of it): evaluated leaves, solves and backups.

The agent's spec lists them after the generic options (`player.mcts.options`);
other games ignore them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from player.mcts.option import FAST, MCTSOption, defaults

#: what a leaf is: the evaluation (`reversi_depth`'s alpha-beta on it) or a random rollout
LEAVES = ("eval", "rollout")

OPTIONS: tuple[MCTSOption, ...] = (
    MCTSOption(
        "reversi_leaf", str, "eval",
        "reversi: eval (alpha-beta on a hand evaluation at the leaves) or rollout (random)",
        choices=LEAVES, engines=FAST,
    ),
    MCTSOption(
        "reversi_depth", int, 0,
        "reversi: depth of the alpha-beta at evaluated leaves (0: the static evaluation)",
        low=0, high=8, engines=FAST,
    ),
    MCTSOption(
        "reversi_solve", int, 10,
        "reversi: solve leaves exactly from this many empty squares (0 = never)",
        low=0, high=24, engines=FAST,
    ),
    MCTSOption(
        "reversi_endgame", int, 20,
        "reversi: solve the root's moves exactly from this many empty squares,"
        " within half the time left (0 = never)",
        low=0, high=40, engines=FAST,
    ),
    MCTSOption(
        "reversi_c", float, 0.5, "reversi: UCB1 constant with evaluated leaves", low=0,
        engines=FAST,
    ),
    MCTSOption(
        "reversi_minimax", float, 0.0,
        "reversi: implicit minimax backups with evaluated leaves, as connect4_minimax (0 = off)",
        low=0, high=1, engines=FAST,
    ),

)  # fmt: skip

DEFAULTS: Mapping[str, Any] = defaults(OPTIONS)
