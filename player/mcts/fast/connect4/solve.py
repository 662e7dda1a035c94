"""Connect four's exact search for the compiled tree: weak solving (win/draw/loss) under a node budget.

Negamax with alpha-beta on the window [-1, 1] (John Tromp's bitboard and
Pascal Pons's "Solving Connect 4" method): only moves that do not hand the
opponent an immediate win are searched, center columns first, refined by the
number of winning cells a move creates; a transposition table keeps a lower
and an upper bound per position (exact keys: the position plus the mask plus
the bottom row is unique, and never 0). Before a node's moves are searched,
the table is asked of the positions they lead to (an enhanced transposition
cutoff, from chess programs): one whose stored upper bound, for its side to
move, is low enough decides the node at once. On the accuracy benchmark's
1,340 middle-game roots of plies 10-14 (seeds 1-11), the player's root
search (`exact.RootSolver.prove`) took 573 M nodes with it against 762 M
without, fewer on 171 of the 172 proofs of over a million (the median
0.74 times) and more on none; its probes cost about a sixth of the rate,
and within 0.1 s a root it proved 1,212 of them against 1,200 (both cores
busy). The search stops when ``budget[NODES]`` reaches ``budget[LIMIT]``
and answers `codes.UNSOLVED`; the table it filled stays valid, so the next call
(a bigger budget, the next move) resumes from it.

The table is the caller's int64 array (`new_table`) of a power of two `B`
of buckets of two slots, one word each. A key is first mixed, ``h = key *
C`` (an odd 64-bit constant, wrapping) then ``h ^= h >> 32`` (logical), a
mix with an inverse, so ``h`` is as unique as the key; it goes in bucket
``h % B`` (its low bits), and a slot keeps ``h >> 10`` (54 bits; with the
bucket, `B` of at least 2^10, that is the whole of ``h``: no false hit)
beside the bounds, packed as ``(low + 1) * 3 + (up + 1) + 1`` in the low
four bits, and the work the entry cost (log2 of the nodes searched under
it) in the next five; a 0 word is empty. The mix measured better than
Pascal Pons's ``key % p`` (a prime number of buckets), which this table
used before (why, we did not find out): on the accuracy
benchmark's 1,340 middle-game roots of plies 10-14 (seeds 1-11, 2^18
slots), ``solve`` took 13% more nodes with it (962 M against 851 M; more on
each of the 204 proofs of over a million nodes, the median 9%), and the
player's root search (`exact.RootSolver.prove`) 10% more (793 M against
720 M; more on 173 of its 175 proofs of over a million, the others even).

The bucket's first slot keeps the entry that cost the most, the second
the latest (the two-tier replacement of chess programs): a proof of
millions of nodes no longer loses its costly entries near the root to the
many cheap ones below. Exact solves of the middle-game positions at plies 10-14 of
the accuracy benchmark's seeds 2 and 3 (245 positions, 2^18 slots either
way) took 0.85 M nodes on average against 1.13 M with one slot a key, at
the same rate (the longest proofs gain most); the root's own search
(`exact.RootSolver.prove`) on plies 10-16 of seeds 2, 3, 6 and 7 (587
positions), 5.5% fewer nodes in all and 9.5% fewer on the 45 proofs of
more than a million. The bucket's two words share a cache line: the search
is bound by memory latency more than by arithmetic, and a table bigger than
the caches costs more time than the re-searches a smaller one causes
(`exact.MAX_ENTRIES`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.connect4.kernel import (
    BOARD_AT,
    BOTTOM_AT,
    CELLS_AT,
    HEIGHT_AT,
    PARITY_AT,
    WIDTH_AT,
    has_four,
    popcount,
    winning_cells,
)
from player.mcts.fast.core.codes import BUDGET_LIMIT, BUDGET_NODES, UNSOLVED

NODES, LIMIT = BUDGET_NODES, BUDGET_LIMIT


#: the low bits of a slot: the bounds, then the work under the entry (log2 of its nodes)
_BOUND_BITS = 4
_WORK_BITS = 5
_LOW_BITS = _BOUND_BITS + _WORK_BITS
_MOST_WORK = (1 << _WORK_BITS) - 1
#: the bits of a mixed key a slot does not keep (its bucket has them: at least as many buckets)
_DROPPED = 10
#: the fewest buckets: the kept part of a mixed key (64 - `_DROPPED` bits) and the low bits fit
#: in one non-negative word
MIN_BUCKETS = 1 << _DROPPED
#: the key mix's multiplier (odd: the product has an inverse modulo 2^64)
_MIX = -7046029254386353131  # 0x9E3779B97F4A7C15 as int64


def new_table(entries: int) -> np.ndarray:
    """An empty table of at most `entries` slots (at least `MIN_BUCKETS` buckets of two): a
    power of two of buckets."""
    buckets = MIN_BUCKETS
    while buckets * 4 <= entries:
        buckets *= 2
    return np.zeros(2 * buckets, dtype=np.int64)


@njit(cache=True, nogil=True)
def _locate(table: np.ndarray, key: int) -> tuple[int, int]:
    """(bucket, quotient) of `key`: the bucket's first slot, and what a slot keeps of the key
    (of its mix: the module's docstring)."""
    h = key * _MIX  # wraps: numba's fixed-width integers
    h ^= (h >> 32) & 0xFFFFFFFF
    return (h & ((table.shape[0] >> 1) - 1)) * 2, (h >> _DROPPED) & ((1 << (64 - _DROPPED)) - 1)


@njit(cache=True, nogil=True)
def _find(table: np.ndarray, bucket: int, quotient: int) -> int:
    """The packed bounds of the key (`_locate`) in its bucket; -1 when absent."""
    for slot in range(bucket, bucket + 2):
        word = table[slot]
        if word != 0 and word >> _LOW_BITS == quotient:
            return int((word & 15) - 1)
    return -1


@njit(cache=True, nogil=True)
def _put(table: np.ndarray, bucket: int, quotient: int, packed: int, nodes: int) -> None:
    """Keep the key's (`_locate`) bounds, which `nodes` nodes of search found, in its bucket.

    The first slot holds the entry that cost the most; a costlier one (or
    the same key) takes it and moves the one it displaces to the second slot,
    a cheaper one takes the second slot.
    """
    work = 0
    while nodes > 1 and work < _MOST_WORK:
        nodes >>= 1
        work += 1
    word = (quotient << _LOW_BITS) | (work << _BOUND_BITS) | (packed + 1)
    first = table[bucket]
    if first != 0 and first >> _LOW_BITS == quotient:
        table[bucket] = word
    elif work >= (first >> _BOUND_BITS) & _MOST_WORK:
        table[bucket + 1] = first  # the same key there, if any, is older than `word`
        table[bucket] = word
    else:
        table[bucket + 1] = word


#: the deepest search (a board of at most 62 cells, plus the root)
_FRAMES = 64


@njit(cache=True, nogil=True)
def _enter(
    cfg: np.ndarray,
    me: int,
    mask: int,
    ply: int,
    alpha: int,
    beta: int,
    table: np.ndarray,
    cand: np.ndarray,
    score: np.ndarray,
) -> tuple[int, int, int, int, int, int]:
    """Open a node: (value, alpha, beta, candidates, bucket, quotient); 2 = "search the children".

    The side to move cannot win at once. Candidates (`cand`, best first) are
    the moves that do not hand the opponent an immediate win; `score` is
    scratch space beside it (no allocation per node).
    """
    w, h, bottom, board, cells = (
        cfg[WIDTH_AT],
        cfg[HEIGHT_AT],
        cfg[BOTTOM_AT],
        cfg[BOARD_AT],
        cfg[CELLS_AT],
    )
    you = me ^ mask
    possible = (mask + bottom) & board
    theirs = winning_cells(you, mask, h, board)
    forced = possible & theirs
    if forced:
        if forced & (forced - 1):
            return -1, alpha, beta, 0, -1, 0
        possible = forced
    nxt = possible & ~(theirs >> 1)
    if nxt == 0:
        return -1, alpha, beta, 0, -1, 0
    if ply >= cells - 2:
        return 0, alpha, beta, 0, -1, 0
    parity = cfg[PARITY_AT]
    if ((mask + bottom) & ~parity) == 0:  # claimeven: every column has an even number of empties
        empty = board ^ mask
        if not has_four(me | (empty & parity), h):  # answered in the same column, we never win
            if has_four(you | (empty & ~parity), h):
                return -1, alpha, beta, 0, -1, 0
            if alpha >= 0:
                return 0, alpha, beta, 0, -1, 0
            beta = 0
    bucket, quotient = _locate(table, me + mask + cfg[BOTTOM_AT])
    packed = _find(table, bucket, quotient)
    if packed >= 0:
        lo, up = packed // 3 - 1, packed % 3 - 1
        if lo >= beta:
            return lo, alpha, beta, 0, -1, 0
        if up <= alpha:
            return up, alpha, beta, 0, -1, 0
        alpha = max(alpha, lo)
        beta = min(beta, up)
        if alpha >= beta:
            return alpha, alpha, beta, 0, -1, 0
    n = 0
    stride = h + 1
    col = (1 << h) - 1
    for i in range(w):
        c = w // 2 + ((i + 1) // 2 if i % 2 else -(i // 2))  # center first
        bit = nxt & (col << (c * stride))
        if bit == 0:
            continue
        s = popcount(winning_cells(me | bit, mask | bit, h, board))
        j = n
        n += 1
        while j > 0 and score[j - 1] < s:
            cand[j] = cand[j - 1]
            score[j] = score[j - 1]
            j -= 1
        cand[j] = bit
        score[j] = s
    for i in range(n):  # enhanced transposition cutoff: a child the table already bounds
        child, child_quotient = _locate(table, you + (mask | cand[i]) + bottom)
        packed = _find(table, child, child_quotient)
        if packed >= 0 and 1 - packed % 3 >= beta:  # the child's upper bound, negated
            return 1 - packed % 3, alpha, beta, 0, -1, 0
    return 2, alpha, beta, n, bucket, quotient


@njit(cache=True, nogil=True)
def _negamax(
    cfg: np.ndarray,
    me: int,
    mask: int,
    ply: int,
    table: np.ndarray,
    budget: np.ndarray,
    alpha: int,
    beta: int,
) -> int:
    """The value (-1, 0, 1) for the side to move, who cannot win at once, in the window; or UNSOLVED.

    Fail-soft alpha-beta on the window (`alpha`, `beta`) with an explicit stack
    (numba's cache cannot hold recursive functions reliably): one row per ply
    of the line. A result at or below `alpha` is an upper bound, at or above
    `beta` a lower bound, between them exact.
    """
    fme = np.empty(_FRAMES, dtype=np.int64)
    fmask = np.empty(_FRAMES, dtype=np.int64)
    falpha = np.empty(_FRAMES, dtype=np.int64)
    fbeta = np.empty(_FRAMES, dtype=np.int64)
    falpha0 = np.empty(_FRAMES, dtype=np.int64)
    fbest = np.empty(_FRAMES, dtype=np.int64)
    fstart = np.empty(_FRAMES, dtype=np.int64)  # the node count when the frame opened
    fn = np.empty(_FRAMES, dtype=np.int64)
    fnext = np.empty(_FRAMES, dtype=np.int64)
    fbucket = np.empty(_FRAMES, dtype=np.int64)
    fquotient = np.empty(_FRAMES, dtype=np.int64)
    cand = np.empty((_FRAMES, 32), dtype=np.int64)
    score = np.empty(32, dtype=np.int64)
    d = 0
    fme[0], fmask[0], falpha[0], fbeta[0] = me, mask, alpha, beta
    entering = True
    value = 0
    while True:
        if entering:
            budget[NODES] += 1
            if budget[NODES] > budget[LIMIT]:
                return UNSOLVED
            value, a, b, n, bucket, quotient = _enter(
                cfg, fme[d], fmask[d], ply + d, falpha[d], fbeta[d], table, cand[d], score
            )
            if value == 2:  # search the children
                fstart[d] = budget[NODES]
                falpha[d], fbeta[d], falpha0[d] = a, b, a
                fbest[d], fn[d], fnext[d] = -1, n, 0
                fbucket[d], fquotient[d] = bucket, quotient
            else:
                entering = False  # `value` goes back to the parent
                continue
        else:
            d -= 1
            if d < 0:
                return value
            v = -value
            if v > fbest[d]:
                fbest[d] = v
            if v > falpha[d]:
                falpha[d] = v
            if falpha[d] >= fbeta[d] or fnext[d] == fn[d]:
                best = fbest[d]
                bucket, quotient = fbucket[d], fquotient[d]
                lo, up = -1, 1
                packed = _find(table, bucket, quotient)  # located when the frame opened
                if packed >= 0:
                    lo, up = packed // 3 - 1, packed % 3 - 1
                if best <= falpha0[d]:
                    up = min(up, best)
                elif best >= fbeta[d]:
                    lo = max(lo, best)
                else:
                    lo = best
                    up = best
                _put(table, bucket, quotient, (lo + 1) * 3 + (up + 1), budget[NODES] - fstart[d])
                value = best
                continue  # return `best` to the parent
        # descend into the next child of frame d
        bit = cand[d, fnext[d]]
        fnext[d] += 1
        fme[d + 1] = fme[d] ^ fmask[d]
        fmask[d + 1] = fmask[d] | bit
        falpha[d + 1] = -fbeta[d]
        fbeta[d + 1] = -falpha[d]
        d += 1
        entering = True


@njit(cache=True, nogil=True)
def solve(
    cfg: np.ndarray,
    st: np.ndarray,
    table: np.ndarray,
    budget: np.ndarray,
    alpha: int = -1,
    beta: int = 1,
) -> int:
    """The value of `st` for the side to move (1 win, 0 draw, -1 loss) in a window, or UNSOLVED.

    The window (`alpha`, `beta`), -1 <= alpha < beta <= 1, as in alpha-beta:
    a result at or below `alpha` is an upper bound, at or above `beta` a lower
    bound (the default window gives the exact value). A null window asks one
    question at a fraction of the cost: (-1, 0) "is it lost?" (-1: yes; 0 or
    more: it is not), (0, 1) "is it won?". Over `budget[LIMIT] -
    budget[NODES]` more nodes at most (`budget[NODES]` counts on). A finished
    game answers exactly from its status.
    """
    status = st[3]
    mover = st[2] & 1
    if status >= 0:
        return 0 if status == 2 else (1 if status == mover else -1)
    me = st[mover]
    mask = st[0] | st[1]
    h, bottom, board = cfg[HEIGHT_AT], cfg[BOTTOM_AT], cfg[BOARD_AT]
    if winning_cells(me, mask, h, board) & ((mask + bottom) & board):
        return 1
    return _negamax(cfg, me, mask, st[2], table, budget, alpha, beta)
