"""Connect four's learned evaluation (numba): a small network fitted to solved positions.

The evaluation is the logit of seat 0's expected result (a win 1, a draw
1/2, a loss 0) with both sides playing perfectly, computed from a position's
active features (``FEATURES`` of them in every position, `features`) in two
parts: a sum of one linear weight per active feature, plus a hidden layer
of ReLU units, each the sum of one weight per active feature, weighted into
the logit (the sparse first layer of the "efficiently updatable" networks
of chess and shogi programs). The linear part scores each line on its own;
the hidden units combine them (whose threats are where, all at once, which
decides connect four's zugzwang fights). Its features, all on the standard
7 x 6 board:

- **lines**: each of the 69 lines of four cells, by the state of its four
  cells: seat 0's disc, seat 1's, or empty, the empty cells told apart by
  the parity of their row (odd rows, the 1st, 3rd and 5th from the bottom,
  are the first player's in a zugzwang fight, even rows the second's) and by
  whether they can be played now: 6^4 = 1,296 weights a line;
- **column threats**: per column, the lowest row of each seat's threat (an
  empty cell that would complete a four) in it, or none: 7 x 7 weights a
  column, where the order of the two sides' threats in a column decides
  which can ever be played;
- **threat parity**: how many threats each seat has on odd and on even rows,
  each capped at 2 (81 weights): Allis's rule of thumb is that the first
  player wins with an odd threat, the second with an even one;
- **side to move**: 2 weights.

The weights are not written by hand: `benchmarks.connect4_fit` fits them
(logistic regression for the linear part, then minibatch Adam for all of
them with 32 hidden units, `benchmarks.connect4_net`; the board mirrored
for twice the data) to positions each scored by an exact solver, of seeded
random play at plies 10-36 and of noisy greedy play by earlier weights at
plies 10-30, and writes `WEIGHTS_FILE`. No position of the accuracy
benchmark's opening set (plies 6-9) is among them, and the evaluation is a
position's features, not a table of positions: it scores positions it
never saw (held out: the winner of a decided position right in 0.919 of
them, win/draw/loss in 0.834; the linear part alone, 0.882 and 0.765).
Far from those plies it is a poor judge: after the first move it gives the
first player little chance, whatever the column.

The leaf evaluator (`evaluate`, which `kernels.leaf` calls for connect four
when the search was given `params`) mixes it with a rollout: a leaf's value
is ``mix * evaluation + (1 - mix) * rollout result``; a leaf whose side to
move can win at once is exact.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
from numba import njit

from player.mcts.fast.connect4.kernel import (
    BOARD_AT,
    BOTTOM_AT,
    HEIGHT_AT,
    PARITY_AT,
    popcount,
    rollout,
    winning_cells,
)
from player.mcts.fast.core.codes import DRAW, LEAF_EXACT, LEAF_REWARD, ONGOING

#: the board the weights are for
WIDTH, HEIGHT = 7, 6
WEIGHTS_FILE = Path(__file__).with_name("eval.npz")


def _lines() -> np.ndarray:
    stride = HEIGHT + 1
    found = []
    for c in range(WIDTH):
        for r in range(HEIGHT):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(c + i * dc, r + i * dr) for i in range(4)]
                if all(0 <= x < WIDTH and 0 <= y < HEIGHT for x, y in cells):
                    found.append([x * stride + y for x, y in cells])
    return np.array(found, dtype=np.int64)


#: the bit of each cell of each line of four (`games.connect4`'s layout), 69 x 4
LINES = _lines()
LINE_WEIGHTS = 6**4
#: where each feature group's weights start, and the total
COLUMN_BASE = len(LINES) * LINE_WEIGHTS
PARITY_BASE = COLUMN_BASE + WIDTH * 49
SIDE_BASE = PARITY_BASE + 81
SIZE = SIDE_BASE + 2
#: active features in every position: one per line, per column, the parity counts, the side
FEATURES = len(LINES) + WIDTH + 2
#: the leaf parameters' layout (`params`): the mix, the rollout policy, then the weights
MIX, POLICY, WEIGHTS = 0, 1, 2
HIDDEN, OUT_BIAS, NET_HEADER = 0, 1, 2


@njit(cache=True, nogil=True)
def features(cfg: np.ndarray, p0: int, p1: int, out: np.ndarray) -> None:
    """Write the `FEATURES` active weight indices of position (`p0`, `p1`) in row 0 of `out`.

    The side to move is the caller's: `out[0, FEATURES - 1]` gets seat 0's
    index (add 1 for seat 1). `out` is 2-D (`kernels.leaf`'s scratch rows):
    a row view per leaf would cost reference counting.
    """
    h, bottom, board = cfg[HEIGHT_AT], cfg[BOTTOM_AT], cfg[BOARD_AT]
    stride = h + 1
    mask = p0 | p1
    play = (mask + bottom) & board
    for line in range(LINES.shape[0]):
        code = 0
        place = 1
        for i in range(4):
            b = LINES[line, i]
            if (p0 >> b) & 1:
                s = 0
            elif (p1 >> b) & 1:
                s = 1
            else:
                s = 2 + ((b % stride) & 1) + 2 * ((play >> b) & 1)
            code += s * place
            place *= 6
        out[0, line] = line * LINE_WEIGHTS + code
    t0 = winning_cells(p0, mask, h, board)
    t1 = winning_cells(p1, mask, h, board)
    column = (1 << h) - 1
    n = LINES.shape[0]
    for c in range(WIDTH):
        a = (t0 >> (c * stride)) & column
        b = (t1 >> (c * stride)) & column
        r0 = popcount((a & -a) - 1) if a else HEIGHT  # the lowest set bit's row
        r1 = popcount((b & -b) - 1) if b else HEIGHT
        out[0, n + c] = COLUMN_BASE + c * 49 + r0 * 7 + r1
    # odd rows (1st, 3rd, 5th): the kernel's parity rows of an even height (`connect4.make_cfg`;
    # its sentinel row holds no threat)
    odd = cfg[PARITY_AT]
    a0, b0 = min(popcount(t0 & odd), 2), min(popcount(t0 & ~odd), 2)
    a1, b1 = min(popcount(t1 & odd), 2), min(popcount(t1 & ~odd), 2)
    out[0, n + WIDTH] = PARITY_BASE + ((a0 * 3 + b0) * 3 + a1) * 3 + b1
    out[0, n + WIDTH + 1] = SIDE_BASE


@njit(cache=True, nogil=True)
def score(cfg: np.ndarray, st: np.ndarray, net: np.ndarray, offset: int, buf: np.ndarray) -> float:
    """The evaluation of state row `st` for its side to move (a logit).

    The network starts at `net[offset]` (`load_weights`' layout); `buf` is
    int64 scratch rows of `FEATURES` (row 0 is used).
    """
    features(cfg, st[0], st[1], buf)
    mover = int(st[2] & 1)
    buf[0, FEATURES - 1] += mover
    hidden = int(net[offset + HIDDEN])
    z = net[offset + OUT_BIAS]
    lin = offset + NET_HEADER
    for i in range(FEATURES):
        z += net[lin + buf[0, i]]
    if hidden > 0:
        emb = lin + SIZE
        bias = emb + (SIZE * hidden + 1) // 2
        out = bias + hidden
        rows = net[emb:bias].view(np.float32)  # float32 rows, two to a float64 slot
        blocked = hidden - hidden % 4
        # four units at a time: four independent sums, not one chain of additions
        # (16 units: 1.3 against 1.85 microseconds a score; the same sums in the same order)
        for j in range(0, blocked, 4):
            a0, a1, a2, a3 = net[bias + j], net[bias + j + 1], net[bias + j + 2], net[bias + j + 3]
            for i in range(FEATURES):
                row = buf[0, i] * hidden + j
                a0 += rows[row]
                a1 += rows[row + 1]
                a2 += rows[row + 2]
                a3 += rows[row + 3]
            if a0 > 0.0:
                z += net[out + j] * a0
            if a1 > 0.0:
                z += net[out + j + 1] * a1
            if a2 > 0.0:
                z += net[out + j + 2] * a2
            if a3 > 0.0:
                z += net[out + j + 3] * a3
        for j in range(blocked, hidden):
            a = net[bias + j]
            for i in range(FEATURES):
                a += rows[buf[0, i] * hidden + j]
            if a > 0.0:
                z += net[out + j] * a
    return float(-z if mover == 1 else z)


@njit(cache=True, nogil=True, inline="always")
def evaluate(
    cfg: np.ndarray, st: np.ndarray, params: np.ndarray, rng: np.ndarray, buf: np.ndarray
) -> tuple[int, int, float, float]:
    """(`LEAF_EXACT`, winner, 0, 0) or (`LEAF_REWARD`, `ONGOING`, value, evaluation), both for
    the side to move: the value mixes the evaluation with a rollout's result.

    `params` as `leaf_params` makes them, `rng` an int64[1] generator state
    (`rng.new_rng`'s bits) for the rollout, `buf` int64 rows of `FEATURES`.
    """
    mover = int(st[2] & 1)
    mask = st[0] | st[1]
    h, bottom, board = cfg[HEIGHT_AT], cfg[BOTTOM_AT], cfg[BOARD_AT]
    if winning_cells(st[mover], mask, h, board) & ((mask + bottom) & board):
        return LEAF_EXACT, mover, 0.0, 0.0
    z = score(cfg, st, params, WEIGHTS, buf)
    estimate = 1.0 / (1.0 + math.exp(-z))
    value = estimate
    mix = params[MIX]
    if mix < 1.0:
        winner = rollout(cfg, st, rng.view(np.uint64), int(params[POLICY]))
        result = 0.5 if winner == DRAW else (1.0 if winner == mover else 0.0)
        value = mix * estimate + (1.0 - mix) * result
    return LEAF_REWARD, ONGOING, value, estimate


def load_weights(path: Path = WEIGHTS_FILE) -> np.ndarray:
    """The fitted network as one float64 array, `score`'s layout; ValueError when the file does
    not fit this evaluation.

    The layout: the hidden units' count and the output bias (`NET_HEADER`),
    the `SIZE` linear weights, then, with hidden units, `SIZE` rows of their
    weights as float32, two to a float64 slot (half the memory, and exact
    for the fit's float16 rows), their biases and their output weights. A
    file of linear weights only (``weights``) has no hidden units.
    """
    with np.load(path) as data:
        weights = np.asarray(data["weights"], dtype=np.float64)
        if weights.shape != (SIZE,):
            raise ValueError(f"{path}: {weights.shape[0]} weights, this evaluation has {SIZE}")
        if "hidden" not in data:
            return np.concatenate([np.zeros(NET_HEADER), weights])
        hidden = np.asarray(data["hidden"], dtype=np.float64)
        bias = np.asarray(data["bias"], dtype=np.float64)
        out = np.asarray(data["out"], dtype=np.float64)
        units = bias.shape[0] if bias.ndim == 1 else -1
        if hidden.shape != (SIZE, units) or out.shape != (units,) or units < 1:
            raise ValueError(
                f"{path}: a hidden layer of shape {hidden.shape}, this evaluation"
                f" needs ({SIZE}, units) with as many biases and outputs"
            )
        header = np.array([units, float(data["out_bias"])], dtype=np.float64)
        rows = hidden.astype(np.float32).ravel()
        if rows.shape[0] % 2:
            rows = np.concatenate([rows, np.zeros(1, dtype=np.float32)])
        return np.concatenate([header, weights, rows.view(np.float64), bias, out])


def leaf_params(weights: np.ndarray, mix: float, policy: int) -> np.ndarray:
    """`evaluate`'s parameters: the evaluation's share of a leaf's value, the rollout policy."""
    return np.concatenate([np.array([mix, policy], dtype=np.float64), weights])
