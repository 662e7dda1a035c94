"""The k-in-a-row kernels for the dispatch's generator (`player.mcts.fast.gen`): small boards and big ones.

The big boards' kernel lists its moves best first (gomoku's threat knowledge).
Both mark their rollouts' moves for RAVE (`rollout_amaf`).
"""

from __future__ import annotations

from player.mcts.fast.core.spec import Kernel

KERNELS = (
    Kernel("MNK", 1, "player.mcts.fast.mnk.kernel", amaf=True),
    Kernel("BIGMNK", 4, "player.mcts.fast.mnk.big", ordered=True, amaf=True),
)
