"""The layout of the k-in-a-row kernels' config arrays (`kernel`, `big`, and `threats`/`vct`).

Why one module: the config is an int64 array (numba caches functions over
arrays, not over Python objects), and its slots were read as bare ``cfg[3]``
in four files. These named offsets are module-level ints, compile-time
constants to numba. Both kernels start with the same four slots.
"""

from __future__ import annotations

#: the board's columns, rows, the line length that wins, and the cell count
WIDTH_AT, HEIGHT_AT, K_AT, CELLS_AT = 0, 1, 2, 3

#: `kernel` (small boards): the most windows through one cell, then per cell that many masks
MOST_AT = 4
HEADER = 5

#: `big` (large boards), set by `big.tune` when the threat knowledge is on (k >= 5): how many
#: quiet candidate moves to expand (0: every legal move), the threat playout's plies before
#: the static evaluation, and the positions of the VCF search at each expanded node
CANDIDATES = 4
CUTOFF = 5
VCF = 6
BIG_SIZE = 7
