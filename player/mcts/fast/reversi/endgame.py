"""Alpha-beta searches of the reversi kernel (numba): the exact endgame solver and a
depth-limited search on `reversi_eval.evaluate`.

`solve` is a negamax alpha-beta on the final disc difference (plain, empty
squares not counted, as `games.reversi` scores), with fastest-first move
ordering (fewest replies for the opponent, corners first) above
`ORDER_EMPTIES` empties and square order below. A null window around 0
(``alpha=-1, beta=1``) answers win/draw/loss much faster than the exact
margin. `search` is the same negamax cut at a depth, scoring leaves with the
evaluation (finished games with `reversi_eval.final_score`).

Both count nodes in ``stats`` (`NODES`) and give up once `LIMIT` is passed
(`ABORTED` set, the returned value meaningless): the caller's clock bounds
them through the node budget. ``buf`` is scratch, one row per ply
(`new_buffer`), so no recursion level allocates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.reversi.bits import U1, flips, popcount, square_of
from player.mcts.fast.reversi.evaluation import evaluate, final_score
from player.mcts.fast.reversi.kernel import mobility

NODES, LIMIT, ABORTED = 0, 1, 2
ORDER_EMPTIES = 6
MAX_PLY = 72
INF = 1.0e9
_CORNERS = np.uint64(0x8100000000000081)


def new_buffer() -> np.ndarray:
    """Scratch rows for `solve`/`search`: per ply, up to 32 moves and their keys."""
    return np.empty((MAX_PLY, 64), dtype=np.int64)


def new_stats(limit: int) -> np.ndarray:
    """A node counter with budget `limit`."""
    stats = np.zeros(3, dtype=np.int64)
    stats[LIMIT] = limit
    return stats


@njit(cache=True, nogil=True)
def _order(me: np.uint64, opp: np.uint64, moves: np.uint64, row: np.ndarray) -> int:
    """Write the moves into ``row[:n]``, fastest first (fewest opponent replies, corners first)."""
    n = 0
    while moves:
        bit = moves & (~moves + U1)
        moves ^= bit
        sq = square_of(bit)
        f = flips(sq, me, opp)
        key = popcount(mobility(opp ^ f, me | bit | f)) * 4
        if bit & _CORNERS:
            key -= 8
        k = n
        while k > 0 and row[32 + k - 1] > key:
            row[k] = row[k - 1]
            row[32 + k] = row[32 + k - 1]
            k -= 1
        row[k] = sq
        row[32 + k] = key
        n += 1
    return n


@njit(cache=True, nogil=True)
def _plain(moves: np.uint64, row: np.ndarray) -> int:
    n = 0
    while moves:
        bit = moves & (~moves + U1)
        moves ^= bit
        row[n] = square_of(bit)
        n += 1
    return n


#: explicit signatures: numba cannot reload a cached self-recursive function typed by its
#: call sites (an unresolved-symbol abort when a literal argument was specialised)
_SOLVE_SIG = "int64(uint64, uint64, int64, int64, int64, int64[::1], int64[:, ::1])"
_SEARCH_SIG = "float64(uint64, uint64, int64, float64, float64, int64, int64[::1], int64[:, ::1])"


@njit(_SOLVE_SIG, cache=True, nogil=True)
def solve(
    me: np.uint64, opp: np.uint64, alpha: int, beta: int, ply: int, stats: np.ndarray, buf: np.ndarray,
) -> int:  # fmt: skip
    """The exact final disc difference for `me` (to move), within (alpha, beta) fail-hard."""
    stats[NODES] += 1
    if stats[NODES] > stats[LIMIT]:
        stats[ABORTED] = 1
        return 0
    moves = mobility(me, opp)
    if not moves:
        if not mobility(opp, me):
            return popcount(me) - popcount(opp)
        return -solve(opp, me, -beta, -alpha, ply + 1, stats, buf)
    row = buf[ply]
    if popcount(~(me | opp)) > ORDER_EMPTIES:
        n = _order(me, opp, moves, row)
    else:
        n = _plain(moves, row)
    for i in range(n):
        sq = row[i]
        f = flips(sq, me, opp)
        v = -solve(opp ^ f, me | (U1 << np.uint64(sq)) | f, -beta, -alpha, ply + 1, stats, buf)
        if stats[ABORTED]:
            return 0
        if v > alpha:
            alpha = v
            if alpha >= beta:
                return alpha
    return alpha


@njit(_SEARCH_SIG, cache=True, nogil=True)
def search(
    me: np.uint64, opp: np.uint64, depth: int, alpha: float, beta: float,
    ply: int, stats: np.ndarray, buf: np.ndarray,
) -> float:  # fmt: skip
    """Depth-`depth` negamax alpha-beta on `evaluate` for `me` (to move), fail-hard."""
    stats[NODES] += 1
    if stats[NODES] > stats[LIMIT]:
        stats[ABORTED] = 1
        return 0.0
    if depth <= 0:
        return evaluate(me, opp)
    moves = mobility(me, opp)
    if not moves:
        if not mobility(opp, me):
            return final_score(me, opp)
        return -search(opp, me, depth, -beta, -alpha, ply + 1, stats, buf)
    row = buf[ply]
    n = _order(me, opp, moves, row) if depth >= 2 else _plain(moves, row)
    for i in range(n):
        sq = row[i]
        f = flips(sq, me, opp)
        v = -search(
            opp ^ f, me | (U1 << np.uint64(sq)) | f, depth - 1, -beta, -alpha, ply + 1, stats, buf
        )
        if stats[ABORTED]:
            return 0.0
        if v > alpha:
            alpha = v
            if alpha >= beta:
                return alpha
    return alpha
