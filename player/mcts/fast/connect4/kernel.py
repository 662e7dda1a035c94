"""Connect four kernel (k = 4, up to 62 cells with the sentinel row) for the compiled search.

State row (int64[4]): the two seats' bitboards in `games.connect4`'s layout
(column-major, one sentinel bit per column), the ply and the status (ONGOING,
winner seat or DRAW), so a Python state converts by copying its tuple.

`cfg` (int64 array): width, height, bottom mask (one bit per column's floor),
board mask (every playable cell), cells, and the rows of the height's parity
(the sentinel row included): the cells the side to move gets when every column
has an even number of empty cells and the other side answers in the same column
(`connect4_solve`'s claimeven rule).

Rollouts (`codes.Rollout`): WIN_BLOCK takes an immediate win, else blocks
the opponent's immediate win, else plays a random move that does not put a
disc right under an opponent's winning cell (if any such move exists); the
second player, though, answers in the column just played whenever that cell
is safe (the follow-up, its zugzwang strategy: with it, it gets every cell of
one row parity). A rollout ends as soon as the claimeven rule decides it
(every column with an even number of empties, the side to move unable to
make four with its discs and the cells the follow-up leaves it): a win for
the other side if its own cells hold a four, else a draw (at least: it may
win by other means). On 200 opening positions at 50,000 simulations (seed 2,
two runs each) the follow-up kept the value in 337 of 400 moves against 326,
and with the claimeven ending 340. The
threat sets come from John Tromp's / Pascal Pons's bit tricks
(`winning_cells`). Any other policy is uniformly random.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.core.codes import DRAW, ONGOING, Rollout
from player.mcts.fast.core.rng import below

STATE_SIZE = 4

#: the config's slots (`make_cfg`): columns, rows, the bottom row's bits, every cell's bits, the
#: cell count, and the bits of the cells on the first player's parity rows (claimeven)
WIDTH_AT, HEIGHT_AT, BOTTOM_AT, BOARD_AT, CELLS_AT, PARITY_AT = range(6)
CFG_SIZE = 6


def make_cfg(width: int, height: int) -> np.ndarray:
    stride = height + 1
    bottom = sum(1 << (c * stride) for c in range(width))
    board = bottom * ((1 << height) - 1)
    parity = sum(bottom << row for row in range(height % 2, height + 1, 2))
    cfg = np.zeros(CFG_SIZE, dtype=np.int64)
    cfg[[WIDTH_AT, HEIGHT_AT, BOTTOM_AT, BOARD_AT, CELLS_AT, PARITY_AT]] = (
        width,
        height,
        bottom,
        board,
        width * height,
        parity,
    )
    return cfg


def supports(width: int, height: int, k: int) -> bool:
    return k == 4 and width * (height + 1) <= 62


@njit(cache=True, nogil=True)
def has_four(p: int, h: int) -> bool:
    for s in (1, h + 1, h, h + 2):
        m = p & (p >> s)
        if m & (m >> (2 * s)):
            return True
    return False


@njit(cache=True, nogil=True)
def popcount(x: int) -> int:
    """The number of set bits of a (non-negative) bitboard."""
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, nogil=True)
def winning_cells(p: int, mask: int, h: int, board: int) -> int:
    """Empty cells that would give the owner of `p` four in a row."""
    r = (p << 1) & (p << 2) & (p << 3)
    for s in (h + 1, h, h + 2):
        p2 = (p << s) & (p << (2 * s))
        r |= p2 & (p << (3 * s))
        r |= p2 & (p >> s)
        p2 = (p >> s) & (p >> (2 * s))
        r |= p2 & (p << s)
        r |= p2 & (p >> (3 * s))
    return r & (board ^ mask)


@njit(cache=True, nogil=True)
def legal(cfg: np.ndarray, st: np.ndarray, out: np.ndarray) -> int:
    if st[3] != ONGOING:
        return 0
    w, h = cfg[WIDTH_AT], cfg[HEIGHT_AT]
    mask = st[0] | st[1]
    n = 0
    for c in range(w):
        if not (mask >> (c * (h + 1) + h - 1)) & 1:
            out[n] = c
            n += 1
    return n


@njit(cache=True, nogil=True)
def to_move(cfg: np.ndarray, st: np.ndarray) -> int:
    return int(st[2] & 1)


@njit(cache=True, nogil=True)
def play(cfg: np.ndarray, st: np.ndarray, move: int, dst: np.ndarray) -> None:
    h = cfg[HEIGHT_AT]
    mask = st[0] | st[1]
    col = ((1 << h) - 1) << (move * (h + 1))
    bit = (mask + (1 << (move * (h + 1)))) & col
    mover = st[2] & 1
    dst[0] = st[0]
    dst[1] = st[1]
    dst[mover] |= bit
    ply = st[2] + 1
    dst[2] = ply
    if has_four(dst[mover], h):
        dst[3] = mover
    elif ply == cfg[CELLS_AT]:
        dst[3] = DRAW
    else:
        dst[3] = ONGOING


@njit(cache=True, nogil=True)
def status(cfg: np.ndarray, st: np.ndarray) -> int:
    return int(st[3])


@njit(cache=True, nogil=True)
def _pick(bits: int, rng: np.ndarray) -> int:
    """A uniformly chosen set bit of `bits` (non-zero), as a one-bit mask."""
    n = 0
    b = bits
    while b:
        b &= b - 1
        n += 1
    k = below(rng, n)
    b = bits
    for _ in range(k):
        b &= b - 1
    return b & -b


@njit(cache=True, nogil=True)
def rollout(cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int) -> int:
    """Play to the end from `st` (not modified); return the winner seat or DRAW."""
    return _rollout(cfg, st, rng, policy, np.empty(0, dtype=np.int8), False)


@njit(cache=True, nogil=True)
def rollout_amaf(
    cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int, seen: np.ndarray
) -> int:
    """`rollout`, marking each column it plays in (move ids are columns) with the seat + 1
    of the first to play there, where `seen` holds 0; a win taken at once counts as played."""
    return _rollout(cfg, st, rng, policy, seen, True)


@njit(cache=True, nogil=True, inline="always")
def _column(bit: int, h: int) -> int:
    """The column of the one-bit mask `bit`."""
    c = 0
    b = bit >> (h + 1)
    while b:
        b >>= h + 1
        c += 1
    return c


@njit(cache=True, nogil=True, inline="always")
def _rollout(
    cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int, seen: np.ndarray, mark: bool
) -> int:
    """`rollout`, and with `mark` (a constant: inlined) `rollout_amaf`'s marks in `seen`."""
    if st[3] != ONGOING:
        return int(st[3])
    h, bottom, board, cells = cfg[HEIGHT_AT], cfg[BOTTOM_AT], cfg[BOARD_AT], cfg[CELLS_AT]
    mover = st[2] & 1
    me = st[mover]
    you = st[1 - mover]
    mask = me | you
    ply = st[2]
    smart = policy == Rollout.WIN_BLOCK
    parity = cfg[PARITY_AT]
    last = 0  # the last move's bit (unknown at the start)
    while True:
        playable = (mask + bottom) & board
        empty = board ^ mask
        if smart and ((mask + bottom) & ~parity) == 0 and not has_four(me | (empty & parity), h):
            # claimeven: the other side answering in the same column, we never win
            return int(1 - mover) if has_four(you | (empty & ~parity), h) else DRAW
        if smart:
            mine = winning_cells(me, mask, h, board) & playable
            if mine:
                if mark:
                    c = _column(mine & -mine, h)
                    if seen[c] == 0:
                        seen[c] = mover + 1
                return int(mover)
            theirs = winning_cells(you, mask, h, board)
            forced = theirs & playable
            if forced:
                bit = forced & -forced
            else:
                safe = playable & ~(theirs >> 1)
                follow = (last << 1) & safe  # the cell above the last move
                if follow and mover == 1:
                    bit = follow  # the second player's follow-up
                else:
                    bit = _pick(safe if safe else playable, rng)
        else:
            bit = _pick(playable, rng)
        last = bit
        if mark:
            c = _column(bit, h)
            if seen[c] == 0:
                seen[c] = mover + 1
        me |= bit
        mask |= bit
        ply += 1
        if not smart and has_four(me, h):
            return int(mover)
        if ply == cells:
            return DRAW
        me, you = you, me
        mover = 1 - mover
