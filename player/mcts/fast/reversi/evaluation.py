"""A hand-weighted Othello evaluation (numba), from the side to move's view.

Terms, each a difference between the side to move ("me") and the other:

- mobility: legal moves now;
- potential mobility: empty squares next to the other side's discs (where
  moves will come from), a frontier measure;
- corners, and the X-squares (diagonally next to a corner) and C-squares
  (beside it on the edge) while that corner is empty: they give it away;
- stable discs: discs that can never be flipped (each of the four lines
  through them is full, or ends at the edge or at a stable disc of the same
  colour on at least one side), computed by iteration from the edges;
- discs: slightly negative in the opening and middle game (fewer discs,
  fewer frontier discs), positive late;
- parity: the side to move gets the last move when the number of empty
  squares is odd (late game only).

Weights are hand-set (no tables learned or built for any position). The
score is in rough disc units; a finished game scores its disc difference
times `FINAL_SCALE`, beyond any heuristic score.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.reversi.bits import U1, neighbours, popcount, shift
from player.mcts.fast.reversi.kernel import mobility

FINAL_SCALE = 1000.0

CORNERS = np.uint64(0x8100000000000081)
#: corner squares and, per corner, its X-square and its two C-squares
_CORNER = np.array([0, 7, 56, 63], dtype=np.int64)
_XSQ = np.array([9, 14, 49, 54], dtype=np.int64)
_CSQ = np.array([[1, 8], [6, 15], [48, 57], [55, 62]], dtype=np.int64)
#: per direction (E, W, S, N, SE, NW, SW, NE: `reversi_bits.shift`), the squares with no neighbour
_COL0 = np.uint64(0x0101010101010101)
_COL7 = np.uint64(0x8080808080808080)
_ROW0 = np.uint64(0x00000000000000FF)
_ROW7 = np.uint64(0xFF00000000000000)
_EDGE = np.array(
    [_COL7, _COL0, _ROW7, _ROW0, _COL7 | _ROW7, _COL0 | _ROW0, _COL0 | _ROW7, _COL7 | _ROW0],
    dtype=np.uint64,
)

W_MOBILITY = 4.0
W_POTENTIAL = 1.5
W_CORNER = 30.0
W_XSQUARE = 15.0
W_CSQUARE = 5.0
W_STABLE = 5.0
W_DISC_EARLY = -0.3
W_DISC_LATE = 1.0
W_PARITY = 4.0
LATE = 20  # empties from which the late-game weights apply


@njit(cache=True, nogil=True)
def full_lines(filled: np.uint64) -> np.ndarray:
    """Per axis (horizontal, vertical, diagonal, anti-diagonal): squares whose whole line is filled."""
    out = np.empty(4, dtype=np.uint64)
    for axis in range(4):
        d, e = 2 * axis, 2 * axis + 1
        fd = filled
        fe = filled
        for _ in range(7):
            fd &= shift(fd, e) | _EDGE[d]
            fe &= shift(fe, d) | _EDGE[e]
        out[axis] = fd & fe
    return out


@njit(cache=True, nogil=True)
def stable(me: np.uint64, full: np.ndarray) -> np.uint64:
    """The discs of `me` that can never be flipped (`full`: `full_lines` of the board)."""
    st = np.uint64(0)
    while True:
        new = me
        for axis in range(4):
            d, e = 2 * axis, 2 * axis + 1
            new &= full[axis] | shift(st, e) | _EDGE[d] | shift(st, d) | _EDGE[e]
        if new == st:
            return st
        st = new


@njit(cache=True, nogil=True)
def final_score(me: np.uint64, opp: np.uint64) -> float:
    """A finished game's score for `me`: the disc difference, scaled past any heuristic score."""
    return FINAL_SCALE * (popcount(me) - popcount(opp))


@njit(cache=True, nogil=True)
def evaluate(me: np.uint64, opp: np.uint64) -> float:
    """The heuristic score of the position for `me`, the side to move (disc units)."""
    filled = me | opp
    empty = ~filled
    empties = popcount(empty)
    mob_me = popcount(mobility(me, opp))
    mob_opp = popcount(mobility(opp, me))
    if mob_me == 0 and mob_opp == 0:
        return final_score(me, opp)
    score = W_MOBILITY * (mob_me - mob_opp)
    score += W_POTENTIAL * (popcount(neighbours(opp) & empty) - popcount(neighbours(me) & empty))
    for k in range(4):
        corner = U1 << np.uint64(_CORNER[k])
        if me & corner:
            score += W_CORNER
        elif opp & corner:
            score -= W_CORNER
        else:
            x = U1 << np.uint64(_XSQ[k])
            if me & x:
                score -= W_XSQUARE
            elif opp & x:
                score += W_XSQUARE
            for j in range(2):
                c = U1 << np.uint64(_CSQ[k, j])
                if me & c:
                    score -= W_CSQUARE
                elif opp & c:
                    score += W_CSQUARE
    if filled & CORNERS:
        full = full_lines(filled)
        score += W_STABLE * (popcount(stable(me, full)) - popcount(stable(opp, full)))
    discs = popcount(me) - popcount(opp)
    if empties <= LATE:
        score += W_DISC_LATE * discs
        score += W_PARITY if empties % 2 == 1 else -W_PARITY
    else:
        score += W_DISC_EARLY * discs
    return score
