"""m,n,k-game kernel (tic-tac-toe; any board of at most 62 cells) for the compiled search.

State row (int64[4]): as `games.mnk` (two bitboards with cell ``row * width +
col``, ply, status). `cfg` (int64 array): width, height, k, cells, the most
windows through one cell (``most``), then per cell ``most`` window masks
(zero-padded): the same k-long windows `games.mnk.line_windows` lists.

Rollouts (`codes.Rollout`): WIN_BLOCK takes an immediate win, else blocks
the opponent's, else plays a uniformly random move; any other policy is
uniformly random.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.core.codes import DRAW, ONGOING, Rollout
from player.mcts.fast.core.rng import below
from player.mcts.fast.mnk.config import CELLS_AT, HEADER, HEIGHT_AT, K_AT, MOST_AT, WIDTH_AT

STATE_SIZE = 4


def make_cfg(width: int, height: int, k: int, windows: tuple[tuple[int, ...], ...]) -> np.ndarray:
    most = max((len(w) for w in windows), default=0)
    cells = width * height
    cfg = np.zeros(HEADER + cells * most, dtype=np.int64)
    cfg[[WIDTH_AT, HEIGHT_AT, K_AT, CELLS_AT, MOST_AT]] = (width, height, k, cells, most)
    for cell, masks in enumerate(windows):
        for j, mask in enumerate(masks):
            cfg[HEADER + cell * most + j] = mask
    return cfg


def supports(width: int, height: int) -> bool:
    return width * height <= 62


@njit(cache=True, nogil=True)
def _makes_line(cfg: np.ndarray, mine: int, cell: int) -> bool:
    most = cfg[MOST_AT]
    base = HEADER + cell * most
    for j in range(most):
        w = cfg[base + j]
        if w == 0:
            break
        if mine & w == w:
            return True
    return False


@njit(cache=True, nogil=True)
def legal(cfg: np.ndarray, st: np.ndarray, out: np.ndarray) -> int:
    if st[3] != ONGOING:
        return 0
    occupied = st[0] | st[1]
    n = 0
    for cell in range(cfg[CELLS_AT]):
        if not (occupied >> cell) & 1:
            out[n] = cell
            n += 1
    return n


@njit(cache=True, nogil=True)
def to_move(cfg: np.ndarray, st: np.ndarray) -> int:
    return int(st[2] & 1)


@njit(cache=True, nogil=True)
def play(cfg: np.ndarray, st: np.ndarray, move: int, dst: np.ndarray) -> None:
    mover = st[2] & 1
    dst[0] = st[0]
    dst[1] = st[1]
    dst[mover] |= 1 << move
    ply = st[2] + 1
    dst[2] = ply
    if _makes_line(cfg, dst[mover], move):
        dst[3] = mover
    elif ply == cfg[CELLS_AT]:
        dst[3] = DRAW
    else:
        dst[3] = ONGOING


@njit(cache=True, nogil=True)
def status(cfg: np.ndarray, st: np.ndarray) -> int:
    return int(st[3])


@njit(cache=True, nogil=True, inline="always")
def _rollout(
    cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int, seen: np.ndarray, mark: bool
) -> int:
    """`rollout`, and with `mark` `rollout_amaf`'s marks in `seen` (a constant: inlined,
    the plain rollout's code is what it was)."""
    if st[3] != ONGOING:
        return int(st[3])
    cells = cfg[CELLS_AT]
    mover = st[2] & 1
    me = st[mover]
    you = st[1 - mover]
    ply = st[2]
    free = np.empty(cells, dtype=np.int64)
    n = 0
    for cell in range(cells):
        if not ((me | you) >> cell) & 1:
            free[n] = cell
            n += 1
    smart = policy == Rollout.WIN_BLOCK
    while True:
        i = -1
        if smart:
            for j in range(n):
                if _makes_line(cfg, me | (1 << free[j]), free[j]):
                    if mark and seen[free[j]] == 0:  # the win it takes counts as played
                        seen[free[j]] = mover + 1
                    return int(mover)
            for j in range(n):
                if _makes_line(cfg, you | (1 << free[j]), free[j]):
                    i = j
                    break
        if i < 0:
            i = below(rng, n)
        cell = free[i]
        n -= 1
        free[i] = free[n]
        me |= 1 << cell
        if mark and seen[cell] == 0:
            seen[cell] = mover + 1
        ply += 1
        if not smart and _makes_line(cfg, me, cell):
            return int(mover)
        if ply == cells:
            return DRAW
        me, you = you, me
        mover = 1 - mover


@njit(cache=True, nogil=True)
def rollout(cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int) -> int:
    return _rollout(cfg, st, rng, policy, np.empty(0, dtype=np.int8), False)


@njit(cache=True, nogil=True)
def rollout_amaf(
    cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int, seen: np.ndarray
) -> int:
    """`rollout`, marking each cell it fills with its mover's seat + 1 where `seen` holds 0."""
    return _rollout(cfg, st, rng, policy, seen, True)
