"""Reversi's leaf evaluator (numba): what `tree.run` does with a new leaf instead of a rollout.

`kernels.leaf` calls `evaluate` for the reversi kernel when the search was
given leaf parameters (`params`; `reversi_plan` makes them from the
``reversi_*`` options):

- a leaf with at most ``SOLVE_EMPTIES`` empty squares is solved exactly
  (`reversi_endgame.solve`, null window: win/draw/loss) and answered
  `LEAF_EXACT` with its winner: the tree proves it, so the result
  propagates as MCTS-Solver proofs (a perfect endgame in the tree);
- any other leaf is scored by a depth-``DEPTH`` alpha-beta search on
  `reversi_eval.evaluate` (0: the static evaluation) and answered
  `LEAF_REWARD` with ``1 / (1 + exp(-score / SCALE))`` for the side to move
  there (an MCTS-minimax hybrid: minimax at the leaves, averaging above).

Both searches count nodes in ``stats`` (`reversi_endgame.new_stats`) and
work in ``buf`` (`reversi_endgame.new_buffer`), `tree.run`'s ``counts`` and
``scratch``. This module does not import `tree` (`tree` imports it through
`kernels`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from player.mcts.fast.core.codes import DRAW, LEAF_EXACT, LEAF_REWARD, ONGOING
from player.mcts.fast.reversi.bits import popcount
from player.mcts.fast.reversi.endgame import ABORTED, INF, LIMIT, NODES, search, solve

#: the parameters' layout (`params`)
DEPTH, SOLVE_EMPTIES, SCALE = range(3)
#: node budget of one leaf solve (a leaf of ``SOLVE_EMPTIES`` empties needs far fewer)
LEAF_SOLVE_NODES = 1 << 40


def params(depth: int, solve_empties: int, scale: float) -> np.ndarray:
    """The leaf parameters `tree.run` passes on to `evaluate` (float64, `DEPTH` … `SCALE`)."""
    return np.array([depth, solve_empties, scale], dtype=np.float64)


@njit(cache=True, nogil=True)
def sides(st: np.ndarray) -> tuple[np.uint64, np.uint64, int]:
    """(discs of the side to move, the other's, the side to move) of a state row."""
    side = int(st[2])
    black, white = np.uint64(st[0]), np.uint64(st[1])
    if side == 0:
        return black, white, side
    return white, black, side


#: inlined (numba IR) into `kernels.leaf`: one call fewer per leaf, measurably faster
@njit(cache=True, nogil=True, inline="always")
def evaluate(
    cfg: np.ndarray, st: np.ndarray, params: np.ndarray, stats: np.ndarray, buf: np.ndarray
) -> tuple[int, int, float, float]:
    """(`LEAF_EXACT`, winner, 0, 0) or (`LEAF_REWARD`, `ONGOING`, reward, reward): the reward
    for the side to move, the evaluation's alone (no rollout in it)."""
    me, opp, side = sides(st)
    stats[NODES] = 0
    stats[LIMIT] = LEAF_SOLVE_NODES
    stats[ABORTED] = 0
    if popcount(~(me | opp)) <= int(params[SOLVE_EMPTIES]):
        v = solve(me, opp, -1, 1, 0, stats, buf)
        return LEAF_EXACT, DRAW if v == 0 else side if v > 0 else 1 - side, 0.0, 0.0
    score = search(me, opp, int(params[DEPTH]), -INF, INF, 0, stats, buf)
    reward = 1.0 / (1.0 + math.exp(-score / params[SCALE]))
    return LEAF_REWARD, ONGOING, reward, reward
