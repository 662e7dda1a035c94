"""Reversi (Othello) kernel, 8×8 only, for the compiled search.

State row (int64[5]): as `games.reversi` (black, white, to_move, status,
legal placements of the side to move), the 64-bit boards stored as signed
int64 (bit 63 = h8) and worked on as uint64. Moves are squares ``row * 8 +
col`` and ``PASS`` (-1), as in the Python game. Mobility is the same
shift-and-mask fill (Kogge-Stone) as `games.reversi._mobility`; flips
(`reversi_bits.flips`) shift along the eight directions from the square. `status` reports the winner by disc count
once neither side can move. Rollouts are uniformly random (whatever the
`codes.Rollout` policy); the ``mcts`` agent's default for reversi replaces
them by evaluated leaves (`reversi_leaf`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.core.codes import DRAW, ONGOING
from player.mcts.fast.core.rng import below
from player.mcts.fast.reversi.bits import flips, popcount, square_of

STATE_SIZE = 5
PASS = -1
NORMAL, AFTER_PASS, OVER = 0, 1, 2

_U1 = np.uint64(1)
_INTERIOR = np.uint64(0x7E7E7E7E7E7E7E7E)
_FULL = np.uint64(0xFFFFFFFFFFFFFFFF)


def make_cfg() -> np.ndarray:
    return np.zeros(1, dtype=np.int64)


def to_signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def encode(state: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(to_signed(v) for v in state)


@njit(cache=True, nogil=True)
def _fill(me: np.uint64, prop: np.uint64, shift: np.uint64, left: bool) -> np.uint64:
    double = shift + shift
    quad = double + double
    if left:
        gen = me | (prop & (me << shift))
        run = prop & (prop << shift)
        gen |= run & (gen << double)
        run &= run << double
        gen |= run & (gen << quad)
        return (gen & prop) << shift
    gen = me | (prop & (me >> shift))
    run = prop & (prop >> shift)
    gen |= run & (gen >> double)
    run &= run >> double
    gen |= run & (gen >> quad)
    return (gen & prop) >> shift


@njit(cache=True, nogil=True)
def mobility(me: np.uint64, opp: np.uint64) -> np.uint64:
    moves = np.uint64(0)
    for k in range(4):
        if k == 0:
            shift, mask = np.uint64(1), _INTERIOR
        elif k == 1:
            shift, mask = np.uint64(8), _FULL
        elif k == 2:
            shift, mask = np.uint64(7), _INTERIOR
        else:
            shift, mask = np.uint64(9), _INTERIOR
        prop = opp & mask
        moves |= _fill(me, prop, shift, True)
        moves |= _fill(me, prop, shift, False)
    return moves & ~(me | opp)


@njit(cache=True, nogil=True)
def _settle(
    black: np.uint64, white: np.uint64, to_move: int, passed: bool, dst: np.ndarray
) -> None:
    me, opp = (black, white) if to_move == 0 else (white, black)
    moves = mobility(me, opp)
    if moves:
        status = AFTER_PASS if passed else NORMAL
    elif mobility(opp, me):
        status = NORMAL
    else:
        status = OVER
    dst[0] = np.int64(black)
    dst[1] = np.int64(white)
    dst[2] = to_move
    dst[3] = status
    dst[4] = np.int64(moves)


@njit(cache=True, nogil=True)
def legal(cfg: np.ndarray, st: np.ndarray, out: np.ndarray) -> int:
    if st[3] == OVER:
        return 0
    moves = np.uint64(st[4])
    if not moves:
        out[0] = PASS
        return 1
    n = 0
    for square in range(64):
        if (moves >> np.uint64(square)) & _U1:
            out[n] = square
            n += 1
    return n


@njit(cache=True, nogil=True)
def to_move(cfg: np.ndarray, st: np.ndarray) -> int:
    return int(st[2])


@njit(cache=True, nogil=True)
def play(cfg: np.ndarray, st: np.ndarray, move: int, dst: np.ndarray) -> None:
    black, white, side = np.uint64(st[0]), np.uint64(st[1]), int(st[2])
    if move == PASS:
        _settle(black, white, 1 - side, True, dst)
        return
    bit = _U1 << np.uint64(move)
    if side == 0:
        f = flips(move, black, white)
        _settle(black | bit | f, white ^ f, 1, False, dst)
    else:
        f = flips(move, white, black)
        _settle(black ^ f, white | bit | f, 0, False, dst)


@njit(cache=True, nogil=True)
def _winner(black: np.uint64, white: np.uint64) -> int:
    nb, nw = popcount(black), popcount(white)
    return 0 if nb > nw else 1 if nw > nb else DRAW


@njit(cache=True, nogil=True)
def status(cfg: np.ndarray, st: np.ndarray) -> int:
    if st[3] != OVER:
        return ONGOING
    return _winner(np.uint64(st[0]), np.uint64(st[1]))


@njit(cache=True, nogil=True)
def rollout(cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int) -> int:
    black, white, side = np.uint64(st[0]), np.uint64(st[1]), int(st[2])
    if st[3] == OVER:
        return _winner(black, white)
    passes = 0
    while passes < 2:
        me, opp = (black, white) if side == 0 else (white, black)
        moves = mobility(me, opp)
        if moves:
            passes = 0
            n = popcount(moves)
            k = below(rng, n)
            for _ in range(k):
                moves &= moves - _U1
            bit = moves & (~moves + _U1)
            square = square_of(bit)
            f = flips(square, me, opp)
            me |= bit | f
            opp ^= f
            if side == 0:
                black, white = me, opp
            else:
                black, white = opp, me
        else:
            passes += 1
        side = 1 - side
    return _winner(black, white)
