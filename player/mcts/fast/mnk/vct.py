"""Victory by continuous threats (VCT) in m,n,k games with k >= 5 (gomoku): a sound AND/OR search.

Why a second search beside `threats.vcf`: an engine that blocks every open
three is beaten by double threats (four-three, three-three), and those
start with a *three*, a move after which the attacker has a cell making
two winning cells (an open four). The defender then has a free move, but
only a few of its moves matter, and which ones is exact from the windows
(`threats.scan`), with no pattern tables:

- against a four (one winning cell of the attacker) only that cell;
- against a three: every cell ``t`` that makes the attacker two winning
  cells, and every empty cell of the live windows of k-2 attacker stones
  through such a ``t`` (the windows that make its winning cells), plus
  every defender four (a four must be answered: the attacker's next move is
  forced to its winning cell, and the defender may go on with fours: its
  VCF is searched that way).

Any other defender move leaves a ``t`` whose windows are untouched and
gives the defender no winning cell, so the attacker's stone on ``t`` makes
two winning cells the defender cannot both block: the search is *sound*
(a found line is a forced win under freestyle rules, five or more wins)
without trying those moves. The attacker moves (OR nodes) are its fours
and its threes (a cheap test over the windows through the move, then the
defender node's scan decides); when the defender has a winning cell the
attacker must take it, and the line goes on only if that leaves a threat.

Search: depth-first with an explicit stack (numba's cache mishandles
recursion), iterative deepening on the count of threes in a line (0 threes
is a VCF), so short wins are found first; `budget[0]` counts down the
positions searched (one scan each) and at zero the answer is -1 (unknown),
never a false win. The board is restored on return.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from player.mcts.fast.mnk.config import CELLS_AT, HEIGHT_AT, K_AT, WIDTH_AT
from player.mcts.fast.mnk.threats import DC, DR, any_set, count_first, scan

#: deepest line searched, in attacker moves (fours, forced blocks and threes)
MAX_DEPTH = 20
#: the most threes in one line (the iterative deepening's last round)
MAX_THREES = 4
#: node results inside the search
_OPEN, _WIN, _FAIL = 0, 1, 2


@njit(cache=True, nogil=True)
def _makes_three(
    cfg: np.ndarray,
    board: np.ndarray,
    side: int,
    e: int,
    fours: np.ndarray,
    fpair: np.ndarray,
    pairs: np.ndarray,
) -> bool:
    """Whether a stone of `side` on empty `e` leaves a cell making two winning cells.

    Only the windows through `e` change: each live one of k-3 stones becomes
    one of k-2 whose two other empty cells each make the other a winning
    cell. A cell then has two distinct winning cells if two of those new
    pairs give it different partners, or one new partner differs from the
    one it already had (`fpair`, unless that partner is `e` itself).
    `pairs` is scratch (at least 8k rows of 2).
    """
    width, height, k = cfg[WIDTH_AT], cfg[HEIGHT_AT], cfg[K_AT]
    piece = side + 1
    row0, col0 = e // width, e % width
    n = 0
    for d in range(4):
        dr, dc = DR[d], DC[d]
        for back in range(k):  # the window starts `back` cells before e
            r, c = row0 - back * dr, col0 - back * dc
            r1, c1 = r + (k - 1) * dr, c + (k - 1) * dc
            if not (0 <= r < height and 0 <= c < width and 0 <= r1 < height and 0 <= c1 < width):
                continue
            own = 0
            dead = False
            a = -1
            b = -1
            for j in range(k):
                cell = (r + j * dr) * width + c + j * dc
                v = board[cell]
                if v == piece:
                    own += 1
                elif v != 0:
                    dead = True
                    break
                elif cell != e:
                    if a < 0:
                        a = cell
                    else:
                        b = cell
            if dead or own != k - 3:
                continue
            pairs[n, 0] = a
            pairs[n, 1] = b
            pairs[n + 1, 0] = b
            pairs[n + 1, 1] = a
            n += 2
    for i in range(n):
        t, w = pairs[i, 0], pairs[i, 1]
        if fours[side, t] >= 1 and fpair[side, t] != w and fpair[side, t] != e:
            return True
        for j in range(i):
            if pairs[j, 0] == t and pairs[j, 1] != w:
                return True
    return False


@njit(cache=True, nogil=True)
def _mark_windows(cfg: np.ndarray, board: np.ndarray, side: int, t: int, mark: np.ndarray) -> None:
    """Mark `t` and the empty cells of every live window of k-2 `side` stones through it."""
    width, height, k = cfg[WIDTH_AT], cfg[HEIGHT_AT], cfg[K_AT]
    piece = side + 1
    row0, col0 = t // width, t % width
    mark[t] = 1
    for d in range(4):
        dr, dc = DR[d], DC[d]
        for back in range(k):
            r, c = row0 - back * dr, col0 - back * dc
            r1, c1 = r + (k - 1) * dr, c + (k - 1) * dc
            if not (0 <= r < height and 0 <= c < width and 0 <= r1 < height and 0 <= c1 < width):
                continue
            own = 0
            dead = False
            for j in range(k):
                v = board[(r + j * dr) * width + c + j * dc]
                if v == piece:
                    own += 1
                elif v != 0:
                    dead = True
                    break
            if dead or own != k - 2:
                continue
            for j in range(k):
                cell = (r + j * dr) * width + c + j * dc
                if board[cell] == 0:
                    mark[cell] = 1


@njit(cache=True, nogil=True)
def _attacker_node(
    cfg: np.ndarray,
    board: np.ndarray,
    side: int,
    threes: bool,
    out: np.ndarray,
    score: np.ndarray,
    wins: np.ndarray,
    fours: np.ndarray,
    fpair: np.ndarray,
    zone: np.ndarray,
    total: np.ndarray,
    value: np.ndarray,
    pairs: np.ndarray,
) -> tuple[int, int, bool]:
    """An OR node (`side` to move): (_WIN, winning move) or (_FAIL, 0) or (_OPEN, moves in `out`).

    The moves: the defender's one winning cell when it has one (forced:
    the third value), else the fours and, when `threes`, the threes, best
    scored first.
    """
    scan(cfg, board, score, wins, fours, fpair, zone, total)
    other = 1 - side
    n, first = count_first(wins, side)
    if n > 0:
        return _WIN, first, False
    blocks, block = count_first(wins, other)
    if blocks >= 2:
        return _FAIL, 0, False
    if blocks == 1:
        if fours[side, block] >= 2:
            return _WIN, block, False
        out[0] = block
        return _OPEN, 1, True
    cells = cfg[CELLS_AT]
    for e in range(cells):
        if fours[side, e] >= 2:
            return _WIN, e, False
    m = 0
    for e in range(cells):
        if board[e] != 0:
            continue
        v = -1.0
        if fours[side, e] == 1:
            v = 1e12 + score[side, e]
        elif threes and zone[side, e] and _makes_three(cfg, board, side, e, fours, fpair, pairs):
            v = score[side, e] + score[other, e]
        if v < 0:
            continue
        j = m  # insertion into `out`, best first
        while j > 0 and value[j - 1] < v:
            value[j] = value[j - 1]
            out[j] = out[j - 1]
            j -= 1
        value[j] = v
        out[j] = e
        m += 1
    if m == 0:
        return _FAIL, 0, False
    return _OPEN, m, False


@njit(cache=True, nogil=True)
def _defender_node(
    cfg: np.ndarray,
    board: np.ndarray,
    side: int,
    out: np.ndarray,
    score: np.ndarray,
    wins: np.ndarray,
    fours: np.ndarray,
    fpair: np.ndarray,
    zone: np.ndarray,
    total: np.ndarray,
    mark: np.ndarray,
) -> tuple[int, int]:
    """An AND node (the defender to move, `side` attacking): (_WIN/_FAIL, 0) or (_OPEN, replies).

    _WIN when the attacker has two winning cells and the defender none;
    _FAIL when the defender can win at once or the attacker threatens
    nothing. Otherwise the replies that may refute (the module doc), the
    cells that make the attacker's open four first.
    """
    scan(cfg, board, score, wins, fours, fpair, zone, total)
    other = 1 - side
    n, _ = count_first(wins, other)
    if n > 0:
        return _FAIL, 0
    n, first = count_first(wins, side)
    if n >= 2:
        return _WIN, 0
    if n == 1:
        out[0] = first
        return _OPEN, 1
    cells = cfg[CELLS_AT]
    mark[:] = 0
    m = 0
    for t in range(cells):
        if fours[side, t] >= 2:
            out[m] = t
            m += 1
    if m == 0:
        return _FAIL, 0
    for i in range(m):
        _mark_windows(cfg, board, side, out[i], mark)
    for i in range(m):
        mark[out[i]] = 0  # listed already
    for e in range(cells):
        if board[e] == 0 and (mark[e] or fours[other, e] > 0):
            out[m] = e
            m += 1
    return _OPEN, m


@njit(cache=True, nogil=True)
def _search(
    cfg: np.ndarray, board: np.ndarray, side: int, limit: int, budget: np.ndarray
) -> tuple[int, bool]:
    """One depth-first round with at most `limit` threes a line: (first move or -1, cut by limit).

    Even stack levels are attacker (OR) nodes, odd ones defender (AND)
    nodes; ``moves[level]`` lists a node's moves and ``index[level]`` the
    next to try; the moves of the levels above the current one are on the
    board. A forced block is not counted as a three (the attacker had no
    choice), a four never.
    """
    cells = cfg[CELLS_AT]
    score = np.empty((2, cells), dtype=np.float64)
    wins = np.empty((2, cells), dtype=np.int8)
    fours = np.empty((2, cells), dtype=np.int16)
    fpair = np.empty((2, cells), dtype=np.int32)
    zone = np.empty((2, cells), dtype=np.int8)
    total = np.empty(2, dtype=np.float64)
    value = np.empty(cells, dtype=np.float64)
    pairs = np.empty((8 * cfg[K_AT] + 8, 2), dtype=np.int64)
    mark = np.zeros(cells, dtype=np.int8)
    levels = 2 * MAX_DEPTH + 2
    moves = np.empty((levels, cells), dtype=np.int64)
    count = np.zeros(levels, dtype=np.int64)
    index = np.zeros(levels, dtype=np.int64)
    used = np.zeros(levels, dtype=np.int64)  # threes in the line up to an attacker level
    forced = np.zeros(levels, dtype=np.bool_)  # an attacker level whose one move is a block
    other = 1 - side
    cut = limit == 0
    result, n, forced[0] = _attacker_node(
        cfg, board, side, limit > 0, moves[0], score, wins, fours, fpair, zone, total, value,
        pairs,
    )  # fmt: skip
    if result == _WIN:
        return n, False
    if result == _FAIL:
        return -1, cut
    count[0] = n
    level = 0
    back = _OPEN  # a result handed back to `level` by the child just searched
    while True:
        if back != _OPEN:
            board[moves[level, index[level] - 1]] = 0
            attacker = level % 2 == 0
            if (back == _WIN) == attacker:  # an OR node won, or an AND node refuted: done here
                if level == 0:
                    return (int(moves[0, index[0] - 1]) if back == _WIN else -1), cut
                level -= 1
                continue  # `back` goes up unchanged
            back = _OPEN
        if index[level] >= count[level]:
            back = _FAIL if level % 2 == 0 else _WIN
            if level == 0:
                return -1, cut
            level -= 1
            continue
        if budget[0] <= 0:
            for j in range(level):
                board[moves[j, index[j] - 1]] = 0
            return -1, cut
        budget[0] -= 1
        i = index[level]
        index[level] += 1
        e = moves[level, i]
        child = level + 1
        if level % 2 == 0:
            board[e] = side + 1
            result, n = _defender_node(
                cfg, board, side, moves[child], score, wins, fours, fpair, zone, total, mark
            )
            if result == _OPEN:
                three = not forced[level] and not any_set(wins, side)
                used[child] = used[level] + (1 if three else 0)
                if used[child] > limit:
                    result = _FAIL
                    cut = True
        else:
            board[e] = other + 1
            deep = child >= 2 * MAX_DEPTH
            used[child] = used[level]
            result, n, forced[child] = _attacker_node(
                cfg, board, side, used[child] < limit and not deep, moves[child], score, wins,
                fours, fpair, zone, total, value, pairs,
            )  # fmt: skip
            if used[child] >= limit:
                cut = True  # a three might have won here
            if result == _OPEN and deep:
                result = _FAIL
                cut = True
        if result != _OPEN:
            back = result
            continue
        count[child] = n
        index[child] = 0
        level = child


@njit(cache=True, nogil=True)
def vct(cfg: np.ndarray, board: np.ndarray, side: int, budget: np.ndarray) -> int:
    """The first move of a victory by continuous threats for `side` (to move), or -1.

    Iterative deepening on the threes allowed in a line (0: a VCF, then 1
    up to `MAX_THREES`), within ``budget[0]`` positions (counted down; at
    zero: -1, unknown). A round the limit never cut is exhaustive: no
    deeper round is tried. `board` is restored on return.
    """
    for limit in range(MAX_THREES + 1):
        move, cut = _search(cfg, board, side, limit, budget)
        if move >= 0:
            return move
        if not cut or budget[0] <= 0:
            return -1
    return -1
