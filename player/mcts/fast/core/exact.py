"""The exact search from the root, with a share of each move's time: `RootSolver`.

Why before the Monte Carlo search and not instead of it: an exact search
either finishes, and then its proof decides the move (a win is played, a
proven loss never is, a proven draw is kept), or it runs out of budget and
the Monte Carlo search plays on with the time left, still avoiding the
children the exact search already proved lost. Random rollouts mislead
exactly where a few plies of exact search do not (connect four's middle
game), and they are the fallback where exact search cannot finish (the
opening).

When the root's search did not finish, the two meet once more: after part
of the time left (`VERIFY_AFTER`) the Monte Carlo search's favourite move is
asked what it is worth (`RootSolver.verify`): refuting one move costs a
fraction of proving the root, and a refuted favourite sends the Monte Carlo
search to another move. On 400 middle-game positions at 0.2 s a move (seeds
2 and 3 of the accuracy benchmark) it kept the value in 396 against 391
without it; in the opening, whose refutations mostly need more than the
time, 340 against 344 (within the run-to-run spread of about 5).

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

from player.mcts.fast.core import registry, tree
from player.mcts.fast.core.codes import BUDGET_LIMIT as LIMIT
from player.mcts.fast.core.codes import BUDGET_NODES as NODES
from player.mcts.fast.core.codes import PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN, UNSOLVED

#: the kernels' dispatch (`player.mcts.fast.kernels`), as the package above the core provides it
kernels = registry.dispatch()

#: the share of the ``memory`` cap the transposition table takes (the tree the rest)
TABLE_SHARE = 0.125
#: the most entries: 1 MiB. The search is bound by memory latency, and a table a core's
#: cache holds proves more in the time than a bigger one's fewer re-searches. Middle-game
#: roots of plies 10-14 of the accuracy benchmark's seeds, each solved from an empty table
#: for at most 0.1 s, the mean of two runs (the table's mixed keys, `connect4_solve`): on
#: one core with the other idle (865 roots, seeds 1, 4, 5, 8-11), 2^16 entries proved 770
#: at 15.1 M nodes a second, 2^17 773 at 14.6 M, 2^18 757 at 12.4 M, 2^19 730 at 9.8 M; on
#: both cores at once (1,340 roots, seeds 1-11, half on each), 1,194, 1,196 and 1,178 for
#: 2^16, 2^17 and 2^18. (With the former layout, 2^18 against 2^20: 181 and 176 of 200.)
#: And the search is built at a match's start, on the first move's clock: the table's pages
#: are mapped as the search touches them (zeroed by the kernel), and a 36 MiB table once
#: cost up to 0.1 s of page faults on a first move
MAX_ENTRIES = 1 << 17
#: bytes of one table entry: one int64 word (connect four's `solve.new_table`)
ENTRY_BYTES = 8
#: one call of exact search, in seconds at the measured rate: the clock is read between
#: calls, so a call overshoots the share by at most this much (more on a starved CPU,
#: where the measured rate falls with it)
CHUNK_SECONDS = 0.002
#: nodes per iteration of the iteration budget, when a search has no clock
NODES_PER_ITERATION = 20
#: the node rate assumed before any is measured (a slow machine's)
START_RATE = 1e6
#: when the root's search did not finish: the Monte Carlo search runs for this share of
#: the time left, then its favourite move is asked what it is worth (`RootSolver.verify`)
#: for `VERIFY_SHARE` of it, and the Monte Carlo search has the rest
VERIFY_AFTER = 0.4
VERIFY_SHARE = 0.3
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
        self.table = kernels.new_table(gid, table_bytes(max_memory) // ENTRY_BYTES)
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

    def verify(self, st: np.ndarray, ni: np.ndarray, root: int, until: float) -> bool:
        """Ask the Monte Carlo search's favourite move what it is worth, until `until`.

        The favourite is the root's most visited unproven child. First "does
        it lose?" (a proven loss: the search then turns to another move), then
        "does it win?" (a proven win or draw). The answer is marked in the tree
        (and the root, once its children's marks say its value). The root's
        own search (`prove`) could not finish; this question is smaller: a
        refutation of one move is a fraction of a proof of the root. True when
        a mark was made.
        """
        first, count = int(ni[root, tree.FIRST]), int(ni[root, tree.NCH])
        if count == 0 or ni[root, tree.PROVEN] != 0:
            return False
        children = range(first, first + count)
        open_ = [c for c in children if ni[c, tree.PROVEN] == 0]
        if not open_:
            return False
        child = max(open_, key=lambda c: int(ni[c, tree.VIS]))
        lost = self._ask(st[child], 0, 1, until)  # the value for the opponent, to move there
        if lost is None:
            return False
        if lost >= 1:
            ni[child, tree.PROVEN] = PROVEN_LOSS
        else:
            won = self._ask(st[child], -1, 0, until)
            if won is None:
                return False
            ni[child, tree.PROVEN] = PROVEN_WIN if won <= -1 else PROVEN_DRAW
        tree.mark_root(ni, root, first, count, tree.ROOT_UNKNOWN)
        return True

    def warm_up(self, st: np.ndarray, ni: np.ndarray, root: int) -> None:
        """Compile (or load) what `verify` calls from Python, off any move's clock.

        `kernels.solve` and `tree.mark_root` run compiled inside `prove`, but
        a call from Python is another entry point: compiled on its first use
        it cost 1.6 s, a first move lost on time. One node's budget: nothing
        is searched and nothing marked (the root's children are unproven).
        """
        budget = np.array([0, 1], dtype=np.int64)
        kernels.solve(self.gid, self.cfg, st[root], self.table, budget, 0, 1)
        first, count = int(ni[root, tree.FIRST]), int(ni[root, tree.NCH])
        tree.mark_root(ni, root, first, count, tree.ROOT_UNKNOWN)

    def _ask(self, row: np.ndarray, low: int, high: int, until: float) -> int | None:
        """The kernel's answer for `row` in the window (`low`, `high`), in chunks until `until`."""
        budget = np.zeros(2, dtype=np.int64)
        while True:
            now = self.clock()
            left = until - now
            if left <= 0:
                return None
            budget[NODES] = 0
            budget[LIMIT] = max(1000, int(self.rate * min(CHUNK_SECONDS, left)))
            v = int(kernels.solve(self.gid, self.cfg, row, self.table, budget, low, high))
            self.nodes += int(budget[NODES])
            if v != UNSOLVED:
                return v

    def _run(self, st: np.ndarray, ni: np.ndarray, root: int) -> bool:
        return bool(
            tree.solve_root(self.gid, self.cfg, st, ni, self.table, self.budget, self.phase, root)
        )
