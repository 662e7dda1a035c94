"""The exact search from the root, with a share of each move's time: `RootSolver`.

Why before the Monte Carlo search and not instead of it: an exact search
either finishes, and then its proof decides the move (a win is played, a
proven loss never is, a proven draw is kept), or it runs out of budget and
the Monte Carlo search plays on with the time left, still avoiding the
children the exact search already proved lost. Random rollouts mislead
exactly where a few plies of exact search do not (connect four's middle
game), and they are the fallback where exact search cannot finish (the
opening).

The search is the kernel's `kernels.solve` (only `kernels.SOLVERS` have
one), called through `tree.solve_root` in chunks of nodes sized from the
measured node rate, each chunk short (`CHUNK_SECONDS`),
so the clock is checked between chunks and never overshot by more than a
chunk; `tree.solve_root` keeps its state between chunks and goes on where
it stopped. Its transposition table stays between moves and games (it holds
exact values of positions, true forever), sized from the search's memory
cap (`TABLE_SHARE` of it, at most `MAX_ENTRIES`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from player.mcts.fast import kernels, tree
from player.mcts.fast.connect4_solve import LIMIT, NODES, new_table

#: the share of the ``memory`` cap the transposition table takes (the tree the rest)
TABLE_SHARE = 0.125
#: the most entries: 2 MiB. The search is bound by memory latency: on 200 middle-game
#: positions (plies 10-32) a table of 2^18 entries proved 181 roots within 0.1 s and ran
#: 11.8 M nodes a second, one of 2^20 174 and 8.3 M (more re-searches, fewer cache
#: misses). And the search is built at a match's start, on the first move's clock: the
#: table's pages are mapped as the search touches them (zeroed by the kernel), and a
#: 36 MiB table once cost up to 0.1 s of page faults on a first move
MAX_ENTRIES = 1 << 18
#: bytes of one table entry: one int64 word (`connect4_solve.new_table`)
ENTRY_BYTES = 8
#: one call of exact search, in seconds at the measured rate: the clock is read between
#: calls, so a call overshoots the share by at most this much (more on a starved CPU,
#: where the measured rate falls with it)
CHUNK_SECONDS = 0.002
#: nodes per iteration of the iteration budget, when a search has no clock
NODES_PER_ITERATION = 20
#: the node rate assumed before any is measured (a slow machine's)
START_RATE = 1e6
#: the most children of a root the exact search proves (a connect four board's width)
MAX_CHILDREN = 64


def supported(gid: int) -> bool:
    """Whether kernel `gid` has an exact search."""
    return gid in kernels.SOLVERS


def table_bytes(max_memory: float) -> int:
    """The bytes the table takes out of a ``memory`` cap of `max_memory` MiB."""
    return min(int(max_memory * 2**20 * TABLE_SHARE), MAX_ENTRIES * ENTRY_BYTES)


class RootSolver:
    """Runs a kernel's exact search on the root's children, for a share of a move's budget."""

    def __init__(
        self, gid: int, cfg: np.ndarray, share: float, max_memory: float, clock: Callable[[], float]
    ) -> None:
        self.gid = gid
        self.cfg = cfg
        self.share = share
        self.clock = clock
        self.table = new_table(table_bytes(max_memory) // ENTRY_BYTES)
        #: nodes so far, node limit, then `tree.solve_root`'s state between calls
        self.budget = np.zeros(tree.ROOT_BUDGET, dtype=np.int64)
        #: `tree.solve_root`'s progress per child of the root (a row of the board at most)
        self.phase = np.zeros(MAX_CHILDREN, dtype=np.int8)
        self.rate = START_RATE
        #: nodes searched by the last `prove`
        self.nodes = 0

    def prove(
        self, st: np.ndarray, ni: np.ndarray, root: int, start: float, deadline: float, cap: int
    ) -> bool:
        """Solve the expanded `root`'s children within the share; True if the root is proven.

        The share is of the time from `start` to `deadline`, or, with no
        clock (an infinite deadline), of `cap` iterations at
        `NODES_PER_ITERATION` nodes each.
        """
        self.nodes = 0
        self.budget[:] = 0
        self.phase[:] = 0
        if deadline == float("inf"):
            self.budget[LIMIT] = max(1000, int(self.share * cap * NODES_PER_ITERATION))
            proven = self._run(st, ni, root)
            self.nodes = int(self.budget[NODES])
            return proven
        until = start + self.share * (deadline - start)
        while True:
            now = self.clock()
            left = until - now
            if left <= 0:
                return False
            self.budget[NODES] = 0
            self.budget[LIMIT] = max(1000, int(self.rate * min(CHUNK_SECONDS, left)))
            proven = self._run(st, ni, root)
            spent = self.clock() - now
            searched = int(self.budget[NODES])
            self.nodes += searched
            if spent > 0.001 and searched > 1000:
                self.rate = min(searched, int(self.budget[LIMIT])) / spent
            if proven:
                return True

    def _run(self, st: np.ndarray, ni: np.ndarray, root: int) -> bool:
        return bool(
            tree.solve_root(self.gid, self.cfg, st, ni, self.table, self.budget, self.phase, root)
        )
