"""The root VCT check of `FastSearch`: a forced win by threats is played, moves that allow one pruned.

Why at the root, before the tree: at 0.2 s a move the tree runs a few
thousand simulations, too few to find the double threat (four-three,
three-three) that beats an opponent who blocks every open three, while a
threat-space search (`vct.vct`) finds such a line in hundreds of positions.
So, in order:

1. our VCT: found, its first move is played at once (a proven win);
2. the opponent's VCT, as if it were to move: if it has one, each root
   child (the tree's candidates, expanded first if need be) is checked for
   the opponent's VCT after it, and the children that leave it one are
   marked proven losses, so the tree weighs only the real defences. Every
   mark is a proof (`vct` is sound), so nothing good is pruned; if every
   child is lost the marks are dropped (the tree then plays its best guess,
   and the opponent may not find the win).

Time: each step takes at most its share of the time left (`ATTACK_SHARE`,
`DEFENCE_SHARE`), converted to a budget of VCT positions by the rate
measured on earlier calls; step 2 reads the clock between children.
``vct=N`` (the option) caps each search at N positions. Why these shares:
against the pattern engine 0.35 for our VCT beat 0.15 (it found too few of
the lines the games offered) and 0.55 (it starved the tree): docs/notes/2026-11-26-gomoku-threats.md.
"""

from __future__ import annotations

import numpy as np

from player.mcts.fast.core import tree
from player.mcts.fast.core.adapter import Adapter
from player.mcts.fast.core.codes import PROVEN_LOSS
from player.mcts.fast.mnk.rootthreats import TreeArrays

#: the most of the time left that each step may take: our VCT, then the defence
ATTACK_SHARE, DEFENCE_SHARE = 0.35, 0.25
#: the VCT positions per second assumed before the first measurement
START_RATE = 50_000.0
#: the bounds of a measured rate (positions per second), against a freak measurement
MIN_RATE, MAX_RATE = 2_000.0, 500_000.0
#: the least budget worth a search (below it the step is skipped)
MIN_BUDGET = 16


class RootVCT:
    """Runs the VCT searches at a search's root and applies their verdict (module doc)."""

    def __init__(self, adapter: Adapter, positions: int) -> None:
        assert adapter.threat_win is not None
        self.threat_win = adapter.threat_win
        self.cap = positions
        self.rate = START_RATE
        self.left = np.zeros(1, dtype=np.int64)

    def budget(self, seconds: float) -> int:
        """The positions that fit in `seconds` at the measured rate, at most the cap."""
        if seconds == float("inf"):
            return self.cap
        return max(0, min(self.cap, int(seconds * self.rate)))

    def _search(self, cfg: np.ndarray, st: np.ndarray, mover: bool, budget: int) -> int:
        """One `threat_win` call of `budget` positions; the move or -1."""
        self.left[0] = budget
        return int(self.threat_win(cfg, st, mover, self.left))

    def _measure(self, used: int, spent: float) -> None:
        """Update the rate from one search (a slowdown is taken at once, a speedup halfway)."""
        if used >= 200 and spent > 0.0005:
            measured = min(MAX_RATE, max(MIN_RATE, used / spent))
            self.rate = min(measured, 0.5 * self.rate + 0.5 * measured)

    def apply(
        self, search: TreeArrays, root: int, kstate: np.ndarray, deadline: float
    ) -> int | None:
        """Check the root of `search`: our winning move (kernel move), or None (the tree decides)."""
        clock = search.clock
        now = clock()
        budget = self.budget(ATTACK_SHARE * (deadline - now))
        if budget >= MIN_BUDGET:
            move = self._search(search.cfg, search.st[root], True, budget)
            self._measure(budget - int(self.left[0]), clock() - now)
            if move >= 0:
                return move
        self.defend(search, root, kstate, deadline)
        return None

    def defend(self, search: TreeArrays, root: int, kstate: np.ndarray, deadline: float) -> int:
        """Mark the root children that leave the opponent a VCT as proven losses; how many.

        The opponent's VCT is looked for first (as if it were to move): none
        found, nothing is marked. Each child then gets an equal share of the
        budget left, and the clock is read between children.
        """
        clock = search.clock
        start = clock()
        end = start + DEFENCE_SHARE * (deadline - start) if deadline != float("inf") else deadline
        budget = self.budget(end - start)
        if budget < MIN_BUDGET:
            return 0
        cfg, st, ni = search.cfg, search.st, search.ni
        if self._search(cfg, st[root], False, budget // 2) < 0:
            return 0
        if ni[root, tree.NCH] == 0:
            search.run_batch(kstate, 1)  # one simulation expands the root
        first = int(ni[root, tree.FIRST])
        children = range(first, first + int(ni[root, tree.NCH]))
        lost = []
        for j in children:
            now = clock()
            if now >= end:
                break
            if ni[j, tree.PROVEN] != 0:
                continue
            share = self.budget((end - now) / (children.stop - j))
            if share >= MIN_BUDGET and self._search(cfg, st[j], True, share) >= 0:
                lost.append(j)
        unproven = [j for j in children if ni[j, tree.PROVEN] == 0]
        if len(lost) == len(unproven):
            return 0  # every move loses against best play: leave the choice to the tree
        for j in lost:
            ni[j, tree.PROVEN] = PROVEN_LOSS
        return len(lost)
