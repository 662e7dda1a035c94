"""Go's kernel for the dispatch's generator (`player.mcts.fast.gen`): heavy and light
playouts, AMAF rollouts for RAVE, and its prior."""

from __future__ import annotations

from player.mcts.fast.core.spec import Kernel

KERNELS = (
    Kernel("GO", 5, "player.mcts.fast.go.kernel", amaf=True, prior="player.mcts.fast.go.prior"),
)
