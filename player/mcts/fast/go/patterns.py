"""Go's 3×3 patterns: how a point's eight neighbours are coded, and the learned weights.

Why its own room: the heavy playout (`policy.heavy`) looks the code of a
point near the last move up in a table of weights; the table is learned
from games (``python -m benchmarks.go_patterns``, which plays GNU Go
against itself through ``arena tournament``) and shipped as
``patterns.npz``. This module owns the coding, the symmetries and the file,
for both sides; it needs NumPy only.

A code is the eight neighbours of a point, each two bits from the mover's
side (`EMPTY` 0, `MINE` 1, `THEIRS` 2, `OFF` 3: off the board), neighbour
``k`` at bits ``2k``, in the order of `OFFSETS` (rows top to bottom,
``(row, col)`` offsets). Being from the mover's side, a code already
ignores which colour moves; the eight symmetries of the square are folded
by `canonical` (the smallest code of the eight).

The file holds, per canonical code met, how often a point with that
pattern was near the last move (`seen`) and how often it was the move
played (`played`); `weights` expands it to every code: the probability
that such a point is played, shrunk towards 0 for rarely seen patterns
(``played / (seen + PRIOR_SEEN)``).
"""

from __future__ import annotations

import functools
from pathlib import Path

import numpy as np

EMPTY, MINE, THEIRS, OFF = 0, 1, 2, 3
#: the eight neighbours' (row, col) offsets; neighbour k is the code's bits 2k, 2k+1
OFFSETS = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))
CODES = 1 << 16
#: virtual sightings of every pattern, none of them played: a pattern seen a few times
#: and played each time gets a weight well below 1
PRIOR_SEEN = 10
PATTERNS_FILE = Path(__file__).with_name("patterns.npz")


def _permutations() -> list[list[int]]:
    """Per symmetry of the square, where each neighbour goes: ``perm[k]`` is the index
    of neighbour ``k``'s image."""
    index = {offset: k for k, offset in enumerate(OFFSETS)}
    perms = []
    for swap in (False, True):
        for sr in (1, -1):
            for sc in (1, -1):
                perm = []
                for r, c in OFFSETS:
                    rr, cc = (c, r) if swap else (r, c)
                    perm.append(index[(sr * rr, sc * cc)])
                perms.append(perm)
    return perms


def digits(codes: np.ndarray) -> np.ndarray:
    """The eight 2-bit neighbours of each code (shape ``codes.shape + (8,)``)."""
    shifts = 2 * np.arange(8, dtype=np.int64)
    return (codes.astype(np.int64)[..., None] >> shifts) & 3


def encode(values: np.ndarray) -> np.ndarray:
    """The codes of neighbours given as digits (the last axis, 8 long)."""
    shifts = 2 * np.arange(8, dtype=np.int64)
    codes: np.ndarray = (values.astype(np.int64) << shifts).sum(axis=-1)
    return codes


def canonical(codes: np.ndarray) -> np.ndarray:
    """Each code's class under the eight symmetries: the smallest code among them."""
    values = digits(codes)
    best = encode(values)
    for perm in _permutations():
        moved = np.empty_like(values)
        moved[..., perm] = values
        best = np.minimum(best, encode(moved))
    return best


@functools.cache
def canonical_table() -> np.ndarray:
    """`canonical` of every code, indexed by code."""
    return canonical(np.arange(CODES, dtype=np.int64))


def save(path: Path, seen: dict[int, int], played: dict[int, int], games: int) -> None:
    """Write counts per canonical code (`seen`, `played`) learned from `games` games."""
    codes = np.array(sorted(seen), dtype=np.int64)
    np.savez_compressed(
        path,
        codes=codes,
        seen=np.array([seen[c] for c in codes], dtype=np.int64),
        played=np.array([played.get(int(c), 0) for c in codes], dtype=np.int64),
        games=np.array(games, dtype=np.int64),
    )


def weights(path: Path = PATTERNS_FILE) -> np.ndarray:
    """Every code's weight (float64, indexed by code) from the counts in `path`; all
    zero when there is no such file (the heavy playout then plays no pattern move)."""
    table = np.zeros(CODES, dtype=np.float64)
    if not path.exists():
        return table
    with np.load(path) as data:
        codes, seen, played = data["codes"], data["seen"], data["played"]
    by_class = np.zeros(CODES, dtype=np.float64)
    by_class[codes] = played / (seen + PRIOR_SEEN)
    table[:] = by_class[canonical_table()]
    return table
