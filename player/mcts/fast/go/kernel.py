"""Go kernel for the compiled search: the rules on a node's row, and the light playouts.

Row and config: `config` (a 9×9 node's state is 40 bytes, a 19×19 node's
104). Moves are ``row * N + col`` as in `games.go`, and `PASS` (-1).

The rules here are `games.go.Go`'s with simple ko in place of positional
superko: a move may not retake a ko at once (one stone taken by a lone stone
left with that one liberty); any other repetition is the rules' business.
So the kernel's legal moves are the rules' plus, at most, moves that repeat
an earlier position; the search drops those at its root by asking the rules
(`Adapter.rules_bound`), so the move played is always the rules'. Two passes
in a row or the move cap end the game, scored by area with komi
(`board.area`, `board.winner`) as `Go.score` does.

On the row, `legal` and `play` work on the bits (a chain is followed only
when a point has no empty neighbour, or a neighbouring opposing stone has
none); `rollout` builds the incremental `board` once and plays `policy`'s
moves on it (`playout`, which can also record the moves: `rollout_amaf`, for RAVE).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from games.go import NO_MOVE, Go, GoState
from player.mcts.fast.core.codes import DRAW, ONGOING
from player.mcts.fast.go import board
from player.mcts.fast.go.config import (
    CAP,
    KO_BITS,
    KO_SHIFT,
    LAST_BITS,
    LAST_SHIFT,
    NEIGHBOURS,
    PASSES_BITS,
    PASSES_SHIFT,
    PLY_BITS,
    PLY_SHIFT,
    SIZE,
    STATUS_BITS,
    STATUS_SHIFT,
    WORDS,
    words,
)
from player.mcts.fast.go.policy import choose

PASS = -1


# --- the INFO word ---------------------------------------------------------------


@njit(cache=True, nogil=True)
def _field(info: int, shift: int, bits: int) -> int:
    return (info >> shift) & ((1 << bits) - 1)


@njit(cache=True, nogil=True)
def pack(ply: int, passes: int, ko: int, last: int, status: int) -> int:
    """The INFO word: `ko` a point or -1, `last` a move, `PASS` or -2 (none yet)."""
    return (
        (ply << PLY_SHIFT)
        | (passes << PASSES_SHIFT)
        | ((ko + 1) << KO_SHIFT)
        | ((last + 2) << LAST_SHIFT)
        | ((status + 1) << STATUS_SHIFT)
    )


@njit(cache=True, nogil=True)
def ply_of(cfg: np.ndarray, st: np.ndarray) -> int:
    return _field(st[2 * cfg[WORDS]], PLY_SHIFT, PLY_BITS)


@njit(cache=True, nogil=True)
def passes_of(cfg: np.ndarray, st: np.ndarray) -> int:
    return _field(st[2 * cfg[WORDS]], PASSES_SHIFT, PASSES_BITS)


@njit(cache=True, nogil=True)
def ko_of(cfg: np.ndarray, st: np.ndarray) -> int:
    """The point the side to move may not play (simple ko), or -1."""
    return _field(st[2 * cfg[WORDS]], KO_SHIFT, KO_BITS) - 1


@njit(cache=True, nogil=True)
def last_of(cfg: np.ndarray, st: np.ndarray) -> int:
    """The last move: a point, `PASS`, or -2 before the first move."""
    return _field(st[2 * cfg[WORDS]], LAST_SHIFT, LAST_BITS) - 2


# --- the kernel's functions ------------------------------------------------------


@njit(cache=True, nogil=True)
def to_move(cfg: np.ndarray, st: np.ndarray) -> int:
    return ply_of(cfg, st) & 1


@njit(cache=True, nogil=True)
def status(cfg: np.ndarray, st: np.ndarray) -> int:
    return _field(st[2 * cfg[WORDS]], STATUS_SHIFT, STATUS_BITS) - 1


@njit(cache=True, nogil=True)
def _stone(st: np.ndarray, offset: int, m: int) -> bool:
    return bool((st[offset + (m >> 6)] >> (m & 63)) & 1 != 0)


@njit(cache=True, nogil=True)
def _empty(st: np.ndarray, words: int, m: int) -> bool:
    word = m >> 6
    return bool(((st[word] | st[words + word]) >> (m & 63)) & 1 == 0)


@njit(cache=True, nogil=True)
def _touches_empty(cfg: np.ndarray, st: np.ndarray, m: int, skip: int) -> bool:
    """Whether point `m` has an empty neighbour other than `skip`."""
    words = cfg[WORDS]
    at = NEIGHBOURS + 4 * m
    for k in range(4):
        q = cfg[at + k]
        if q < 0:
            break
        if q != skip and _empty(st, words, q):
            return True
    return False


@njit(cache=True, nogil=True)
def _has_liberty(cfg: np.ndarray, st: np.ndarray, start: int, offset: int, skip: int) -> bool:
    """Whether the chain of `start` (stones in the words at `offset`) has an empty
    neighbour other than `skip`."""
    if _touches_empty(cfg, st, start, skip):
        return True
    n = cfg[SIZE]
    seen = np.zeros(cfg[WORDS], dtype=np.int64)
    stack = np.empty(n * n, dtype=np.int64)
    seen[start >> 6] |= 1 << (start & 63)
    stack[0] = start
    top = 1
    while top > 0:
        top -= 1
        s = stack[top]
        if _touches_empty(cfg, st, s, skip):
            return True
        at = NEIGHBOURS + 4 * s
        for k in range(4):
            q = cfg[at + k]
            if q < 0:
                break
            if _stone(st, offset, q) and not (seen[q >> 6] >> (q & 63)) & 1:
                seen[q >> 6] |= 1 << (q & 63)
                stack[top] = q
                top += 1
    return False


@njit(cache=True, nogil=True)
def _take(cfg: np.ndarray, st: np.ndarray, start: int, offset: int) -> int:
    """Clear the chain of `start` (stones in the words at `offset`); the stones taken."""
    n = cfg[SIZE]
    stack = np.empty(n * n, dtype=np.int64)
    st[offset + (start >> 6)] &= ~(1 << (start & 63))
    stack[0] = start
    top = 1
    taken = 0
    while top > 0:
        top -= 1
        s = stack[top]
        taken += 1
        at = NEIGHBOURS + 4 * s
        for k in range(4):
            q = cfg[at + k]
            if q < 0:
                break
            if _stone(st, offset, q):
                st[offset + (q >> 6)] &= ~(1 << (q & 63))
                stack[top] = q
                top += 1
    return taken


@njit(cache=True, nogil=True)
def _placeable(cfg: np.ndarray, st: np.ndarray, m: int, mover: int) -> bool:
    """Whether `mover` may play on the empty point `m` without suicide."""
    if _touches_empty(cfg, st, m, -1):
        return True
    words = cfg[WORDS]
    mine, theirs = mover * words, (1 - mover) * words
    at = NEIGHBOURS + 4 * m
    for k in range(4):
        q = cfg[at + k]
        if q < 0:
            break
        if _stone(st, theirs, q):
            if not _has_liberty(cfg, st, q, theirs, m):  # m takes its last liberty
                return True
        elif _has_liberty(cfg, st, q, mine, m):  # our chain keeps a liberty besides m
            return True
    return False


@njit(cache=True, nogil=True)
def legal(cfg: np.ndarray, st: np.ndarray, out: np.ndarray) -> int:
    """The legal points in increasing order, then `PASS`; none once the game is over."""
    if status(cfg, st) != ONGOING:
        return 0
    n = cfg[SIZE]
    words = cfg[WORDS]
    mover = to_move(cfg, st)
    ko = ko_of(cfg, st)
    count = 0
    for m in range(n * n):
        if m != ko and _empty(st, words, m) and _placeable(cfg, st, m, mover):
            out[count] = m
            count += 1
    out[count] = PASS
    return count + 1


@njit(cache=True, nogil=True)
def area(cfg: np.ndarray, st: np.ndarray) -> tuple[int, int]:
    """Black's and White's area on the row's board as it stands (`board.area`)."""
    bd = board.new_board(cfg)
    board.load_colours(cfg, st, bd)
    return board.area(bd)


@njit(cache=True, nogil=True)
def score(cfg: np.ndarray, st: np.ndarray) -> int:
    """The winner (a seat or `codes.DRAW`) of the row's board counted as it stands."""
    black, white = area(cfg, st)
    return board.winner(cfg, black, white)


@njit(cache=True, nogil=True)
def play(cfg: np.ndarray, st: np.ndarray, move: int, dst: np.ndarray) -> None:
    """`dst` = the row after the legal `move` (a point or `PASS`) in `st`."""
    words = cfg[WORDS]
    info_at = 2 * words
    for i in range(info_at):
        dst[i] = st[i]
    ply = ply_of(cfg, st)
    mover = ply & 1
    ply += 1
    ko = -1
    if move < 0:
        passes = passes_of(cfg, st) + 1
    else:
        passes = 0
        mine, theirs = mover * words, (1 - mover) * words
        dst[mine + (move >> 6)] |= 1 << (move & 63)
        captured = 0
        point = -1
        at = NEIGHBOURS + 4 * move
        for k in range(4):
            q = cfg[at + k]
            if q < 0:
                break
            if _stone(dst, theirs, q) and not _has_liberty(cfg, dst, q, theirs, -1):
                captured += _take(cfg, dst, q, theirs)
                point = q
        if captured == 1:  # simple ko: a lone stone left with one liberty, the point it took
            friends = liberties = 0
            for k in range(4):
                q = cfg[at + k]
                if q < 0:
                    break
                if _stone(dst, mine, q):
                    friends += 1
                elif _empty(dst, words, q):
                    liberties += 1
            if friends == 0 and liberties == 1:
                ko = point
    result = ONGOING
    if passes >= 2 or ply >= cfg[CAP]:
        result = score(cfg, dst)
    dst[info_at] = pack(ply, passes, ko, move, result)


@njit(cache=True, nogil=True)
def playout(
    cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int, record: np.ndarray
) -> tuple[int, int]:
    """Play `policy`'s moves (`policy.choose`) from the row `st` to the end of the game:
    (winner, plies played).

    The first ``len(record)`` moves played (points, or `PASS`; the first by
    the side to move in `st`, then alternately) are written to `record`
    (an empty one: none) for AMAF statistics. The game ends by two passes or
    at the move cap, and is counted as it stands.
    """
    result = status(cfg, st)
    if result != ONGOING:
        return result, 0
    n = cfg[SIZE]
    bd = board.new_board(cfg)
    board.load(cfg, st, bd, ko_of(cfg, st), last_of(cfg, st))
    bd[board.SCALAR, board.S_RNG] = np.int64(rng[0])
    ply = ply_of(cfg, st)
    passes = passes_of(cfg, st)
    cap = cfg[CAP]
    colour = (ply & 1) + 1
    room = record.shape[0]
    start = ply
    while passes < 2 and ply < cap:
        p = choose(bd, colour, policy)
        if p < 0:
            passes += 1
            bd[board.SCALAR, board.S_KO] = board.NO_POINT
            bd[board.SCALAR, board.S_LAST] = board.NO_POINT
        else:
            board.place(bd, p, colour)
            bd[board.SCALAR, board.S_LAST] = p
            passes = 0
        if ply - start < room:
            record[ply - start] = PASS if p < 0 else board.point(n, p)
        ply += 1
        colour = 3 - colour
    rng[0] = np.uint64(bd[board.SCALAR, board.S_RNG])
    black, white = board.area(bd)
    return board.winner(cfg, black, white), ply - start


@njit(cache=True, nogil=True)
def rollout(cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int) -> int:
    """The winner of one `playout` from `st` (a seat or `codes.DRAW`)."""
    return playout(cfg, st, rng, policy, np.empty(0, dtype=np.int64))[0]


@njit(cache=True, nogil=True)
def rollout_amaf(
    cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int, seen: np.ndarray
) -> int:
    """The winner of one `playout` from `st`, marking each point it plays with its mover's
    seat + 1 where `seen` holds 0 (the first to play there: a point taken and played
    again keeps its first mark); passes are not marked."""
    if status(cfg, st) != ONGOING:
        return status(cfg, st)
    ply = ply_of(cfg, st)
    record = np.empty(max(0, cfg[CAP] - ply), dtype=np.int64)
    winner, played = playout(cfg, st, rng, policy, record)
    mover = ply & 1
    for i in range(min(played, record.shape[0])):
        m = record[i]
        if m >= 0 and seen[m] == 0:
            seen[m] = mover + 1
        mover = 1 - mover
    return winner


@njit(cache=True, nogil=True)
def playouts(cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int, count: int) -> int:
    """`count` playouts from `st` in one call; the plies they played (benchmarks' unit of
    work: a call from Python per playout would time the call)."""
    plies = 0
    record = np.empty(0, dtype=np.int64)
    for _ in range(count):
        plies += playout(cfg, st, rng, policy, record)[1]
    return plies


# --- from the rules' state ---------------------------------------------------------


def to_signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def ko_point(game: Go, state: GoState) -> int:
    """The point whose retake would repeat the position before the last move, or -1.

    That is the simple ko the kernel knows after a capture of one stone by a
    lone stone left with one liberty: the rules' state does not keep the
    capture, so the retake's position is looked up in its history.
    """
    black, white, ply, _, key, history, last = state[:7]
    if last < 0:
        return -1
    tables = game.tables
    pos = tables.position[last]
    mover = (ply - 1) & 1
    mine = white if mover else black
    empty = tables.on_board & ~(black | white)
    if tables.neighbours[pos] & mine:
        return -1
    liberties = tables.neighbours[pos] & empty
    if not liberties or liberties & (liberties - 1):
        return -1
    q = liberties.bit_length() - 1
    retake = key ^ tables.zobrist[mover][pos] ^ tables.zobrist[1 - mover][q]
    return tables.move_at[q] if retake in history else -1


def encode(game: Go, state: GoState) -> tuple[int, ...]:
    """The kernel's row of the rules' `state`."""
    black, white, ply, passes = state[:4]
    count = words(game.size)
    rows = [[0] * count, [0] * count]
    for m, pos in enumerate(game.tables.position):
        if (black >> pos) & 1:
            rows[0][m >> 6] |= 1 << (m & 63)
        elif (white >> pos) & 1:
            rows[1][m >> 6] |= 1 << (m & 63)
    result = ONGOING
    outcome = game.outcome(state)
    if outcome is not None:
        result = DRAW if outcome.winner is None else outcome.winner
    last = state[6]
    # `pack`'s Python source: calling the compiled one from Python would compile an entry
    # point on a move's clock
    info = pack.py_func(ply, passes, ko_point(game, state), -2 if last == NO_MOVE else last, result)
    return (*(to_signed(w) for w in rows[0]), *(to_signed(w) for w in rows[1]), info)


def decode_board(size: int, row: Any) -> tuple[frozenset[int], frozenset[int]]:
    """Black's and White's points (``row * N + col``) on a kernel row, for tests and tools."""
    count = words(size)
    stones: list[frozenset[int]] = []
    for offset in (0, count):
        stones.append(
            frozenset(
                m for m in range(size * size) if (int(row[offset + (m >> 6)]) >> (m & 63)) & 1
            )
        )
    return stones[0], stones[1]
