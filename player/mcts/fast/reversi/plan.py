"""Reversi's search knowledge for `FastSearch`: evaluated leaves and exact endgames, by option.

`FastSearch` asks `plan_for` once; for kernels other than reversi (or with
every reversi option off) it gets None and runs plain UCT (`tree.run`
without leaf parameters). With evaluated leaves it runs the same `tree.run`
with the plan's `ReversiPlan.params`, stats and buffer: `kernels.leaf` then asks
`reversi_leaf.evaluate` at every leaf instead of playing a rollout.
Options (the ``mcts`` agent's ``reversi_*``, `player.mcts.options`):

- ``reversi_leaf``: ``eval`` scores leaves by alpha-beta on the evaluation
  (`reversi_leaf`), ``rollout`` keeps random rollouts;
- ``reversi_depth``: that alpha-beta's depth (0: the static evaluation);
- ``reversi_solve``: leaves with at most this many empty squares are solved
  exactly and proven (0: never);
- ``reversi_endgame``: from this many empty squares on, the root's moves
  are solved exactly first, within half of the remaining time (0: never);
  a proven win is played at once, proven losses are never chosen;
- ``reversi_c``: the UCB1 constant with evaluated leaves (their rewards are
  far less noisy than rollouts').

`solve_root_children` proves the root's children within a node budget,
fastest-first, stopping at the first win: the perfect endgame search whose
result decides the move (the next `tree.run` picks the proven win at once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numba import njit

from player.mcts.fast import kernels
from player.mcts.fast.core import tree
from player.mcts.fast.core.codes import DRAW, PROVEN_WIN
from player.mcts.fast.core.tree import FIRST, MOVER, NCH, PROVEN, ROOT, proof
from player.mcts.fast.reversi import leaf as reversi_leaf
from player.mcts.fast.reversi.bits import popcount
from player.mcts.fast.reversi.endgame import ABORTED, NODES, new_buffer, new_stats, solve
from player.mcts.fast.reversi.kernel import mobility
from player.mcts.fast.reversi.leaf import sides
from player.mcts.fast.reversi.options import ReversiOptions

#: the evaluation's logistic scale: a score of `SCALE` disc units is a 73% win chance
SCALE = 20.0
#: share of the time left that the root's exact solve may use
SOLVE_SHARE = 0.5
#: solver speed assumed until measured (nodes per second)
FIRST_RATE = 2.0e6
#: the root solve's node budget in a search without a clock (about a second)
NO_CLOCK_NODES = 2_000_000


@dataclass
class ReversiPlan:
    """The reversi options of one `FastSearch`, its solvers' scratch and measured solver speed."""

    leaf: str
    depth: int
    solve_empties: int
    endgame: int
    c: float
    #: implicit minimax backups' weight in selection (`tree.run`'s ``alpha``; 0 = off)
    minimax: float = 0.0
    rate: float = FIRST_RATE
    #: the leaf searches' node counter and the work space of every solve and search
    stats: np.ndarray = field(default_factory=lambda: new_stats(0))
    buf: np.ndarray = field(default_factory=new_buffer)

    @property
    def evaluated(self) -> bool:
        """Whether leaves are evaluated (`reversi_leaf`) instead of rolled out."""
        return self.leaf == "eval"

    #: the leaf parameters `tree.run` passes to `reversi_leaf.evaluate`
    params: np.ndarray = field(init=False)

    def __post_init__(self) -> None:
        self.params = reversi_leaf.params(self.depth, self.solve_empties, SCALE)

    @property
    def owned_bytes(self) -> int:
        """The memory this plan holds of its own: its leaf parameters (counted in the cap)."""
        return int(self.params.nbytes)

    def seed(self, rng: np.ndarray) -> None:
        """Nothing random here: reversi's leaf searches are deterministic."""

    def fork(self, rng: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Another thread's leaf scratch (`FastSearch.run_batch`): its own counter and work space."""
        return new_stats(0), new_buffer()

    def prepare(self, engine: Any, rng: np.ndarray, now: float, deadline: float) -> None:
        """Solve the root's moves exactly if few squares are empty and time allows."""
        if self.endgame <= 0 or not engine.solver:
            return
        root = int(engine.meta[tree.ROOT])
        row = engine.st[root]
        filled = (int(row[0]) | int(row[1])) & ((1 << 64) - 1)
        if 64 - filled.bit_count() > self.endgame or engine.ni[root, tree.PROVEN] != 0:
            return
        if engine.ni[root, tree.NCH] == 0:  # expand the root (one simulation)
            engine.run_batch(rng, 1)
        if deadline == float("inf"):  # an iteration cap only: a bounded solve all the same
            nodes = NO_CLOCK_NODES
        else:
            nodes = int(self.rate * (deadline - now) * SOLVE_SHARE)
        stats = new_stats(max(1000, nodes))
        start = engine.clock()
        solve_root_children(engine.st, engine.ni, engine.meta, stats, self.buf)
        spent = engine.clock() - start
        if spent > 0.01 and stats[NODES] > 1000:
            self.rate = float(stats[NODES]) / spent


@njit(cache=True, nogil=True)
def solve_root_children(
    st: np.ndarray, ni: np.ndarray, meta: np.ndarray, stats: np.ndarray, buf: np.ndarray
) -> bool:
    """Prove the root's children exactly (win/draw/loss), fastest first, within ``stats``' budget.

    Stops at the first child that wins for the side to move at the root.
    Returns True when every child was either proven or skipped after a win,
    False when the budget ran out first (the proofs found so far are kept).
    """
    root = meta[ROOT]
    first, n = ni[root, FIRST], ni[root, NCH]
    keys = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    for i in range(n):
        me, opp, _ = sides(st[first + i])
        keys[i] = popcount(mobility(me, opp))
        order[i] = first + i
    for i in range(1, n):  # fewest replies first
        k = i
        while k > 0 and keys[order[k - 1] - first] > keys[order[k] - first]:
            order[k - 1], order[k] = order[k], order[k - 1]
            k -= 1
    for i in range(n):
        j = order[i]
        p = ni[j, PROVEN]
        if p == 0:
            me, opp, side = sides(st[j])
            v = solve(me, opp, -1, 1, 0, stats, buf)
            if stats[ABORTED]:
                return False
            winner = DRAW if v == 0 else side if v > 0 else 1 - side
            p = proof(winner, ni[j, MOVER])
            ni[j, PROVEN] = p
        if p == PROVEN_WIN:
            return True
    return True


def plan_for(adapter: Any, options: ReversiOptions) -> ReversiPlan | None:
    """The plan of a reversi adapter with its options, else None (plain UCT)."""
    if adapter.gid != kernels.REVERSI:
        return None
    plan = ReversiPlan(
        leaf=options.reversi_leaf,
        depth=int(options.reversi_depth),
        solve_empties=int(options.reversi_solve),
        endgame=int(options.reversi_endgame),
        c=float(options.reversi_c),
        minimax=float(options.reversi_minimax),
    )
    if not plan.evaluated and plan.endgame <= 0:
        return None
    return plan


def warm_up_endgame(search_class: Any, adapter: Any) -> None:
    """Compile the endgame paths (root and leaf solves, ordered searches) on a late position.

    The usual warm-up searches the opening only, where no solve runs; a
    compilation on a move's clock would forfeit the game. `adapter` is reversi's (8 x 8).
    """
    from games.reversi import Reversi
    from player.agent import SearchLimit
    from player.mcts.options import SearchOptions

    game = Reversi()
    state = game.initial_state()
    while 64 - (state[0] | state[1]).bit_count() > 12:  # first legal move each turn
        state = game.apply(state, game.legal_moves(state)[0])
    search = search_class(
        game, adapter, SearchOptions(memory=1), ReversiOptions(reversi_depth=2), seed=0
    )
    search.search(state, SearchLimit(iterations=50))
