"""Go's playout policies: which move a playout plays next on the `board`.

Why its own room: the board code (legality, captures, the eye rule) stays
as it is when a heavier policy arrives (atari captures and escapes near the
last move, 3×3 patterns, no self-atari); such a policy is one more function
here and one more branch in `choose`, over the same board and its
`board.in_atari` for free.

`light`: uniformly random among the legal points that do not fill the
mover's own eye (`board.is_own_eye`, the eye rule of `games.go.Go.playout`),
found by sampling the empty points without replacement; a pass when none is
left. Every `codes.Rollout` policy plays `light` for now.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.core.rng import advance, scaled
from player.mcts.fast.go.board import EMPTIES, EPOS, S_EMPTY, S_RNG, SCALAR, is_legal, is_own_eye

#: what a policy answers for a pass
PASS = -1


@njit(cache=True, nogil=True, inline="always")
def light(bd: np.ndarray, colour: int) -> int:
    """A uniformly random legal point of `colour` that is not its own eye, or `PASS`.

    A point found unfit is swapped to the end of the candidates (the empty
    list's order changes; the list stays a list of the empty points).
    """
    count = bd[SCALAR, S_EMPTY]
    while count > 0:
        x = advance(np.uint64(bd[SCALAR, S_RNG]))  # the board's generator (`board.S_RNG`)
        bd[SCALAR, S_RNG] = np.int64(x)
        i = scaled(x, count)
        p = bd[EMPTIES, i]
        if not is_own_eye(bd, p, colour) and is_legal(bd, p, colour):
            return int(p)
        count -= 1
        last = bd[EMPTIES, count]
        bd[EMPTIES, i] = last
        bd[EPOS, last] = i
        bd[EMPTIES, count] = p
        bd[EPOS, p] = count
    return PASS


@njit(cache=True, nogil=True, inline="always")
def choose(bd: np.ndarray, colour: int, policy: int) -> int:
    """The next playout move of `colour` (a grid point, or `PASS`) under `policy`
    (a `codes.Rollout`; every one plays `light` for now)."""
    return light(bd, colour)
