"""Threats in m,n,k games with k >= 5 (gomoku): window scan, VCF search, candidates, playouts.

Why windows: every way to make k in a row is a k-long window of cells on one
line. A window holding stones of one side only is alive for that side, and
its count of stones says what a stone on one of its empty cells makes:

- ``k-1`` stones: the empty cell wins at once (a *winning cell*);
- ``k-2`` stones: a stone on one empty cell makes a *four*, whose other empty
  cell becomes a winning cell. A cell that makes two or more distinct
  winning cells at once (an open four, a double four) wins by force unless
  the opponent can complete k first;
- fewer stones: potential, summed with weights growing ``WEIGHT`` times per
  stone into each empty cell's score (how much a stone there builds for that
  side, and denies the other).

One pass over the windows (`scan`, about 600 windows on 15x15) gives all of
this for both sides; it is exact for fives and fours in freestyle rules
(five or more wins), where no pattern tables are needed.

On top of it:

- `vcf`: victory by continuous fours, a depth-first search where the
  attacker only makes fours, so the defender's reply is forced (the one
  winning cell); it wins when a move makes two winning cells and the
  defender has none. Sound: a found line is a forced win.
- `analyse`: the root's threat report (win now, forced block, a VCF, and
  which of our moves leave the opponent without a VCF: the defence).
- `candidates`: the moves a tree node expands, best first: the winning
  cell, else the one block, else (facing an open three or any move that
  would make the opponent two winning cells) the cells of the opponent's
  threatening windows plus our own fours, else the `width` best-scored
  cells.
- `playout`: a threat-aware playout (win, block, make an open four, stop
  one, else the best-scored cell with some noise) cut off after a few plies
  by the static evaluation, drawn as a Bernoulli outcome so the tree's
  integer backup stays unchanged.

The board here is an int8 array (0 empty, 1 side 0, 2 side 1) of
``cfg[CELLS_AT]`` cells, ``cfg`` the `big` kernel's config (layout: `config`).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from player.mcts.fast.core.rng import below, next_u64
from player.mcts.fast.mnk.config import CELLS_AT, HEIGHT_AT, K_AT, WIDTH_AT

#: score growth per stone in a live window
WEIGHT = 6.0
#: the four line directions as (row, column) steps (`vct` walks them too)
DR = np.array([0, 1, 1, 1], dtype=np.int64)
DC = np.array([1, 0, 1, -1], dtype=np.int64)
#: `analyse` result codes (out[0]); out[1] is the move, out[2] the count of safe moves
QUIET, WIN, BLOCK, VCF, DEFEND, LOST = 0, 1, 2, 3, 4, 5
#: deepest VCF line searched (attacker moves)
MAX_VCF_DEPTH = 24
#: playout noise: chance of a random pick among the best cells instead of the best one
NOISE = 0.25
#: the static evaluation's scale (in units of WEIGHT**(k-2)) for the cut-off's Bernoulli draw
EVAL_SCALE = 1.0


class Scan:
    """Buffers of one `scan` (numba arrays, reused): per side and cell."""

    __slots__ = ("fours", "fpair", "score", "total", "wins", "zone")

    def __init__(self, cells: int) -> None:
        self.score = np.zeros((2, cells), dtype=np.float64)
        self.wins = np.zeros((2, cells), dtype=np.int8)
        self.fours = np.zeros((2, cells), dtype=np.int16)
        self.fpair = np.zeros((2, cells), dtype=np.int32)
        self.zone = np.zeros((2, cells), dtype=np.int8)
        self.total = np.zeros(2, dtype=np.float64)


@njit(cache=True, nogil=True)
def _pair(fours: np.ndarray, fpair: np.ndarray, side: int, e: int, f: int) -> None:
    if fours[side, e] == 0:
        fpair[side, e] = f
        fours[side, e] = 1
    elif fpair[side, e] != f:
        fours[side, e] += 1


@njit(cache=True, nogil=True)
def scan(
    cfg: np.ndarray,
    board: np.ndarray,
    score: np.ndarray,
    wins: np.ndarray,
    fours: np.ndarray,
    fpair: np.ndarray,
    zone: np.ndarray,
    total: np.ndarray,
) -> None:
    """Fill, per side (0, 1) and empty cell, the window facts (see the module doc).

    ``wins[s, e]``: e is a winning cell of s; ``fours[s, e]``: how many distinct
    winning cells a stone of s on e makes (``fpair[s, e]`` is one of them);
    ``zone[s, e]``: e lies in a live window of s holding at least k-3 stones;
    ``score[s, e]``: the weighted potential; ``total[s]``: the sum over s's
    live windows (the static evaluation).
    """
    width, height, k = cfg[WIDTH_AT], cfg[HEIGHT_AT], cfg[K_AT]
    score[:] = 0.0
    wins[:] = 0
    fours[:] = 0
    zone[:] = 0
    total[:] = 0.0
    empty = np.empty(k, dtype=np.int64)
    weight = np.empty(k + 1, dtype=np.float64)
    weight[0] = 1.0
    for i in range(1, k + 1):
        weight[i] = weight[i - 1] * WEIGHT
    for d in range(4):
        dr, dc = DR[d], DC[d]
        step = dr * width + dc
        for r0 in range(height):
            for c0 in range(width):
                if 0 <= r0 - dr < height and 0 <= c0 - dc < width:
                    continue  # not the first cell of a line
                # slide a k-long window along the line from (r0, c0)
                n1 = 0
                n2 = 0
                r, c, i = r0, c0, 0
                while 0 <= r < height and 0 <= c < width:
                    v = board[r * width + c]
                    n1 += v == 1
                    n2 += v == 2
                    if i >= k:
                        old = board[(r - k * dr) * width + c - k * dc]
                        n1 -= old == 1
                        n2 -= old == 2
                    r += dr
                    c += dc
                    i += 1
                    if i < k or (n1 > 0) == (n2 > 0):
                        continue  # too short yet, dead, or empty
                    side = 0 if n2 == 0 else 1
                    own = n1 + n2
                    value = weight[own]
                    total[side] += value
                    ne = 0
                    start = (r - k * dr) * width + c - k * dc
                    for j in range(k):
                        cell = start + j * step
                        if board[cell] == 0:
                            empty[ne] = cell
                            ne += 1
                            score[side, cell] += value
                    if own == k - 1:
                        wins[side, empty[0]] = 1
                    elif own == k - 2:
                        _pair(fours, fpair, side, empty[0], empty[1])
                        _pair(fours, fpair, side, empty[1], empty[0])
                    if own >= k - 3:
                        for j in range(ne):
                            zone[side, empty[j]] = 1


@njit(cache=True, nogil=True)
def any_set(flags: np.ndarray, side: int) -> bool:
    """Whether any cell of ``flags[side]`` is set."""
    for e in range(flags.shape[1]):  # noqa: SIM110 (a plain loop compiles to the simplest code)
        if flags[side, e]:
            return True
    return False


@njit(cache=True, nogil=True)
def count_first(flags: np.ndarray, side: int) -> tuple[int, int]:
    """(count of set cells, first set cell) of ``flags[side]``."""
    n = 0
    first = -1
    for e in range(flags.shape[1]):
        if flags[side, e]:
            if n == 0:
                first = e
            n += 1
    return n, first


@njit(cache=True, nogil=True)
def _attacks(
    cfg: np.ndarray,
    board: np.ndarray,
    side: int,
    moves: np.ndarray,
    replies: np.ndarray,
    score: np.ndarray,
    wins: np.ndarray,
    fours: np.ndarray,
    fpair: np.ndarray,
    zone: np.ndarray,
    total: np.ndarray,
) -> tuple[int, int]:
    """One VCF position: (a winning move or -1, the count of fours listed in `moves`).

    A winning move takes a winning cell, or makes two winning cells while
    the defender has none (or takes its only one). Otherwise the fours that
    keep the defender from winning (all of them, or those on its one winning
    cell) are listed with the defender's forced reply in `replies`.
    """
    scan(cfg, board, score, wins, fours, fpair, zone, total)
    other = 1 - side
    n, first = count_first(wins, side)
    if n > 0:
        return first, 0
    blocks, block = count_first(wins, other)
    if blocks >= 2:
        return -1, 0
    cells = cfg[CELLS_AT]
    for e in range(cells):
        if fours[side, e] >= 2 and (blocks == 0 or e == block):
            return e, 0
    m = 0
    for e in range(cells):
        if fours[side, e] == 1 and (blocks == 0 or e == block):
            moves[m] = e
            replies[m] = fpair[side, e]
            m += 1
    return -1, m


@njit(cache=True, nogil=True)
def vcf(cfg: np.ndarray, board: np.ndarray, side: int, depth: int, budget: np.ndarray) -> int:
    """The first move of a victory by continuous fours for `side` (to move), or -1.

    Every attacking move makes a four, so the defender must take its winning
    cell; a move that makes two winning cells (or takes one) wins when the
    defender has none. When the defender's forced reply makes it a winning
    cell, the next attacking move must take that cell. Depth-first, at most
    `depth` attacking moves, with an explicit stack (numba's cache mishandles
    recursive functions). `budget[0]` counts down the positions searched; at
    zero the search answers -1 (unknown). `board` is restored on return.
    """
    cells = cfg[CELLS_AT]
    other = 1 - side
    score = np.empty((2, cells), dtype=np.float64)
    wins = np.empty((2, cells), dtype=np.int8)
    fours = np.empty((2, cells), dtype=np.int16)
    fpair = np.empty((2, cells), dtype=np.int32)
    zone = np.empty((2, cells), dtype=np.int8)
    total = np.empty(2, dtype=np.float64)
    moves = np.empty((depth + 1, cells), dtype=np.int64)
    replies = np.empty((depth + 1, cells), dtype=np.int64)
    count = np.zeros(depth + 1, dtype=np.int64)
    index = np.zeros(depth + 1, dtype=np.int64)
    won, n = _attacks(
        cfg, board, side, moves[0], replies[0], score, wins, fours, fpair, zone, total
    )
    if won >= 0:
        return won
    count[0] = n
    d = 0
    while d >= 0:
        if budget[0] <= 0:
            for j in range(d):
                i = index[j] - 1
                board[moves[j, i]] = 0
                board[replies[j, i]] = 0
            return -1
        if index[d] >= count[d] or d >= depth:
            d -= 1
            if d >= 0:
                i = index[d] - 1
                board[moves[d, i]] = 0
                board[replies[d, i]] = 0
            continue
        i = index[d]
        index[d] += 1
        e, f = moves[d, i], replies[d, i]
        budget[0] -= 1
        board[e] = side + 1
        board[f] = other + 1
        won, n = _attacks(
            cfg, board, side, moves[d + 1], replies[d + 1], score, wins, fours, fpair, zone,
            total,
        )  # fmt: skip
        if won >= 0:
            for j in range(d + 1):
                i = index[j] - 1
                board[moves[j, i]] = 0
                board[replies[j, i]] = 0
            return int(moves[0, index[0] - 1])
        if n == 0:
            board[e] = 0
            board[f] = 0
            continue
        d += 1
        count[d] = n
        index[d] = 0
    return -1


@njit(cache=True, nogil=True)
def analyse(
    cfg: np.ndarray, board: np.ndarray, side: int, budget: np.ndarray, out: np.ndarray
) -> None:
    """The threat report of a position with `side` to move, into `out`.

    ``out[0]`` is a code: WIN (``out[1]`` wins at once or starts a VCF: VCF),
    BLOCK (``out[1]`` takes the opponent's winning cell), DEFEND (the
    opponent has a VCF if it could move now: ``out[2]`` moves ``out[3:]``
    leave it none, and any other move is taken as losing), LOST (it has a VCF
    after every move tried), QUIET (no threat found). ``budget[0]`` caps the
    VCF positions searched in all (counted down); past it the report is what
    was proven so far.
    """
    cells = cfg[CELLS_AT]
    other = 1 - side
    score = np.empty((2, cells), dtype=np.float64)
    wins = np.empty((2, cells), dtype=np.int8)
    fours = np.empty((2, cells), dtype=np.int16)
    fpair = np.empty((2, cells), dtype=np.int32)
    zone = np.empty((2, cells), dtype=np.int8)
    total = np.empty(2, dtype=np.float64)
    scan(cfg, board, score, wins, fours, fpair, zone, total)
    out[0] = QUIET
    out[1] = -1
    out[2] = 0
    n, first = count_first(wins, side)
    if n > 0:
        out[0] = WIN
        out[1] = first
        return
    n, first = count_first(wins, other)
    if n > 0:
        out[0] = BLOCK
        out[1] = first
        return
    total_budget = budget[0]
    left = budget
    left[0] = total_budget // 2
    move = vcf(cfg, board, side, MAX_VCF_DEPTH, left)
    left[0] += total_budget - total_budget // 2  # the defence's half
    if move >= 0:
        out[0] = VCF
        out[1] = move
        return
    if vcf(cfg, board, other, MAX_VCF_DEPTH, left) < 0:
        return
    # the opponent threatens a VCF: try the cells of its live windows and our fours
    tried = np.empty(cells, dtype=np.int64)
    t = 0
    for e in range(cells):
        if board[e] == 0 and (zone[other, e] or fours[side, e] > 0):
            tried[t] = e
            t += 1
    safe = 0
    for i in range(t):
        if left[0] <= 0:  # out of budget: the rest are not proven lost
            out[3 + safe] = tried[i]
            safe += 1
            continue
        e = tried[i]
        board[e] = side + 1
        refuted = vcf(cfg, board, other, MAX_VCF_DEPTH, left) >= 0
        board[e] = 0
        if not refuted:
            out[3 + safe] = e
            safe += 1
    out[2] = safe
    out[0] = DEFEND if safe > 0 else LOST


@njit(cache=True, nogil=True)
def candidates(
    cfg: np.ndarray, board: np.ndarray, side: int, width: int, budget: int, out: np.ndarray
) -> int:
    """The moves worth expanding for `side` to move, best first; their count.

    A winning cell alone; else the block alone; else the first move of a VCF
    found within `budget` positions (0: none searched) alone; else, when the opponent has
    a move that makes two winning cells (an open three, a four-three...),
    the empty cells of its live windows of k-2 stones plus our fours; else
    the `width` best cells by our score plus 0.9 x the opponent's (attack
    first, as a block that also builds beats a plain one).
    """
    cells = cfg[CELLS_AT]
    other = 1 - side
    score = np.empty((2, cells), dtype=np.float64)
    wins = np.empty((2, cells), dtype=np.int8)
    fours = np.empty((2, cells), dtype=np.int16)
    fpair = np.empty((2, cells), dtype=np.int32)
    zone = np.empty((2, cells), dtype=np.int8)
    total = np.empty(2, dtype=np.float64)
    scan(cfg, board, score, wins, fours, fpair, zone, total)
    n, first = count_first(wins, side)
    if n > 0:
        out[0] = first
        return 1
    n, first = count_first(wins, other)
    if n > 0:
        out[0] = first
        return 1
    threatened = False
    attacks = False
    for e in range(cells):
        if fours[other, e] >= 2:
            threatened = True
        if fours[side, e] > 0:
            attacks = True
    if budget > 0 and attacks:
        move = vcf(cfg, board, side, MAX_VCF_DEPTH, np.array([budget], dtype=np.int64))
        if move >= 0:
            out[0] = move
            return 1
    value = np.full(cells, -1.0)
    m = 0
    for e in range(cells):
        if board[e] != 0:
            continue
        v = score[side, e] + 0.9 * score[other, e]
        if fours[side, e] >= 2:
            v += 1e9
        if threatened and not (fours[other, e] > 0 or fours[side, e] > 0):
            continue
        if v > 0:
            value[e] = v
            m += 1
    if m == 0:  # an empty board: the centre (else any empty cell)
        centre = (cfg[HEIGHT_AT] // 2) * cfg[WIDTH_AT] + cfg[WIDTH_AT] // 2
        for e in range(cells):
            if board[e] == 0:
                out[0] = e
                if e >= centre:
                    break
        return 1
    limit = m if threatened else min(m, width)
    order = np.argsort(-value)
    count = 0
    for j in range(cells):
        if count >= limit:
            break
        e = order[j]
        if value[e] < 0:
            break
        out[count] = e
        count += 1
    return count


@njit(cache=True, nogil=True)
def playout(
    cfg: np.ndarray, board: np.ndarray, side: int, ply: int, rng: np.ndarray, cutoff: int
) -> int:
    """Play on from `board` (`side` to move, `ply` stones) with the threat policy; the winner.

    Each ply: win; else block; else make two winning cells; else stop the
    opponent's (its double-threat cell); else the best-scored cell, or with
    probability `NOISE` one of the best four. After `cutoff` quiet plies (0:
    never; blocks and fours are played through, as in a quiescence search)
    the side to move wins if it can make an open four and the opponent has no
    four, else the static evaluation (the live windows' weights of the side
    to move minus the opponent's) decides the winner by a draw with a
    logistic probability. Returns 0 or 1 (the winning seat) or 2 (a draw: a full board).
    """
    cells, k = cfg[CELLS_AT], cfg[K_AT]
    score = np.empty((2, cells), dtype=np.float64)
    wins = np.empty((2, cells), dtype=np.int8)
    fours = np.empty((2, cells), dtype=np.int16)
    fpair = np.empty((2, cells), dtype=np.int32)
    zone = np.empty((2, cells), dtype=np.int8)
    total = np.empty(2, dtype=np.float64)
    top = np.empty(4, dtype=np.int64)
    topv = np.empty(4, dtype=np.float64)
    played = 0
    unit = WEIGHT ** (k - 2) * EVAL_SCALE
    while True:
        if ply >= cells:
            return 2
        scan(cfg, board, score, wins, fours, fpair, zone, total)
        other = 1 - side
        n, first = count_first(wins, side)
        if n > 0:
            board[first] = side + 1  # the win it takes, on the board (`big.rollout_amaf` reads it)
            return side
        if cutoff > 0 and played >= cutoff:
            for e in range(cells):
                if fours[side, e] >= 2 and not any_set(wins, other):
                    return side  # an open four next: the opponent has no four to answer
            x = (total[side] - total[other]) / unit
            p = 1.0 / (1.0 + math.exp(-x))
            u = (next_u64(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
            return side if u < p else other
        move = -1
        n, first = count_first(wins, other)
        if n > 0:
            move = first
        if move < 0:
            best = -1.0
            for e in range(cells):
                if fours[side, e] >= 2 and score[side, e] > best:
                    best = score[side, e]
                    move = e
        if move < 0:
            best = -1.0
            for e in range(cells):
                if fours[other, e] >= 2 and score[other, e] + score[side, e] > best:
                    best = score[other, e] + score[side, e]
                    move = e
        if move < 0:
            for j in range(4):
                top[j] = -1
                topv[j] = -1.0
            for e in range(cells):
                if board[e] != 0:
                    continue
                v = score[side, e] + 0.9 * score[other, e]
                if v > topv[3]:
                    j = 3
                    while j > 0 and v > topv[j - 1]:
                        topv[j] = topv[j - 1]
                        top[j] = top[j - 1]
                        j -= 1
                    topv[j] = v
                    top[j] = e
            move = top[0]
            if below(rng, 1000) < NOISE * 1000:
                options = 1
                while options < 4 and top[options] >= 0:
                    options += 1
                move = top[below(rng, options)]
        board[move] = side + 1
        ply += 1
        if n == 0 and fours[side, move] == 0:
            played += 1  # a quiet move: neither a block nor a four (those are played through)
        side = other
