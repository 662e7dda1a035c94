"""Go's playing board for the compiled playouts: a padded mailbox with incremental chains.

Why a second representation beside the tree's row (`kernel`): a node's row
must be small (bits), while a playout plays hundreds of moves and needs
each one's legality, captures and eye test in a few operations. `load`
builds this board from a row once per playout; then every move is
incremental:

- a point is an index into an (N+2)×(N+2) grid whose border is `EDGE`, so
  the four neighbours of ``p`` are ``p ± 1`` and ``p ± (N + 2)`` with no
  bounds test;
- a chain is a circular list of its stones (row `NEXT`) whose stones all
  name one head (`HEAD`); the head holds the chain's size and its
  pseudo-liberties: the number of (stone, empty neighbour) pairs, their sum
  and their sum of squares (`LIBS`, `LSUM`, `LSQ`). A chain is captured
  when the count reaches 0, and it is in atari (every pair names the same
  point) exactly when ``count · squares == sum²``: legality, captures and
  ataris need no liberty sets, and a heavy policy can ask `in_atari` for free;
- the empty points are a list (`EMPTIES`, with each point's index in it in
  `EPOS`): a uniform random choice and O(1) updates.

The board is one int64 array of rows (`FIELDS` × points), its last row the
scalars (`S_*`: the empty count, the simple-ko point, the grid width, N, the
random generator's state): one array, so a policy (`policy`) reads and a
later one may extend it without new arguments, and a call in the playout's
loop costs one reference count, not three (measured: about a fifth of the
playout's time on 9×9 went to counting references to three arrays).
Colours: `EMPTY`, `BLACK` (seat 0 + 1), `WHITE` (seat 1 + 1), `EDGE`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.core.codes import DRAW
from player.mcts.fast.go.config import KOMI2, LADDERS, SIZE, WORDS

EMPTY, BLACK, WHITE, EDGE = 0, 1, 2, 3
#: the rows of the board array, one entry per grid point ...
COLOUR, HEAD, NEXT, LIBS, LSUM, LSQ, CSIZE, EMPTIES, EPOS, MARK, STACK = range(11)
#: ... and the row of scalars: the empty points listed, the point simple ko forbids
#: (`NO_POINT`: none), the grid's width, the board side N, the playout's generator
#: state (`core.rng`'s, as int64 bits), the last move's point (`NO_POINT`: a pass
#: or none; for a policy that answers the last move), and whether the heavy policy
#: reads ladders (`config.LADDERS`, 0 or 1)
SCALAR = 11
S_EMPTY, S_KO, S_WIDTH, S_N, S_RNG, S_LAST, S_LADDERS = range(7)
FIELDS = 12
#: the rows from `SCRATCH` on are a second board of `FIELDS` rows, a copy that a reader
#: (`ladder`) plays moves on without touching the board: one allocation per board, not
#: one per reading
SCRATCH = FIELDS
NO_POINT = -1


@njit(cache=True, nogil=True)
def new_board(cfg: np.ndarray) -> np.ndarray:
    """An uninitialised board for `cfg`'s size (fill it with `load`), with its scratch
    board (the rows from `SCRATCH` on)."""
    width = cfg[SIZE] + 2
    return np.empty((2 * FIELDS, width * width), dtype=np.int64)


@njit(cache=True, nogil=True)
def grid(n: int, move: int) -> int:
    """The grid point of board point `move` (``row * n + col``)."""
    row = move // n
    return move + n + 3 + 2 * row


@njit(cache=True, nogil=True)
def point(n: int, p: int) -> int:
    """The board point (``row * n + col``) of grid point `p`."""
    width = n + 2
    return (p // width - 1) * n + p % width - 1


@njit(cache=True, nogil=True)
def load_colours(cfg: np.ndarray, st: np.ndarray, bd: np.ndarray) -> None:
    """The colours of the row `st`'s points, the border, and the list of empty points."""
    n = cfg[SIZE]
    words = cfg[WORDS]
    width = n + 2
    for p in range(width * width):
        bd[COLOUR, p] = EDGE
    count = 0
    for row in range(n):
        for col in range(n):
            m = row * n + col
            p = (row + 1) * width + col + 1
            word, bit = m >> 6, m & 63
            if (st[word] >> bit) & 1:
                bd[COLOUR, p] = BLACK
            elif (st[words + word] >> bit) & 1:
                bd[COLOUR, p] = WHITE
            else:
                bd[COLOUR, p] = EMPTY
                bd[EMPTIES, count] = p
                bd[EPOS, p] = count
                count += 1
    bd[SCALAR, S_EMPTY] = count
    bd[SCALAR, S_KO] = NO_POINT
    bd[SCALAR, S_WIDTH] = width
    bd[SCALAR, S_N] = n


@njit(cache=True, nogil=True)
def load(cfg: np.ndarray, st: np.ndarray, bd: np.ndarray, ko: int, last: int) -> None:
    """Fill the board from the row `st`: colours, chains with their pseudo-liberties,
    the empty list, the simple-ko point `ko` and the `last` move (board points, or
    negative: none), and `cfg`'s ladder switch."""
    load_colours(cfg, st, bd)
    bd[SCALAR, S_LADDERS] = cfg[LADDERS]
    n = bd[SCALAR, S_N]
    width = bd[SCALAR, S_WIDTH]
    if ko >= 0:
        bd[SCALAR, S_KO] = grid(n, ko)
    bd[SCALAR, S_LAST] = grid(n, last) if last >= 0 else NO_POINT
    for p in range(width * width):
        bd[HEAD, p] = NO_POINT
    for p in range(width * width):
        colour = bd[COLOUR, p]
        if (colour != BLACK and colour != WHITE) or bd[HEAD, p] != NO_POINT:
            continue
        # a flood fill of p's chain: link its stones after the head, count pseudo-liberties
        bd[HEAD, p] = p
        bd[NEXT, p] = p
        size = libs = lsum = lsq = 0
        top = 0
        bd[STACK, 0] = p
        top = 1
        while top > 0:
            top -= 1
            s = bd[STACK, top]
            size += 1
            for q in (s + 1, s - 1, s + width, s - width):
                c = bd[COLOUR, q]
                if c == EMPTY:
                    libs += 1
                    lsum += q
                    lsq += q * q
                elif c == colour and bd[HEAD, q] == NO_POINT:
                    bd[HEAD, q] = p
                    bd[NEXT, q] = bd[NEXT, p]
                    bd[NEXT, p] = q
                    bd[STACK, top] = q
                    top += 1
        bd[CSIZE, p] = size
        bd[LIBS, p] = libs
        bd[LSUM, p] = lsum
        bd[LSQ, p] = lsq


@njit(cache=True, nogil=True, inline="always")
def in_atari(bd: np.ndarray, head: int) -> bool:
    """Whether the chain of `head` has one liberty (all its pseudo-liberties are one point)."""
    s = bd[LSUM, head]
    return bool(bd[LIBS, head] * bd[LSQ, head] == s * s)


@njit(cache=True, nogil=True, inline="always")
def liberty(bd: np.ndarray, head: int) -> int:
    """The one liberty of a chain in atari (every pseudo-liberty names it)."""
    return int(bd[LSUM, head] // bd[LIBS, head])


@njit(cache=True, nogil=True, inline="always")
def is_legal(bd: np.ndarray, p: int, colour: int) -> bool:
    """Whether `colour` may play on the empty point `p`: not the ko point, not suicide."""
    if p == bd[SCALAR, S_KO]:
        return False
    width = bd[SCALAR, S_WIDTH]
    for q in (p + 1, p - 1, p + width, p - width):
        if bd[COLOUR, q] == EMPTY:
            return True
    for q in (p + 1, p - 1, p + width, p - width):
        c = bd[COLOUR, q]
        if c == EDGE:
            continue
        atari = in_atari(bd, bd[HEAD, q])
        if c == colour:
            if not atari:  # the chain keeps a liberty besides p
                return True
        elif atari:  # p captures it
            return True
    return False


@njit(cache=True, nogil=True, inline="always")
def is_own_eye(bd: np.ndarray, p: int, colour: int) -> bool:
    """The playouts' eye rule (as `games.go.Go.playout`): every neighbour of the empty
    point `p` is `colour`'s, and at most one diagonal point is the opponent's (none when
    `p` is on the edge)."""
    width = bd[SCALAR, S_WIDTH]
    edge = False
    for q in (p + 1, p - 1, p + width, p - width):
        c = bd[COLOUR, q]
        if c == EDGE:
            edge = True
        elif c != colour:
            return False
    enemy = 0
    other = 3 - colour
    for q in (p + width + 1, p + width - 1, p - width + 1, p - width - 1):
        if bd[COLOUR, q] == other:
            enemy += 1
    return enemy == 0 or (not edge and enemy == 1)


@njit(cache=True, nogil=True)
def counter_capture(bd: np.ndarray, head: int, colour: int) -> int:
    """The liberty of an opposing chain in atari that touches the chain of `head` (taking
    it gives that chain a liberty), if `colour` may play there; else `NO_POINT`."""
    width = bd[SCALAR, S_WIDTH]
    other = 3 - colour
    s = head
    while True:
        for q in (s + 1, s - 1, s + width, s - width):
            if bd[COLOUR, q] == other:
                h = bd[HEAD, q]
                if in_atari(bd, h):
                    p = liberty(bd, h)
                    if is_legal(bd, p, colour):
                        return p
        s = bd[NEXT, s]
        if s == head:
            return NO_POINT


@njit(cache=True, nogil=True)
def _merge(bd: np.ndarray, a: int, b: int) -> int:
    """Join the chains of heads `a` and `b` (the larger keeps its head); the new head."""
    if bd[CSIZE, a] < bd[CSIZE, b]:
        a, b = b, a
    s = b
    while True:
        bd[HEAD, s] = a
        s = bd[NEXT, s]
        if s == b:
            break
    after_a = bd[NEXT, a]
    bd[NEXT, a] = bd[NEXT, b]
    bd[NEXT, b] = after_a
    bd[CSIZE, a] += bd[CSIZE, b]
    bd[LIBS, a] += bd[LIBS, b]
    bd[LSUM, a] += bd[LSUM, b]
    bd[LSQ, a] += bd[LSQ, b]
    return a


@njit(cache=True, nogil=True)
def _remove(bd: np.ndarray, head: int, capturer: int) -> None:
    """Take the chain of `head` off the board: its points become empty liberties of the
    `capturer`'s chains around it."""
    width = bd[SCALAR, S_WIDTH]
    count = bd[SCALAR, S_EMPTY]
    s = head
    while True:
        bd[COLOUR, s] = EMPTY
        bd[EMPTIES, count] = s
        bd[EPOS, s] = count
        count += 1
        for q in (s + 1, s - 1, s + width, s - width):
            if bd[COLOUR, q] == capturer:
                h = bd[HEAD, q]
                bd[LIBS, h] += 1
                bd[LSUM, h] += s
                bd[LSQ, h] += s * s
        s = bd[NEXT, s]
        if s == head:
            break
    bd[SCALAR, S_EMPTY] = count


@njit(cache=True, nogil=True, inline="always")
def place(bd: np.ndarray, p: int, colour: int) -> int:
    """Play `colour` on the empty point `p` (a legal move): merge, capture, set the ko
    point. Returns the number of stones captured."""
    width = bd[SCALAR, S_WIDTH]
    # off the empty list: the last entry takes p's place
    i = bd[EPOS, p]
    count = bd[SCALAR, S_EMPTY] - 1
    moved = bd[EMPTIES, count]
    bd[EMPTIES, i] = moved
    bd[EPOS, moved] = i
    bd[SCALAR, S_EMPTY] = count
    bd[COLOUR, p] = colour
    bd[HEAD, p] = p
    bd[NEXT, p] = p
    bd[CSIZE, p] = 1
    libs = lsum = lsq = 0
    for q in (p + 1, p - 1, p + width, p - width):
        c = bd[COLOUR, q]
        if c == EMPTY:
            libs += 1
            lsum += q
            lsq += q * q
        elif c != EDGE:  # a chain that touches p loses that pseudo-liberty
            h = bd[HEAD, q]
            bd[LIBS, h] -= 1
            bd[LSUM, h] -= p
            bd[LSQ, h] -= p * p
    bd[LIBS, p] = libs
    bd[LSUM, p] = lsum
    bd[LSQ, p] = lsq
    head = p
    for q in (p + 1, p - 1, p + width, p - width):
        if bd[COLOUR, q] == colour:
            h = bd[HEAD, q]
            if h != head:
                head = _merge(bd, head, h)
    other = 3 - colour
    captured = 0
    taken = NO_POINT
    for q in (p + 1, p - 1, p + width, p - width):
        if bd[COLOUR, q] == other:
            h = bd[HEAD, q]
            if bd[LIBS, h] == 0:
                captured += bd[CSIZE, h]
                taken = q
                _remove(bd, h, colour)
    # simple ko: one stone taken by a lone stone left with that one liberty
    if captured == 1 and bd[CSIZE, head] == 1 and bd[LIBS, head] == 1:
        bd[SCALAR, S_KO] = taken
    else:
        bd[SCALAR, S_KO] = NO_POINT
    return captured


@njit(cache=True, nogil=True)
def area(bd: np.ndarray) -> tuple[int, int]:
    """Black's and White's area as the board stands (Tromp–Taylor): stones, plus each
    empty region that touches stones of one colour only."""
    width = bd[SCALAR, S_WIDTH]
    n = bd[SCALAR, S_N]
    black = white = 0
    for row in range(1, n + 1):
        for p in range(row * width + 1, row * width + n + 1):
            c = bd[COLOUR, p]
            if c == BLACK:
                black += 1
            elif c == WHITE:
                white += 1
            bd[MARK, p] = 0
    for i in range(bd[SCALAR, S_EMPTY]):
        start = bd[EMPTIES, i]
        if bd[MARK, start]:
            continue
        bd[MARK, start] = 1
        bd[STACK, 0] = start
        top = 1
        size = 0
        borders = 0  # bit 1: touches Black, bit 2: touches White
        while top > 0:
            top -= 1
            s = bd[STACK, top]
            size += 1
            for q in (s + 1, s - 1, s + width, s - width):
                c = bd[COLOUR, q]
                if c == EMPTY:
                    if not bd[MARK, q]:
                        bd[MARK, q] = 1
                        bd[STACK, top] = q
                        top += 1
                elif c != EDGE:
                    borders |= c
        if borders == BLACK:
            black += size
        elif borders == WHITE:
            white += size
    return black, white


@njit(cache=True, nogil=True)
def winner(cfg: np.ndarray, black: int, white: int) -> int:
    """The seat that wins with these areas and `cfg`'s komi, or `codes.DRAW`."""
    margin2 = 2 * (black - white) - cfg[KOMI2]
    if margin2 > 0:
        return 0
    if margin2 < 0:
        return 1
    return DRAW
