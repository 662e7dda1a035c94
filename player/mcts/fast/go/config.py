"""The layout of Go's config array and of its node row, shared by `kernel`, `board` and `policy`.

Why one module: the config and the row are int64 arrays (numba caches
functions over arrays, not Python objects), read in several files; these
named offsets are module-level ints, compile-time constants to numba.

Config (`make_cfg`): the board side N, the words per colour in a row, the
move cap, twice the komi, the prior's weight in percent, the ladder switch,
then per point ``row * N + col`` its four neighbours (-1 off the board).

Row (`state_size`): Black's stones as ``words`` int64 words (point ``m`` is
bit ``m % 64`` of word ``m // 64``, bit 63 stored as the sign), White's as
many, then one `INFO` word packing the ply, the passes in a row, the point
simple ko forbids, the last move and the status. A node costs
``8 * (2 * words + 1)`` bytes of state: 40 on 9×9 (2 words), 104 on 19×19 (6).
"""

from __future__ import annotations

import numpy as np

#: config slots: board side, words per colour in a row, move cap, 2 × komi, the prior's
#: weight in percent (`GoOptions.go_prior`), and whether the heavy playouts and the prior
#: read ladders (1) or not (0; `GoOptions.go_ladders`)
SIZE, WORDS, CAP, KOMI2, PRIOR, LADDERS = 0, 1, 2, 3, 4, 5
#: where the neighbour table starts (4 entries per point, -1 off the board)
NEIGHBOURS = 8

#: the INFO word's fields (shift, width in bits): the ply (0..cap) ...
PLY_SHIFT, PLY_BITS = 0, 16
#: ... the passes in a row (0..2) ...
PASSES_SHIFT, PASSES_BITS = 16, 2
#: ... the simple-ko point + 1 (0: none) ...
KO_SHIFT, KO_BITS = 18, 10
#: ... the last move + 2 (0: none yet, 1: a pass) ...
LAST_SHIFT, LAST_BITS = 28, 10
#: ... and the status + 1 (`codes.ONGOING` -1 .. `codes.DRAW` 2)
STATUS_SHIFT, STATUS_BITS = 38, 3

#: the board sides the kernel plays (the rules' tiny test boards included)
MIN_SIZE, MAX_SIZE = 2, 19


def supports(size: int, cap: int) -> bool:
    """Whether the kernel plays an N×N board with a move cap of `cap` plies."""
    return MIN_SIZE <= size <= MAX_SIZE and 0 <= cap < 1 << PLY_BITS


def words(size: int) -> int:
    """Words per colour in a row for an N×N board."""
    return (size * size + 63) // 64


def state_size(size: int) -> int:
    """The row's length: each colour's words and the INFO word."""
    return 2 * words(size) + 1


def make_cfg(size: int, komi: float, cap: int) -> np.ndarray:
    """The config of an N×N board with `komi` (a multiple of 0.5) and a move cap of `cap` plies."""
    if not supports(size, cap):
        raise ValueError(f"go kernel: no {size}x{size} board with a move cap of {cap}")
    cells = size * size
    cfg = np.full(NEIGHBOURS + 4 * cells, -1, dtype=np.int64)
    cfg[SIZE] = size
    cfg[WORDS] = words(size)
    cfg[CAP] = cap
    cfg[KOMI2] = round(2 * komi)
    cfg[PRIOR] = 100
    cfg[LADDERS] = 0  # the raw config reads none; the adapter sets the option's value
    for row in range(size):
        for col in range(size):
            at = NEIGHBOURS + 4 * (row * size + col)
            near = [
                r * size + c
                for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
                if 0 <= r < size and 0 <= c < size
            ]
            cfg[at : at + len(near)] = near
    return cfg
