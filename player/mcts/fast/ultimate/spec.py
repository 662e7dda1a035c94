"""Ultimate tic-tac-toe's kernel for the dispatch's generator (`player.mcts.fast.gen`)."""

from __future__ import annotations

from player.mcts.fast.core.spec import Kernel

KERNELS = (Kernel("ULTIMATE", 3, "player.mcts.fast.ultimate.kernel"),)
