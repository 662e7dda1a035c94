"""Connect four's kernel for the dispatch's generator (`player.mcts.fast.gen`): an exact search, a leaf evaluator, AMAF rollouts (by column)."""

from __future__ import annotations

from player.mcts.fast.core.spec import Kernel

KERNELS = (
    Kernel(
        "CONNECT4",
        0,
        "player.mcts.fast.connect4.kernel",
        solve="player.mcts.fast.connect4.solve",
        leaf="player.mcts.fast.connect4.evaluation",
        amaf=True,
    ),
)
