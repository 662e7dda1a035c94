"""Bitboard primitives of the reversi kernel, its evaluation and its solver (numba).

Boards are uint64 with square ``row * 8 + col`` at the bit of the same index
(as `games.reversi`). `popcount` is the SWAR bit count; `flips` walks the
eight directions with shifts (no row/column arithmetic); `neighbours` is the
eight-direction dilation used for frontier and potential-mobility terms.
"""

from __future__ import annotations

import numpy as np
from numba import njit

U1 = np.uint64(1)
NOT_A = np.uint64(0xFEFEFEFEFEFEFEFE)  # every column but the first (col 0)
NOT_H = np.uint64(0x7F7F7F7F7F7F7F7F)  # every column but the last (col 7)
_M1 = np.uint64(0x5555555555555555)
_M2 = np.uint64(0x3333333333333333)
_M4 = np.uint64(0x0F0F0F0F0F0F0F0F)
_H01 = np.uint64(0x0101010101010101)
_S1, _S2, _S4, _S7, _S8, _S9, _S56 = (np.uint64(k) for k in (1, 2, 4, 7, 8, 9, 56))


@njit(cache=True, nogil=True)
def popcount(x: np.uint64) -> int:
    """Set bits of `x`."""
    x = x - ((x >> _S1) & _M1)
    x = (x & _M2) + ((x >> _S2) & _M2)
    x = (x + (x >> _S4)) & _M4
    # a signed result: numba's int() of a uint64 stays unsigned, and differences would wrap
    return np.int64((x * _H01) >> _S56)  # type: ignore[return-value]


@njit(cache=True, nogil=True)
def square_of(bit: np.uint64) -> int:
    """The index of the single set bit `bit`."""
    return popcount(bit - U1)


@njit(cache=True, nogil=True)
def shift(x: np.uint64, d: int) -> np.uint64:
    """`x` moved one step in direction `d` (0..7: E, W, S, N, SE, NW, SW, NE), off-board bits dropped."""
    if d == 0:
        return (x << _S1) & NOT_A
    if d == 1:
        return (x >> _S1) & NOT_H
    if d == 2:
        return x << _S8
    if d == 3:
        return x >> _S8
    if d == 4:
        return (x << _S9) & NOT_A
    if d == 5:
        return (x >> _S9) & NOT_H
    if d == 6:
        return (x << _S7) & NOT_H
    return (x >> _S7) & NOT_A


@njit(cache=True, nogil=True)
def neighbours(x: np.uint64) -> np.uint64:
    """Every square adjacent (8 directions) to a square of `x`."""
    side = ((x << _S1) & NOT_A) | ((x >> _S1) & NOT_H)
    row = x | side
    return side | (row << _S8) | (row >> _S8)


@njit(cache=True, nogil=True)
def flips(square: int, me: np.uint64, opp: np.uint64) -> np.uint64:
    """The discs of `opp` that a disc of `me` placed on `square` flips."""
    bit = U1 << np.uint64(square)
    total = np.uint64(0)
    for d in range(8):
        line = np.uint64(0)
        x = shift(bit, d)
        while x & opp:
            line |= x
            x = shift(x, d)
        if x & me:
            total |= line
    return total
