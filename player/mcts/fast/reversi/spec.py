"""Reversi's kernel for the dispatch's generator (`player.mcts.fast.gen`): with a leaf evaluator."""

from __future__ import annotations

from player.mcts.fast.core.spec import Kernel

KERNELS = (
    Kernel("REVERSI", 2, "player.mcts.fast.reversi.kernel", leaf="player.mcts.fast.reversi.leaf"),
)
