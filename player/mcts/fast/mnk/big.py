"""m,n,k-game kernel for boards of 63 to 300 cells (gomoku 15x15) for the compiled search.

`mnk` keeps each side's stones in one 64-bit word; a 15x15 board needs more,
so here each side has `WORDS` words of `BITS` bits (cell ``row * width +
col`` is bit ``cell % BITS`` of word ``cell // BITS``, as `games.mnk`'s integer
bitboards cut in pieces). State row (int64[12]): side 0's words, side 1's
words, ply, status. `cfg` (int64 array): width, height, k, cells.

A move wins when the run of the mover's stones through it, along one of the
four directions, is at least k long: the same as `games.mnk` (a k-long window
of the mover's stones through the move; freestyle, longer lines win too).

Rollouts (`codes.Rollout`): WIN_BLOCK takes an immediate win, else blocks
the opponent's, else plays a uniformly random move; any other policy is
uniformly random. Each side's winning cells are kept up to date
move by move (a new one can only be the first empty cell past the mover's
stones next to its new stone, in one of the eight directions), so the policy
costs a few dozen cell reads per move, not a scan of the board.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.core.codes import DRAW, ONGOING, Rollout
from player.mcts.fast.core.rng import below
from player.mcts.fast.mnk import threats, vct
from player.mcts.fast.mnk.config import (
    BIG_SIZE,
    CANDIDATES,
    CELLS_AT,
    CUTOFF,
    HEIGHT_AT,
    K_AT,
    VCF,
    WIDTH_AT,
)

BITS = 60
WORDS = 5
STATE_SIZE = 2 * WORDS + 2
PLY = 2 * WORDS
STATUS = 2 * WORDS + 1
MAX_CELLS = BITS * WORDS
# the four line directions as (row, column) steps
_DR = np.array([0, 1, 1, 1], dtype=np.int64)
_DC = np.array([1, 0, 1, -1], dtype=np.int64)


def make_cfg(width: int, height: int, k: int) -> np.ndarray:
    """The plain rules' config (`config`'s layout): every legal move is expanded (the knowledge,
    slots `CANDIDATES`, `CUTOFF` and `VCF`, is off)."""
    cfg = np.zeros(BIG_SIZE, dtype=np.int64)
    cfg[[WIDTH_AT, HEIGHT_AT, K_AT, CELLS_AT]] = (width, height, k, width * height)
    return cfg


def tune(cfg: np.ndarray, candidates: int, cutoff: int, vcf: int) -> np.ndarray:
    """A copy of `cfg` with the threat knowledge on (for k >= 5; smaller k: unchanged).

    `candidates`: expand `threats.candidates` (at most that many quiet moves)
    instead of every legal move (0: every legal move); `cutoff`: plies of the
    `Rollout.THREAT` playout before the static evaluation decides (0: to the end);
    `vcf`: the positions of the VCF search at each expanded node (0: none).
    """
    tuned = cfg.copy()
    if cfg[K_AT] >= 5:
        tuned[CANDIDATES] = candidates
        tuned[CUTOFF] = cutoff
        tuned[VCF] = vcf if candidates > 0 else 0
    return tuned


@njit(cache=True, nogil=True)
def ordered(cfg: np.ndarray) -> bool:
    """Whether `legal` lists the moves best first (the search then keeps that order)."""
    return bool(cfg[CANDIDATES] > 0)


def supports(width: int, height: int) -> bool:
    return 62 < width * height <= MAX_CELLS


def encode(state: tuple[int, int, int, int]) -> tuple[int, ...]:
    """A `games.mnk` state as a kernel row."""
    mask = (1 << BITS) - 1
    words = [(stones >> (BITS * w)) & mask for stones in state[:2] for w in range(WORDS)]
    return (*words, state[2], state[3])


@njit(cache=True, nogil=True)
def _has(st: np.ndarray, side: int, cell: int) -> bool:
    return bool((st[side * WORDS + cell // BITS] >> (cell % BITS)) & 1)


@njit(cache=True, nogil=True)
def _run(cfg: np.ndarray, board: np.ndarray, piece: int, cell: int, dr: int, dc: int) -> int:
    """How many `piece` stones follow `cell` (not counted) in direction (dr, dc)."""
    width, height = cfg[WIDTH_AT], cfg[HEIGHT_AT]
    row, col = cell // width + dr, cell % width + dc
    n = 0
    while 0 <= row < height and 0 <= col < width and board[row * width + col] == piece:
        n += 1
        row += dr
        col += dc
    return n


@njit(cache=True, nogil=True)
def _wins_at(cfg: np.ndarray, board: np.ndarray, piece: int, cell: int) -> bool:
    """Whether `piece` on `cell` makes a line of k (the cell itself may be empty)."""
    for d in range(4):
        dr, dc = _DR[d], _DC[d]
        length = 1 + _run(cfg, board, piece, cell, dr, dc) + _run(cfg, board, piece, cell, -dr, -dc)
        if length >= cfg[K_AT]:
            return True
    return False


@njit(cache=True, nogil=True)
def _board(cfg: np.ndarray, st: np.ndarray) -> np.ndarray:
    """Cells as 0 (empty), 1 (side 0) or 2 (side 1)."""
    board = np.zeros(cfg[CELLS_AT], dtype=np.int8)
    for cell in range(cfg[CELLS_AT]):
        if _has(st, 0, cell):
            board[cell] = 1
        elif _has(st, 1, cell):
            board[cell] = 2
    return board


@njit(cache=True, nogil=True)
def legal(cfg: np.ndarray, st: np.ndarray, out: np.ndarray) -> int:
    if st[STATUS] != ONGOING:
        return 0
    if cfg[CANDIDATES] > 0:
        board = _board(cfg, st)
        return threats.candidates(cfg, board, int(st[PLY] & 1), cfg[CANDIDATES], cfg[VCF], out)
    n = 0
    for cell in range(cfg[CELLS_AT]):
        if not _has(st, 0, cell) and not _has(st, 1, cell):
            out[n] = cell
            n += 1
    return n


@njit(cache=True, nogil=True)
def to_move(cfg: np.ndarray, st: np.ndarray) -> int:
    return int(st[PLY] & 1)


@njit(cache=True, nogil=True)
def _run_bits(cfg: np.ndarray, st: np.ndarray, side: int, cell: int, dr: int, dc: int) -> int:
    """`_run` over a state row's bits: how many of `side`'s stones follow `cell`."""
    width, height = cfg[WIDTH_AT], cfg[HEIGHT_AT]
    row, col = cell // width + dr, cell % width + dc
    n = 0
    while 0 <= row < height and 0 <= col < width and _has(st, side, row * width + col):
        n += 1
        row += dr
        col += dc
    return n


@njit(cache=True, nogil=True)
def play(cfg: np.ndarray, st: np.ndarray, move: int, dst: np.ndarray) -> None:
    mover = st[PLY] & 1
    dst[:] = st
    dst[mover * WORDS + move // BITS] |= 1 << (move % BITS)
    ply = st[PLY] + 1
    dst[PLY] = ply
    won = False
    for d in range(4):
        dr, dc = _DR[d], _DC[d]
        length = 1 + _run_bits(cfg, dst, mover, move, dr, dc)
        if length + _run_bits(cfg, dst, mover, move, -dr, -dc) >= cfg[K_AT]:
            won = True
            break
    if won:
        dst[STATUS] = mover
    elif ply == cfg[CELLS_AT]:
        dst[STATUS] = DRAW
    else:
        dst[STATUS] = ONGOING


@njit(cache=True, nogil=True)
def status(cfg: np.ndarray, st: np.ndarray) -> int:
    return int(st[STATUS])


@njit(cache=True, nogil=True)
def rollout(cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int) -> int:
    if st[STATUS] != ONGOING:
        return int(st[STATUS])
    return _rollout_on(cfg, st, _board(cfg, st), rng, policy, False)


@njit(cache=True, nogil=True)
def rollout_amaf(
    cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int, seen: np.ndarray
) -> int:
    """`rollout`, marking each cell it fills with its mover's seat + 1 where `seen` holds 0.

    Stones are never taken, so the cells filled are the board's at the end
    that `st` has empty, each holding its mover's seat + 1; the winning
    cell a rollout takes without playing on (a win at once) is placed too.
    """
    if st[STATUS] != ONGOING:
        return int(st[STATUS])
    board = _board(cfg, st)
    winner = _rollout_on(cfg, st, board, rng, policy, True)
    for cell in range(cfg[CELLS_AT]):
        if board[cell] != 0 and seen[cell] == 0 and not (_has(st, 0, cell) or _has(st, 1, cell)):
            seen[cell] = board[cell]
    return winner


@njit(cache=True, nogil=True, inline="always")
def _rollout_on(
    cfg: np.ndarray, st: np.ndarray, board: np.ndarray, rng: np.ndarray, policy: int, mark: bool
) -> int:
    """`rollout` on `board` (`st`'s, ongoing), which ends as the rollout left it; with
    `mark` (a constant: inlined) the win a smart rollout takes at once is placed too."""
    cells, width, height = cfg[CELLS_AT], cfg[WIDTH_AT], cfg[HEIGHT_AT]
    if policy == Rollout.THREAT and cfg[K_AT] >= 5:
        return threats.playout(cfg, board, int(st[PLY] & 1), int(st[PLY]), rng, cfg[CUTOFF])
    free = np.empty(cells, dtype=np.int64)
    where = np.full(cells, -1, dtype=np.int64)  # a free cell's index in `free`
    n = 0
    for cell in range(cells):
        if board[cell] == 0:
            free[n] = cell
            where[cell] = n
            n += 1
    # WIN_BLOCK: each side's winning cells (1 = placing there makes k), and their counts
    smart = policy == Rollout.WIN_BLOCK
    wins = np.zeros((2, cells), dtype=np.int8)
    count = np.zeros(2, dtype=np.int64)
    if smart:
        for j in range(n):
            for side in range(2):
                if _wins_at(cfg, board, side + 1, free[j]):
                    wins[side, free[j]] = 1
                    count[side] += 1
    mover = int(st[PLY] & 1)
    ply = st[PLY]
    while True:
        cell = -1
        if smart:
            if count[mover] > 0:
                if mark:
                    for j in range(n):
                        if wins[mover, free[j]]:
                            board[free[j]] = mover + 1
                            break
                return mover  # it takes its win
            if count[1 - mover] > 0:
                for j in range(n):
                    if wins[1 - mover, free[j]]:
                        cell = free[j]
                        break
        if cell < 0:
            cell = free[below(rng, n)]
        # place it
        i = where[cell]
        n -= 1
        last = free[n]
        free[i] = last
        where[last] = i
        where[cell] = -1
        board[cell] = mover + 1
        ply += 1
        if smart:
            for side in range(2):
                if wins[side, cell]:
                    wins[side, cell] = 0
                    count[side] -= 1
            # a new winning cell for the mover: the first empty cell past its stones
            # next to the new one, in one of the eight directions
            row0, col0 = cell // width, cell % width
            for d in range(4):
                for sign in (1, -1):
                    dr, dc = sign * _DR[d], sign * _DC[d]
                    past = 1 + _run(cfg, board, mover + 1, cell, dr, dc)
                    row, col = row0 + past * dr, col0 + past * dc
                    if not (0 <= row < height and 0 <= col < width):
                        continue
                    e = row * width + col
                    if board[e] != 0 or wins[mover, e]:
                        continue
                    run = 1 + _run(cfg, board, mover + 1, e, dr, dc)
                    run += _run(cfg, board, mover + 1, e, -dr, -dc)
                    if run >= cfg[K_AT]:
                        wins[mover, e] = 1
                        count[mover] += 1
        elif _wins_at(cfg, board, mover + 1, cell):
            return mover
        if ply == cells:
            return DRAW
        mover = 1 - mover


@njit(cache=True, nogil=True)
def analyse(cfg: np.ndarray, st: np.ndarray, budget: int, out: np.ndarray) -> int:
    """`threats.analyse` of a state row (side to move: the ply's); the VCF positions used."""
    left = np.array([budget], dtype=np.int64)
    threats.analyse(cfg, _board(cfg, st), int(st[PLY] & 1), left, out)
    return int(budget - left[0])


@njit(cache=True, nogil=True)
def threat_win(cfg: np.ndarray, st: np.ndarray, mover: bool, budget: np.ndarray) -> int:
    """`vct.vct` on a state row: the side to move's VCT (`mover`), or the other's as if it moved.

    The first move of the forced win, or -1 (none found within ``budget[0]``
    positions, counted down).
    """
    side = int(st[PLY] & 1)
    return vct.vct(cfg, _board(cfg, st), side if mover else 1 - side, budget)
