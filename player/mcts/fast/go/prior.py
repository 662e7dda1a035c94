"""Go's prior for the compiled tree: virtual visits and wins for a node's new children.

Why: a new node's children start equal, and the tree spends its first
visits of each on moves any player would discard (a pass on an empty board,
a stone on the first line of an empty area, a self-atari) while it has not
yet met the moves that matter (taking a chain in atari, saving one). The
same knowledge as the heavy playout (`policy`: its rules and its learned
3×3 patterns), read once per expansion, gives the children a head start:
the core (the prior hook, `Kernel(..., prior=...)`) adds ``visits[k]``
virtual visits and ``wins[k]`` virtual wins, for the side to move, to the
child of ``moves[k]``.

Each rule adds visits and wins (a share below 1/2 is a virtual loss, above
a virtual win); a move that none concerns gets none:

- `PASS` while more than half the board is empty: `PASS_VISITS`, no win;
- a move that fills the mover's own eye, or is a self-atari of two stones
  or more: `BAD_VISITS`, no win;
- a capture of an opposing chain in atari: `CAPTURE_VISITS` all won (twice
  as many for two stones or more);
- an escape (the liberty of the mover's chain in atari, leaving it two
  liberties or more): `ESCAPE_VISITS` all won; reading ladders (option
  ``go_ladders``), none won when a ladder catches the chain (`ladder.caught`);
- reading ladders: an atari that catches an opposing chain of two liberties
  in a ladder (`ladder.ladder_atari`, any chain on the board):
  `LADDER_VISITS` all won;
- a point among the last move's eight neighbours: `NEAR_VISITS` won by the
  share ``0.5 + 2 × weight`` (at most 1) of its learned 3×3 pattern (an
  unseen pattern: even);
- a point of an empty area (no stone within two lines either way) on the
  first or second line: `EDGE_VISITS` with `FIRST_SHARE` or `SECOND_SHARE`
  won; on the third line: with `THIRD_SHARE` won.

All of it times the config's weight (`config.PRIOR`, option ``go_prior``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.go import board
from player.mcts.fast.go.config import LADDERS, PRIOR, SIZE
from player.mcts.fast.go.kernel import ko_of, last_of, to_move
from player.mcts.fast.go.ladder import caught, ladder_atari
from player.mcts.fast.go.policy import WEIGHTS, bad_self_atari, code, self_atari

PASS = -1
PASS_VISITS = 20
BAD_VISITS = 20
CAPTURE_VISITS = 10
ESCAPE_VISITS = 10
LADDER_VISITS = 10
#: `ladders`' marks on a point: an atari that catches a chain, an escape that a ladder catches
LADDER_ATARI, CAUGHT_ESCAPE = 1, 2
NEAR_VISITS = 10
EDGE_VISITS = 10
FIRST_SHARE, SECOND_SHARE, THIRD_SHARE = 0.0, 0.3, 0.7


@njit(cache=True, nogil=True)
def captured(bd: np.ndarray, p: int, colour: int) -> int:
    """The stones `colour` on the empty point `p` takes (each chain counted once)."""
    width = bd[board.SCALAR, board.S_WIDTH]
    other = 3 - colour
    total = 0
    h0 = h1 = h2 = board.NO_POINT
    for q in (p + 1, p - 1, p + width, p - width):
        if bd[board.COLOUR, q] != other:
            continue
        h = bd[board.HEAD, q]
        if h in (h0, h1, h2) or not board.in_atari(bd, h):
            continue
        if h0 == board.NO_POINT:
            h0 = h
        elif h1 == board.NO_POINT:
            h1 = h
        else:
            h2 = h
        total += bd[board.CSIZE, h]
    return total


@njit(cache=True, nogil=True)
def escapes(bd: np.ndarray, p: int, colour: int) -> bool:
    """Whether `p` is the liberty of a chain of `colour`'s in atari and playing it leaves
    that chain two liberties or more."""
    width = bd[board.SCALAR, board.S_WIDTH]
    saves = False
    for q in (p + 1, p - 1, p + width, p - width):
        if bd[board.COLOUR, q] == colour and board.in_atari(bd, bd[board.HEAD, q]):
            saves = True
    return saves and not self_atari(bd, p, colour, 1)


@njit(cache=True, nogil=True)
def empty_area(bd: np.ndarray, n: int, row: int, col: int) -> bool:
    """Whether no stone lies within two lines of (`row`, `col`) either way."""
    width = bd[board.SCALAR, board.S_WIDTH]
    for r in range(max(0, row - 2), min(n, row + 3)):
        for c in range(max(0, col - 2), min(n, col + 3)):
            colour = bd[board.COLOUR, (r + 1) * width + c + 1]
            if colour == board.BLACK or colour == board.WHITE:
                return False
    return True


@njit(cache=True, nogil=True)
def near(bd: np.ndarray, p: int, last: int) -> bool:
    """Whether the grid point `p` is one of the eight neighbours of `last`."""
    if last == board.NO_POINT:
        return False
    width = bd[board.SCALAR, board.S_WIDTH]
    d = p - last
    return d == 1 or d == -1 or d == width or d == -width or abs(abs(d) - width) == 1


@njit(cache=True, nogil=True)
def ladders(bd: np.ndarray, colour: int) -> None:
    """Mark (the board's `board.MARK` row) each point where `colour`'s atari catches an
    opposing chain in a ladder (`LADDER_ATARI`), and the liberty of each of `colour`'s
    chains in atari that a ladder catches, with no counter-capture (`CAUGHT_ESCAPE`)."""
    width = bd[board.SCALAR, board.S_WIDTH]
    for p in range(width * width):
        bd[board.MARK, p] = 0
    other = 3 - colour
    for p in range(width * width):
        c = bd[board.COLOUR, p]
        if (c != board.BLACK and c != board.WHITE) or bd[board.HEAD, p] != p:
            continue
        if c == other:
            x = ladder_atari(bd, p, colour)
            if x != board.NO_POINT:
                bd[board.MARK, x] |= LADDER_ATARI
        elif (
            board.in_atari(bd, p)
            and board.counter_capture(bd, p, colour) == board.NO_POINT
            and caught(bd, p, colour)
        ):
            bd[board.MARK, board.liberty(bd, p)] |= CAUGHT_ESCAPE


@njit(cache=True, nogil=True)
def prior(
    cfg: np.ndarray,
    st: np.ndarray,
    moves: np.ndarray,
    count: int,
    visits: np.ndarray,
    wins: np.ndarray,
) -> None:
    """Virtual `visits` and `wins` (for the side to move at `st`) of the children reached
    by ``moves[:count]`` (points and `PASS`)."""
    n = cfg[SIZE]
    bd = board.new_board(cfg)
    board.load(cfg, st, bd, ko_of(cfg, st), last_of(cfg, st))
    colour = to_move(cfg, st) + 1
    last = bd[board.SCALAR, board.S_LAST]
    crowded = 2 * bd[board.SCALAR, board.S_EMPTY] <= n * n
    scale = cfg[PRIOR] / 100.0
    reads = cfg[LADDERS] != 0
    if reads:
        ladders(bd, colour)
    for k in range(count):
        m = moves[k]
        v = 0.0
        w = 0.0
        if m < 0:
            if not crowded:
                v = PASS_VISITS
        else:
            p = board.grid(n, m)
            if board.is_own_eye(bd, p, colour) or bad_self_atari(bd, p, colour):
                v = BAD_VISITS
            else:
                taken = captured(bd, p, colour)
                if taken > 0:
                    extra = 2 if taken > 1 else 1
                    v += extra * CAPTURE_VISITS
                    w += extra * CAPTURE_VISITS
                mark = bd[board.MARK, p] if reads else 0
                if escapes(bd, p, colour):
                    v += ESCAPE_VISITS
                    if not mark & CAUGHT_ESCAPE:
                        w += ESCAPE_VISITS
                if mark & LADDER_ATARI:
                    v += LADDER_VISITS
                    w += LADDER_VISITS
                if near(bd, p, last):
                    v += NEAR_VISITS
                    w += NEAR_VISITS * min(1.0, 0.5 + 2.0 * WEIGHTS[code(bd, p, colour)])
                row, col = m // n, m % n
                line = min(min(row, col), min(n - 1 - row, n - 1 - col))
                if line <= 2 and empty_area(bd, n, row, col):
                    share = FIRST_SHARE if line == 0 else SECOND_SHARE if line == 1 else THIRD_SHARE
                    v += EDGE_VISITS
                    w += EDGE_VISITS * share
        visits[k] = np.int32(v * scale)
        wins[k] = min(w * scale, float(visits[k]))
