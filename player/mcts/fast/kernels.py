"""Dispatch from a game id to its kernel: the only place that lists the compiled games.

The core (`core.tree`, `core.exact`) never imports this module: the package
above it names it to `core.registry`, and the core reads it from there.

Why one dispatch instead of passing kernel functions to the search: numba
cannot cache a function that takes other jitted functions as arguments (nor
a closure over them), and a cold compile costs seconds. A branch on a
constant id is free next to a move generation, and everything caches on disk.
A new kernel is a module with the same five functions plus one branch per
function here.

Optional hooks (a kernel without them answers "none" and gets plain UCT):
`solve`, an exact search under a node budget (the kernels listed in
`SOLVERS`), used by the tree's `tree.solve_root`; `leaf`, a leaf evaluator
(the kernels listed in `EVALUATORS`), which `tree.run` asks instead of
playing a rollout when it is given leaf parameters: it answers an exact
winner (the tree proves the leaf) or a reward for the side to move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.connect4 import evaluation as connect4_eval
from player.mcts.fast.connect4 import kernel as connect4
from player.mcts.fast.connect4 import solve as connect4_solve
from player.mcts.fast.core.codes import LEAF_ROLLOUT, ONGOING, UNSOLVED
from player.mcts.fast.go import kernel as go
from player.mcts.fast.mnk import big as bigmnk
from player.mcts.fast.mnk import kernel as mnk
from player.mcts.fast.reversi import kernel as reversi
from player.mcts.fast.reversi import leaf as reversi_leaf
from player.mcts.fast.ultimate import kernel as ultimate

CONNECT4 = 0
MNK = 1
REVERSI = 2
ULTIMATE = 3
BIGMNK = 4
GO = 5


@njit(cache=True, nogil=True)
def legal(gid: int, cfg: np.ndarray, st: np.ndarray, out: np.ndarray) -> int:
    if gid == CONNECT4:
        return connect4.legal(cfg, st, out)
    if gid == MNK:
        return mnk.legal(cfg, st, out)
    if gid == REVERSI:
        return reversi.legal(cfg, st, out)
    if gid == BIGMNK:
        return bigmnk.legal(cfg, st, out)
    if gid == GO:
        return go.legal(cfg, st, out)
    return ultimate.legal(cfg, st, out)


@njit(cache=True, nogil=True)
def play(gid: int, cfg: np.ndarray, st: np.ndarray, move: int, dst: np.ndarray) -> None:
    if gid == CONNECT4:
        connect4.play(cfg, st, move, dst)
    elif gid == MNK:
        mnk.play(cfg, st, move, dst)
    elif gid == REVERSI:
        reversi.play(cfg, st, move, dst)
    elif gid == BIGMNK:
        bigmnk.play(cfg, st, move, dst)
    elif gid == GO:
        go.play(cfg, st, move, dst)
    else:
        ultimate.play(cfg, st, move, dst)


@njit(cache=True, nogil=True)
def to_move(gid: int, cfg: np.ndarray, st: np.ndarray) -> int:
    if gid == CONNECT4:
        return connect4.to_move(cfg, st)
    if gid == MNK:
        return mnk.to_move(cfg, st)
    if gid == REVERSI:
        return reversi.to_move(cfg, st)
    if gid == BIGMNK:
        return bigmnk.to_move(cfg, st)
    if gid == GO:
        return go.to_move(cfg, st)
    return ultimate.to_move(cfg, st)


@njit(cache=True, nogil=True)
def status(gid: int, cfg: np.ndarray, st: np.ndarray) -> int:
    if gid == CONNECT4:
        return connect4.status(cfg, st)
    if gid == MNK:
        return mnk.status(cfg, st)
    if gid == REVERSI:
        return reversi.status(cfg, st)
    if gid == BIGMNK:
        return bigmnk.status(cfg, st)
    if gid == GO:
        return go.status(cfg, st)
    return ultimate.status(cfg, st)


@njit(cache=True, nogil=True)
def rollout(gid: int, cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int) -> int:
    if gid == CONNECT4:
        return connect4.rollout(cfg, st, rng, policy)
    if gid == MNK:
        return mnk.rollout(cfg, st, rng, policy)
    if gid == REVERSI:
        return reversi.rollout(cfg, st, rng, policy)
    if gid == BIGMNK:
        return bigmnk.rollout(cfg, st, rng, policy)
    if gid == GO:
        return go.rollout(cfg, st, rng, policy)
    return ultimate.rollout(cfg, st, rng, policy)


@njit(cache=True, nogil=True)
def ordered(gid: int, cfg: np.ndarray) -> bool:
    """Whether the kernel's `legal` lists moves best first (then `tree` keeps the order)."""
    if gid == BIGMNK:
        return bigmnk.ordered(cfg)
    if gid == GO:
        return go.ordered(cfg)
    return False


# --- optional hooks -------------------------------------------------------------

#: the kernels whose `solve` is an exact search (the others answer UNSOLVED at once)
SOLVERS = frozenset({CONNECT4})


@njit(cache=True, nogil=True)
def solve(
    gid: int,
    cfg: np.ndarray,
    st: np.ndarray,
    table: np.ndarray,
    budget: np.ndarray,
    alpha: int = -1,
    beta: int = 1,
) -> int:
    """The value of `st` for the side to move (1 win, 0 draw, -1 loss) in a window, or UNSOLVED.

    `table` is a transposition table the kernel owns the format of
    (connect four: `connect4_solve.new_table`), `budget` an int64 pair (nodes searched so far,
    node limit): the search gives up, UNSOLVED, past the limit. The window
    (`alpha`, `beta`) is alpha-beta's: a result at or below `alpha` is an
    upper bound, at or above `beta` a lower bound, between them exact; the
    default (-1, 1) asks for the exact value.
    """
    if gid == CONNECT4:
        return connect4_solve.solve(cfg, st, table, budget, alpha, beta)
    return UNSOLVED


def new_table(gid: int, entries: int) -> np.ndarray:
    """A transposition table for `solve` of kernel `gid` (one of `SOLVERS`), of about `entries`
    int64 words, in the format the kernel owns."""
    if gid == CONNECT4:
        return connect4_solve.new_table(entries)
    raise ValueError(f"kernel {gid} has no exact search")


#: the kernels with a leaf evaluator (`leaf`; the others' leaves are always rolled out)
EVALUATORS = frozenset({REVERSI, CONNECT4})


@njit(cache=True, nogil=True)
def leaf(
    gid: int,
    cfg: np.ndarray,
    st: np.ndarray,
    params: np.ndarray,
    counts: np.ndarray,
    scratch: np.ndarray,
) -> tuple[int, int, float, float]:
    """What `tree.run` makes of the leaf `st` (ongoing): (kind, winner, reward, estimate).

    kind `codes.LEAF_ROLLOUT`: play a rollout; `codes.LEAF_EXACT`: `winner`
    (a seat or `codes.DRAW`) is exact, the tree proves the leaf;
    `codes.LEAF_REWARD`: back up `reward` (in [0, 1]) for the side to move;
    `estimate` is the evaluation's own part of it (without a rollout's
    result), the value implicit minimax backups use (`tree.run`'s `alpha`).
    `params` (float64), `counts` (int64) and `scratch` (int64 rows) are the
    evaluator's, in layouts the kernel owns (reversi: `reversi_leaf.params`,
    `reversi_endgame.new_stats`, `new_buffer`; connect four:
    `connect4_eval.leaf_params`, a generator state, a features row): two arrays, not views of one
    (a view per leaf costs reference counting, measurably).
    """
    if gid == REVERSI:
        return reversi_leaf.evaluate(cfg, st, params, counts, scratch)
    if gid == CONNECT4:
        return connect4_eval.evaluate(cfg, st, params, counts, scratch)
    return LEAF_ROLLOUT, ONGOING, -1.0, -1.0
