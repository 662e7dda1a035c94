"""The root threat search of `FastSearch`: what `threats.analyse` decides before the tree runs.

Why before and not inside the tree: a VCF search costs hundreds of
positions; run at every node it would starve the tree, run once at the root
it settles the moves where tactics decide (a win by force is played at once,
a lone block too), and it prunes the root where the opponent threatens a
VCF: the moves that leave it one are marked proven losses, so the tree
spends its time on the real defences. Inside the tree the cheaper window
knowledge (`threats.candidates`, the playout) keeps the search threat-aware.

Time: at most `SHARE` (a fifth) of the time left. The budget is counted in VCF
positions, converted from seconds by the rate measured on earlier calls.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from player.mcts.fast.core import tree
from player.mcts.fast.core.adapter import Adapter
from player.mcts.fast.core.codes import PROVEN_LOSS
from player.mcts.fast.mnk import threats

#: the most of a move's remaining time the root threat search may take (it cannot
#: look at the clock: on a loaded machine it runs slower than its measured rate)
SHARE = 0.2
#: the most VCF positions of one root threat search, whatever the time
MAX_BUDGET = 50_000
#: the VCF positions per second assumed before the first measurement
START_RATE = 40_000.0
#: the bounds of a measured rate (positions per second), against a freak measurement
MIN_RATE, MAX_RATE = 2_000.0, 400_000.0
#: VCF positions searched when a search has no deadline (an iteration budget)
UNTIMED_BUDGET = 20_000


class TreeArrays(Protocol):
    """What the root search uses of a `FastSearch`: its kernel config, arrays, clock, simulations."""

    cfg: np.ndarray
    st: np.ndarray
    ni: np.ndarray
    clock: Callable[[], float]

    def run_batch(self, kstate: np.ndarray, batch: int) -> tuple[int, int]: ...


class RootThreats:
    """Runs `threats.analyse` on a search's root and applies its verdict."""

    def __init__(self, adapter: Adapter) -> None:
        assert adapter.analyse is not None
        self.analyse = adapter.analyse
        self.rate = START_RATE
        self.out = np.zeros(3 + tree.MAX_MOVES, dtype=np.int64)

    def budget(self, now: float, deadline: float) -> int:
        """The VCF positions that fit in `SHARE` of the time to `deadline`."""
        if deadline == float("inf"):
            return UNTIMED_BUDGET
        return max(0, min(MAX_BUDGET, int(SHARE * (deadline - now) * self.rate)))

    def apply(
        self, search: TreeArrays, root: int, kstate: np.ndarray, deadline: float
    ) -> tuple[int, bool] | None:
        """Analyse the root of `search`; (kernel move, is a proven win) when that decides.

        A DEFEND verdict marks every root child but the safe moves as a proven
        loss (the root is expanded first if it is not); if no child is safe
        the first safe move is played.
        """
        now = search.clock()
        budget = self.budget(now, deadline)
        used = self.analyse(search.cfg, search.st[root], budget, self.out)
        spent = search.clock() - now
        if used >= 200 and spent > 0.001:
            measured = min(MAX_RATE, max(MIN_RATE, used / spent))
            self.rate = min(measured, 0.5 * self.rate + 0.5 * measured)  # a slowdown at once
        code, move = int(self.out[0]), int(self.out[1])
        if code in (threats.WIN, threats.VCF):
            return move, True
        if code == threats.BLOCK:
            return move, False
        if code != threats.DEFEND:
            return None
        safe = {int(cell) for cell in self.out[3 : 3 + int(self.out[2])]}
        ni = search.ni
        if ni[root, tree.NCH] == 0:
            search.run_batch(kstate, 1)
        first, count = int(ni[root, tree.FIRST]), int(ni[root, tree.NCH])
        children = range(first, first + count)
        if not any(int(ni[j, tree.MOVE]) in safe for j in children):
            return int(self.out[3]), False
        for j in children:
            if int(ni[j, tree.MOVE]) not in safe:
                ni[j, tree.PROVEN] = PROVEN_LOSS
        return None
