"""The reversi search loop: UCT over the compiled tree with evaluated leaves and exact endgames.

Same tree, selection, expansion and MCTS-Solver proofs as `tree.run`
(its `_expand`, `_select`, `_prove`), with two changes at the leaf, where
`tree.run` plays a random rollout:

- a leaf with at most ``solve_empties`` empty squares is solved exactly
  (`reversi_endgame.solve`, null window: win/draw/loss) and proven, so the
  result propagates as MCTS-Solver proofs (a perfect endgame in the tree);
- any other leaf is scored by a depth-``depth`` alpha-beta search on
  `reversi_eval.evaluate` (0: the static evaluation) and backed up as the
  fractional reward ``1 / (1 + exp(-score / scale))`` for the side to move
  there (an MCTS-minimax hybrid: minimax at the leaves, averaging above).

`solve_root_children` proves the root's children within a node budget,
fastest-first, stopping at the first win: the perfect endgame search whose
result decides the move (the next `run` picks the proven win at once).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from player.mcts.fast import kernels
from player.mcts.fast.codes import DRAW, ONGOING, PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN
from player.mcts.fast.reversi import mobility
from player.mcts.fast.reversi_bits import popcount
from player.mcts.fast.reversi_endgame import ABORTED, INF, LIMIT, NODES, search, solve
from player.mcts.fast.tree import (
    FIRST,
    MAX_DEPTH,
    MAX_MOVES,
    MOVER,
    NCH,
    PROVEN,
    ROOT,
    VIS,
    _expand,
    _prove,
    _select,
)

#: node budget of one leaf solve (a leaf of `solve_empties` empties needs far fewer)
LEAF_SOLVE_NODES = 1 << 40


@njit(cache=True, nogil=True)
def _sides(st: np.ndarray) -> tuple[np.uint64, np.uint64, int]:
    """(discs of the side to move, the other's, the side to move) of a state row."""
    side = int(st[2])
    black, white = np.uint64(st[0]), np.uint64(st[1])
    if side == 0:
        return black, white, side
    return white, black, side


@njit(cache=True, nogil=True)
def _proof(winner: int, mover: int) -> int:
    if winner == DRAW:
        return PROVEN_DRAW
    return PROVEN_WIN if winner == mover else PROVEN_LOSS


@njit(cache=True, nogil=True)
def run(
    gid: int, cfg: np.ndarray, st: np.ndarray, ni: np.ndarray, wsum: np.ndarray,
    meta: np.ndarray, rng: np.ndarray, iterations: int, c: float, solver: bool,
    depth_limit: int, solve_empties: int, scale: float, stats: np.ndarray, buf: np.ndarray,
) -> tuple[int, int]:  # fmt: skip
    """Run up to `iterations` simulations; return (done, max depth)."""
    root = meta[ROOT]
    moves = np.empty(MAX_MOVES, dtype=np.int64)
    path = np.empty(MAX_DEPTH, dtype=np.int64)
    max_depth = 0
    done = 0
    while done < iterations and ni[root, PROVEN] == 0:
        done += 1
        node = root
        depth = 0
        path[0] = root
        winner = ONGOING
        proven = False
        reward = -1.0  # the leaf's value for `side` when evaluated, else the winner counts
        side = 0
        while True:
            p = ni[node, PROVEN]
            if p != 0:
                mover = ni[node, MOVER]
                winner = DRAW if p == PROVEN_DRAW else mover if p == PROVEN_WIN else 1 - mover
                proven = True
                break
            if ni[node, NCH] == 0:
                s = kernels.status(gid, cfg, st[node])
                if s != ONGOING:
                    winner = s
                    break
                if ni[node, VIS] > 0 or node == root:
                    child = _expand(gid, cfg, st, ni, wsum, meta, node, rng, moves)
                    if child >= 0 and depth + 1 < MAX_DEPTH:
                        node = child
                        depth += 1
                        path[depth] = node
                        if ni[node, PROVEN] != 0:
                            continue
                me, opp, side = _sides(st[node])
                if popcount(~(me | opp)) <= solve_empties:
                    stats[NODES] = 0
                    stats[LIMIT] = LEAF_SOLVE_NODES
                    stats[ABORTED] = 0
                    v = solve(me, opp, -1, 1, 0, stats, buf)
                    winner = DRAW if v == 0 else side if v > 0 else 1 - side
                    if depth > 0:
                        ni[node, PROVEN] = _proof(winner, ni[node, MOVER])
                        proven = True
                else:
                    stats[NODES] = 0
                    stats[LIMIT] = LEAF_SOLVE_NODES
                    stats[ABORTED] = 0
                    score = search(me, opp, depth_limit, -INF, INF, 0, stats, buf)
                    reward = 1.0 / (1.0 + math.exp(-score / scale))
                break
            node = _select(ni, wsum, node, c)
            depth += 1
            path[depth] = node
        if depth > max_depth:
            max_depth = depth
        for k in range(depth + 1):
            nd = path[k]
            ni[nd, VIS] += 1
            if reward >= 0.0:
                wsum[nd] += reward if ni[nd, MOVER] == side else 1.0 - reward
            elif winner == DRAW:
                wsum[nd] += 0.5
            elif winner == ni[nd, MOVER]:
                wsum[nd] += 1.0
        if proven and solver and depth > 0 and _prove(ni, path, depth):
            break
    return done, max_depth


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
        me, opp, _ = _sides(st[first + i])
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
            me, opp, side = _sides(st[j])
            v = solve(me, opp, -1, 1, 0, stats, buf)
            if stats[ABORTED]:
                return False
            winner = DRAW if v == 0 else side if v > 0 else 1 - side
            p = _proof(winner, ni[j, MOVER])
            ni[j, PROVEN] = p
        if p == PROVEN_WIN:
            return True
    return True
