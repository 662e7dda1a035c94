"""Go's playout policies: which move a playout plays next on the `board`.

Why its own room: the board code (legality, captures, the eye rule) stays
as it is while the policies grow; each rule of the heavy policy is one small
function here over the same board and its `board.in_atari` for free.

`light` (`codes.Rollout.RANDOM`): uniformly random among the legal points
that do not fill the mover's own eye (`board.is_own_eye`, the eye rule of
`games.go.Go.playout`), found by sampling the empty points without
replacement; a pass when none is left.

`heavy` (every other `codes.Rollout`, `Rollout.HEAVY` the Go adapter's
``smart``): answers the last move, in order, with the first rule that has a
move:

1. `capture`: an opposing chain in atari among the last move's point and its
   eight neighbours is taken (the biggest);
2. `escape`: a chain of the mover's beside the last move that it left in
   atari is saved, by taking an opposing chain in atari that touches it, or
   by extending on its liberty when that leaves it two liberties or more
   and, when the board reads ladders (option ``go_ladders``), the
   extension is not caught in a ladder (`ladder.caught`);
3. `ladder` (reading ladders only): an opposing chain with two liberties
   among the last move's point and its eight neighbours is put in the atari
   that catches it in a ladder (`ladder.ladder_atari`);
4. `pattern`: an empty point among the last move's eight neighbours is
   played with the learned weight of its 3×3 pattern (`patterns`: the
   share of such points that GNU Go played), each point at most with its
   weight, none when the draw falls past their sum;
5. `heavy_random`: `light`'s random point that in addition is no
   `bad_self_atari` (a move that leaves a chain of two stones or more with
   one liberty: a lone stone may still throw in); a pass when none is left.

Every move of the heavy policy is legal and fills no own eye; the rules 1–4
also refuse a bad self-atari (a capture never is one, nor is an atari that
catches a chain in a ladder: a stone the defender could take lets it out).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.core.codes import Rollout
from player.mcts.fast.core.rng import advance, scaled
from player.mcts.fast.go.board import (
    COLOUR,
    CSIZE,
    EDGE,
    EMPTIES,
    EMPTY,
    EPOS,
    HEAD,
    NEXT,
    NO_POINT,
    S_EMPTY,
    S_LADDERS,
    S_LAST,
    S_RNG,
    S_WIDTH,
    SCALAR,
    counter_capture,
    in_atari,
    is_legal,
    is_own_eye,
    liberty,
)
from player.mcts.fast.go.ladder import caught, ladder_atari
from player.mcts.fast.go.patterns import weights

#: what a policy answers for a pass
PASS = -1
#: every 3×3 code's weight (`patterns.weights`, from the shipped ``patterns.npz``): numba
#: compiles a global array in as a constant, so the package's cache digest covers the file
WEIGHTS = weights()
#: a draw's resolution for `pattern`'s weights
_UNIT = 1 << 30


@njit(cache=True, nogil=True, inline="always")
def _draw(bd: np.ndarray, n: int) -> int:
    """A uniform int in range(n) from the board's generator (`board.S_RNG`)."""
    x = advance(np.uint64(bd[SCALAR, S_RNG]))
    bd[SCALAR, S_RNG] = np.int64(x)
    return scaled(x, n)


@njit(cache=True, nogil=True)
def _note(found: int, q: int) -> int:
    """`found` (`NO_POINT` or a liberty) after meeting liberty `q`; -2 once two differ."""
    if found in (NO_POINT, q):
        return q
    return -2


@njit(cache=True, nogil=True)
def self_atari(bd: np.ndarray, p: int, colour: int, least: int) -> bool:
    """Whether `colour` on the empty point `p` leaves its chain (of `least` stones or
    more) with one liberty or none.

    The chain's liberties after the move: `p`'s empty neighbours, the points of
    opposing chains the move takes (in atari, so `p` is their liberty), and the
    liberties besides `p` of the mover's chains it joins; counted until two differ.
    """
    width = bd[SCALAR, S_WIDTH]
    other = 3 - colour
    found = NO_POINT
    for q in (p + 1, p - 1, p + width, p - width):
        c = bd[COLOUR, q]
        if c == EMPTY or (c == other and in_atari(bd, bd[HEAD, q])):
            found = _note(found, q)
            if found == -2:
                return False
    size = 1
    h0 = h1 = h2 = NO_POINT
    for q in (p + 1, p - 1, p + width, p - width):
        if bd[COLOUR, q] != colour:
            continue
        h = bd[HEAD, q]
        if h in (h0, h1, h2):
            continue
        if h0 == NO_POINT:
            h0 = h
        elif h1 == NO_POINT:
            h1 = h
        else:
            h2 = h
        size += bd[CSIZE, h]
        s = h
        while True:  # the chain's liberties besides p
            for r in (s + 1, s - 1, s + width, s - width):
                if r != p and bd[COLOUR, r] == EMPTY:
                    found = _note(found, r)
                    if found == -2:
                        return False
            s = bd[NEXT, s]
            if s == h:
                break
    return size >= least


@njit(cache=True, nogil=True, inline="always")
def bad_self_atari(bd: np.ndarray, p: int, colour: int) -> bool:
    """A self-atari the heavy policy never plays: of a chain of two stones or more."""
    return self_atari(bd, p, colour, 2)


@njit(cache=True, nogil=True, inline="always")
def fit(bd: np.ndarray, p: int, colour: int) -> bool:
    """Whether the heavy policy may play the empty point `p`: legal, no own eye, no bad
    self-atari."""
    return (
        is_legal(bd, p, colour)
        and not is_own_eye(bd, p, colour)
        and not bad_self_atari(bd, p, colour)
    )


@njit(cache=True, nogil=True)
def capture(bd: np.ndarray, colour: int) -> int:
    """The liberty of the biggest opposing chain in atari on the last move's point or its
    eight neighbours, if `colour` may play there; else `NO_POINT`."""
    last = bd[SCALAR, S_LAST]
    if last == NO_POINT:
        return NO_POINT
    width = bd[SCALAR, S_WIDTH]
    other = 3 - colour
    best = NO_POINT
    biggest = 0
    for q in (
        last, last + 1, last - 1, last + width, last - width,
        last + width + 1, last + width - 1, last - width + 1, last - width - 1,
    ):  # fmt: skip
        if bd[COLOUR, q] != other:
            continue
        h = bd[HEAD, q]
        if bd[CSIZE, h] > biggest and in_atari(bd, h):
            p = liberty(bd, h)
            if is_legal(bd, p, colour):
                best = p
                biggest = bd[CSIZE, h]
    return best


@njit(cache=True, nogil=True)
def escape(bd: np.ndarray, colour: int) -> int:
    """A move that saves a chain of `colour`'s beside the last move and in atari: take an
    opposing chain in atari that touches it, or extend on its liberty when the chain then
    has two liberties or more (and, reading ladders, is not caught in one:
    `ladder.caught`); else `NO_POINT`."""
    last = bd[SCALAR, S_LAST]
    if last == NO_POINT:
        return NO_POINT
    width = bd[SCALAR, S_WIDTH]
    for q in (last + 1, last - 1, last + width, last - width):
        if bd[COLOUR, q] != colour:
            continue
        h = bd[HEAD, q]
        if not in_atari(bd, h):
            continue
        p = counter_capture(bd, h, colour)
        if p != NO_POINT:
            return p
        p = liberty(bd, h)
        if (
            is_legal(bd, p, colour)
            and not is_own_eye(bd, p, colour)
            and not self_atari(bd, p, colour, 1)
            and not (bd[SCALAR, S_LADDERS] and caught(bd, h, colour))
        ):
            return p
    return NO_POINT


@njit(cache=True, nogil=True)
def ladder(bd: np.ndarray, colour: int) -> int:
    """Reading ladders (`board.S_LADDERS`): the atari that catches in a ladder an opposing
    chain with two liberties on the last move's point or its eight neighbours
    (`ladder.ladder_atari`); else `NO_POINT`."""
    last = bd[SCALAR, S_LAST]
    if last == NO_POINT or not bd[SCALAR, S_LADDERS]:
        return NO_POINT
    width = bd[SCALAR, S_WIDTH]
    other = 3 - colour
    h0 = h1 = h2 = NO_POINT
    for q in (
        last, last + 1, last - 1, last + width, last - width,
        last + width + 1, last + width - 1, last - width + 1, last - width - 1,
    ):  # fmt: skip
        if bd[COLOUR, q] != other:
            continue
        h = bd[HEAD, q]
        if h in (h0, h1, h2):
            continue
        h0, h1, h2 = h, h0, h1
        p = ladder_atari(bd, h, colour)
        if p != NO_POINT:
            return p
    return NO_POINT


@njit(cache=True, nogil=True, inline="always")
def code(bd: np.ndarray, p: int, colour: int) -> int:
    """The 3×3 pattern code of point `p` for `colour` to move (`patterns`' coding)."""
    width = bd[SCALAR, S_WIDTH]
    result = 0
    shift = 0
    for q in (
        p - width - 1, p - width, p - width + 1, p - 1,
        p + 1, p + width - 1, p + width, p + width + 1,
    ):  # fmt: skip
        c = bd[COLOUR, q]
        if c == EDGE:
            v = 3
        elif c == EMPTY:
            v = 0
        elif c == colour:
            v = 1
        else:
            v = 2
        result |= v << shift
        shift += 2
    return result


@njit(cache=True, nogil=True)
def pattern(bd: np.ndarray, colour: int) -> int:
    """An empty point among the last move's eight neighbours, each fit one drawn with the
    weight of its 3×3 pattern (`WEIGHTS`; scaled down to a sum of 1 if they sum to
    more); `NO_POINT` when the draw falls past them."""
    last = bd[SCALAR, S_LAST]
    if last == NO_POINT:
        return NO_POINT
    width = bd[SCALAR, S_WIDTH]
    total = 0.0
    for q in (
        last + 1, last - 1, last + width, last - width,
        last + width + 1, last + width - 1, last - width + 1, last - width - 1,
    ):  # fmt: skip
        if bd[COLOUR, q] == EMPTY:
            total += WEIGHTS[code(bd, q, colour)]
    if total <= 0.0:
        return NO_POINT
    x = _draw(bd, _UNIT) / _UNIT * max(total, 1.0)
    if x >= total:
        return NO_POINT
    for q in (
        last + 1, last - 1, last + width, last - width,
        last + width + 1, last + width - 1, last - width + 1, last - width - 1,
    ):  # fmt: skip
        if bd[COLOUR, q] == EMPTY:
            x -= WEIGHTS[code(bd, q, colour)]
            if x < 0.0:
                return q if fit(bd, q, colour) else NO_POINT
    return NO_POINT


@njit(cache=True, nogil=True, inline="always")
def _sample(bd: np.ndarray, colour: int, heavy: bool) -> int:
    """A uniformly random empty point that `light` (or, `heavy`, `fit`) accepts, or `PASS`.

    A point found unfit is swapped to the end of the candidates (the empty
    list's order changes; the list stays a list of the empty points).
    """
    count = bd[SCALAR, S_EMPTY]
    while count > 0:
        i = _draw(bd, count)
        p = bd[EMPTIES, i]
        if (
            not is_own_eye(bd, p, colour)
            and is_legal(bd, p, colour)
            and not (heavy and bad_self_atari(bd, p, colour))
        ):
            return int(p)
        count -= 1
        last = bd[EMPTIES, count]
        bd[EMPTIES, i] = last
        bd[EPOS, last] = i
        bd[EMPTIES, count] = p
        bd[EPOS, p] = count
    return PASS


@njit(cache=True, nogil=True, inline="always")
def light(bd: np.ndarray, colour: int) -> int:
    """A uniformly random legal point of `colour` that is not its own eye, or `PASS`."""
    return _sample(bd, colour, False)


@njit(cache=True, nogil=True)
def heavy_random(bd: np.ndarray, colour: int) -> int:
    """`light`'s choice that is also no `bad_self_atari`, or `PASS`."""
    return _sample(bd, colour, True)


@njit(cache=True, nogil=True)
def heavy(bd: np.ndarray, colour: int) -> int:
    """The heavy policy's move: `capture`, `escape`, `ladder`, `pattern`, else
    `heavy_random`."""
    p = capture(bd, colour)
    if p == NO_POINT:
        p = escape(bd, colour)
    if p == NO_POINT:
        p = ladder(bd, colour)
    if p == NO_POINT:
        p = pattern(bd, colour)
    if p == NO_POINT:
        p = heavy_random(bd, colour)
    return p


@njit(cache=True, nogil=True, inline="always")
def choose(bd: np.ndarray, colour: int, policy: int) -> int:
    """The next playout move of `colour` (a grid point, or `PASS`) under `policy`
    (a `codes.Rollout`): `light` for `Rollout.RANDOM`, else `heavy`."""
    if policy == Rollout.RANDOM:
        return light(bd, colour)
    return heavy(bd, colour)
