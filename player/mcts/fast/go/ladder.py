"""Ladder reading (shicho) on Go's playout board: is a chain caught by a ladder?

Why: a playout that extends every chain in atari plays the ladder out to
its end, and loses the chain there, while the opponent that reads it (GNU
Go) either never extends or starts the ladder on purpose. Reading it is a
short forced line: the defender has one move (extend, or take an attacker
chain in atari beside it), the attacker one of two (an atari on either
liberty), so a bounded read per question answers it.

The read (`caught`), from the defender's chain in atari with the defender
to move:

1. if an attacker chain in atari touches the chain, the defender takes it
   and escapes (a counter-capture counts as an escape);
2. else the defender extends on its liberty; then one liberty (or an
   illegal extension) is captured, three or more escaped;
3. with exactly two, the attacker ataris on the one that leaves the other,
   the defender's next extension, the fewest new liberties (the standard
   choice: one line of play, not a tree), and the read goes on at 1;
4. at most ``2 · N`` rounds (a ladder crosses the board once); a read that
   runs out counts as an escape.

`ladder_atari` asks the attacker's question: of a chain with exactly two
liberties, which atari starts a ladder that catches it.

The board has no undo, so a read plays on the board's scratch rows
(`board.SCRATCH`): a copy made once per read, with `board.place` for the
moves. A read never changes the board itself.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.go.board import (
    COLOUR,
    CSIZE,
    EMPTIES,
    EMPTY,
    EPOS,
    HEAD,
    LIBS,
    LSQ,
    LSUM,
    NEXT,
    NO_POINT,
    S_EMPTY,
    S_N,
    S_WIDTH,
    SCALAR,
    SCRATCH,
    counter_capture,
    in_atari,
    is_legal,
    liberty,
    place,
)

#: the scalars a read needs (`board.S_*`: the empty count, ko, width, N)
_SCALARS = 4


@njit(cache=True, nogil=True)
def liberties(bd: np.ndarray, head: int) -> tuple[int, int, int]:
    """The distinct liberties of the chain of `head`, counted up to 3, and the first two
    found (`NO_POINT` for those it lacks)."""
    if in_atari(bd, head):
        return 1, liberty(bd, head), NO_POINT
    width = bd[SCALAR, S_WIDTH]
    a = b = NO_POINT
    s = head
    while True:
        for q in (s + 1, s - 1, s + width, s - width):
            if bd[COLOUR, q] == EMPTY and q != a and q != b:
                if a == NO_POINT:
                    a = q
                elif b == NO_POINT:
                    b = q
                else:
                    return 3, a, b
        s = bd[NEXT, s]
        if s == head:
            return 2, a, b


@njit(cache=True, nogil=True)
def scratch(bd: np.ndarray) -> np.ndarray:
    """The board's scratch rows holding a copy of the board: what `board.place` and the
    read use (every colour, the border's included; the chains, liberties and empty
    positions of the points inside the border; the empty list; the scalars)."""
    sb = bd[SCRATCH:]
    width = bd[SCALAR, S_WIDTH]
    sb[COLOUR] = bd[COLOUR]
    inside = width * width - width - 1
    for r in (HEAD, NEXT, LIBS, LSUM, LSQ, CSIZE, EPOS):
        sb[r, width + 1 : inside] = bd[r, width + 1 : inside]
    count = bd[SCALAR, S_EMPTY]
    sb[EMPTIES, :count] = bd[EMPTIES, :count]
    for i in range(_SCALARS):
        sb[SCALAR, i] = bd[SCALAR, i]
    return sb


@njit(cache=True, nogil=True, inline="always")
def _gain(bd: np.ndarray, y: int, x: int) -> int:
    """The empty neighbours of `y` besides `x`: the liberties an extension on `y` finds
    once the attacker holds `x`."""
    width = bd[SCALAR, S_WIDTH]
    gain = 0
    for q in (y + 1, y - 1, y + width, y - width):
        if q != x and bd[COLOUR, q] == EMPTY:
            gain += 1
    return gain


@njit(cache=True, nogil=True)
def _atari(sb: np.ndarray, a: int, b: int, attacker: int) -> int:
    """The attacker's atari on a chain with the two liberties `a` and `b`: the legal one
    that leaves the defender's extension the fewest new liberties (ties: the one whose
    stone has more room); `NO_POINT` if neither is legal or each lets it out."""
    width = sb[SCALAR, S_WIDTH]
    best = NO_POINT
    best_gain = 2  # three new liberties: the defender is out
    best_room = -1
    for x, y in ((a, b), (b, a)):
        if not is_legal(sb, x, attacker):
            continue
        gain = _gain(sb, y, x)
        if gain > best_gain:
            continue
        room = 0
        for q in (x + 1, x - 1, x + width, x - width):
            if sb[COLOUR, q] == EMPTY:
                room += 1
        if gain < best_gain or room > best_room:  # gain == best_gain: the room decides
            best, best_gain, best_room = x, gain, room
    return best


@njit(cache=True, nogil=True)
def _chase(sb: np.ndarray, stone: int, defender: int) -> bool:
    """Play the ladder out on the scratch board `sb` from the defender's chain of `stone`
    in atari, the defender to move: whether the attacker captures it."""
    attacker = 3 - defender
    for _ in range(2 * sb[SCALAR, S_N]):
        head = sb[HEAD, stone]
        if counter_capture(sb, head, defender) != NO_POINT:
            return False
        p = liberty(sb, head)
        if not is_legal(sb, p, defender):
            return True
        place(sb, p, defender)
        count, a, b = liberties(sb, sb[HEAD, stone])
        if count == 1:
            return True
        if count >= 3:
            return False
        x = _atari(sb, a, b, attacker)
        if x == NO_POINT:
            return False
        place(sb, x, attacker)
    return False


@njit(cache=True, nogil=True)
def caught(bd: np.ndarray, head: int, defender: int) -> bool:
    """Whether the `defender`'s chain of `head`, in atari and the defender to move, is
    captured by a ladder (read on the scratch board; `bd` is left as it is)."""
    return _chase(scratch(bd), head, defender)


@njit(cache=True, nogil=True)
def ladder_atari(bd: np.ndarray, head: int, attacker: int) -> int:
    """The liberty of the opposing chain of `head` (exactly two liberties, `attacker` to
    move) where the attacker's atari catches it in a ladder; `NO_POINT` if neither does
    (or the chain has another count of liberties)."""
    count, a, b = liberties(bd, head)
    if count != 2:
        return NO_POINT
    defender = 3 - attacker
    for x, y in ((a, b), (b, a)):
        if _gain(bd, y, x) >= 3 or not is_legal(bd, x, attacker):
            continue  # the extension on y has three liberties at once
        sb = scratch(bd)
        place(sb, x, attacker)
        if sb[COLOUR, head] == defender and _chase(sb, head, defender):
            return x
    return NO_POINT
