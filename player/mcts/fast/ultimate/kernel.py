"""Ultimate tic-tac-toe kernel for the compiled search.

State row (int64[10]): each seat's 81 stones as two words (sub-boards 0-5
in the low word, 6-8 in the high one, 9 bits per sub-board as in
`games.ultimate`), then won0, won1, closed, forced (-1 = free), ply and
status. Moves are global cells ``row * 9 + col`` as in the Python game.
`cfg`: WINS (512 entries), then per global cell its sub-board and local
cell, then per ``9 * sub + local`` the global cell. Rollouts
(`codes.Rollout`): WIN takes a move that wins the game at once if one
exists, else a random move; any other policy is uniformly random.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games import ultimate as rules
from player.mcts.fast.core.codes import DRAW, ONGOING, Rollout
from player.mcts.fast.core.rng import below

STATE_SIZE = 10
FREE = -1  # st[7]: no forced sub-board
WINS_AT, SUB_AT, LOCAL_AT, CELL_AT = 0, 512, 593, 674


def make_cfg() -> np.ndarray:
    cfg = np.zeros(755, dtype=np.int64)
    cfg[WINS_AT : WINS_AT + 512] = rules.WINS
    cfg[SUB_AT : SUB_AT + 81] = rules.CELL_SUB
    cfg[LOCAL_AT : LOCAL_AT + 81] = rules.CELL_LOCAL
    cfg[CELL_AT : CELL_AT + 81] = rules.BIT_CELL
    return cfg


def encode(state: tuple[int, ...]) -> tuple[int, ...]:
    s0, s1 = state[0], state[1]
    low = (1 << 54) - 1
    return (s0 & low, s0 >> 54, s1 & low, s1 >> 54, *state[2:])


@njit(cache=True, nogil=True)
def _sub(st: np.ndarray, seat: int, sub: int) -> int:
    word = st[2 * seat + (1 if sub >= 6 else 0)]
    return int((word >> (9 * (sub % 6))) & 511)


@njit(cache=True, nogil=True)
def legal(cfg: np.ndarray, st: np.ndarray, out: np.ndarray) -> int:
    if st[9] != ONGOING:
        return 0
    n = 0
    for sub in range(9):
        if st[7] != FREE and sub != st[7]:
            continue
        if (st[6] >> sub) & 1:
            continue
        occupied = _sub(st, 0, sub) | _sub(st, 1, sub)
        for local in range(9):
            if not (occupied >> local) & 1:
                out[n] = cfg[CELL_AT + 9 * sub + local]
                n += 1
    return n


@njit(cache=True, nogil=True)
def to_move(cfg: np.ndarray, st: np.ndarray) -> int:
    return int(st[8] & 1)


@njit(cache=True, nogil=True)
def play(cfg: np.ndarray, st: np.ndarray, move: int, dst: np.ndarray) -> None:
    for i in range(10):
        dst[i] = st[i]
    sub, local = cfg[SUB_AT + move], cfg[LOCAL_AT + move]
    mover = int(st[8] & 1)
    word = 2 * mover + (1 if sub >= 6 else 0)
    dst[word] |= 1 << (9 * (sub % 6) + local)
    mine, theirs = _sub(dst, mover, sub), _sub(dst, 1 - mover, sub)
    dst[8] = st[8] + 1
    if cfg[WINS_AT + mine]:
        dst[6] |= 1 << sub
        dst[4 + mover] |= 1 << sub
        if cfg[WINS_AT + dst[4 + mover]]:
            dst[9] = mover
    elif mine | theirs == 511:
        dst[6] |= 1 << sub
    if dst[9] == ONGOING and dst[6] == 511:
        dst[9] = DRAW
    dst[7] = FREE if dst[9] != ONGOING or (dst[6] >> local) & 1 else local


@njit(cache=True, nogil=True)
def status(cfg: np.ndarray, st: np.ndarray) -> int:
    return int(st[9])


@njit(cache=True, nogil=True)
def rollout(cfg: np.ndarray, st: np.ndarray, rng: np.ndarray, policy: int) -> int:
    if st[9] != ONGOING:
        return int(st[9])
    cur = st.copy()
    nxt = np.empty_like(cur)
    moves = np.empty(81, dtype=np.int64)
    while True:
        n = legal(cfg, cur, moves)
        pick = -1
        if policy == Rollout.WIN:
            mover = int(cur[8] & 1)
            for i in range(n):
                sub, local = cfg[SUB_AT + moves[i]], cfg[LOCAL_AT + moves[i]]
                won = cfg[WINS_AT + (_sub(cur, mover, sub) | (1 << local))]
                if won and cfg[WINS_AT + (cur[4 + mover] | (1 << sub))]:
                    pick = i
                    break
        if pick < 0:
            pick = below(rng, n)
        play(cfg, cur, int(moves[pick]), nxt)
        if nxt[9] != ONGOING:
            return int(nxt[9])
        cur, nxt = nxt, cur
