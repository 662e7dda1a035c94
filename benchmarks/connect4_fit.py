"""Fit connect four's learned evaluation (`player.mcts.fast.connect4.evaluation`) to solved positions.

Two steps, each reproducible from its arguments::

    python -m benchmarks.connect4_fit generate --seed 1 --positions 200000 --out c4-1.npy
    python -m benchmarks.connect4_fit generate --policy greedy --seed 1 --out pol-1.npy
    python -m benchmarks.connect4_fit fit --data c4-1.npy,pol-1.npy

``generate`` plays seeded uniformly random games from the empty board to a
ply drawn uniformly in 10..36 (a line that ends first is drawn again), or
with ``--policy greedy`` noisy greedy lines by an evaluation (`Greedy`,
plies 10..30); ``--plies 13-20`` draws the ply from another range, never
below 10. It keeps the position when the side to move cannot win at
once; BitBully (the ``dev`` extra, `benchmarks.c4solver.reference`) scores
it: win, draw or loss for the side to move. About 7-10 ms a position on
one core. Rows: seat 0's bitboard, seat 1's, the ply, the value. The seed
strings (``train:<seed>``, ``pol:<seed>``) differ from the accuracy
benchmark's, and its opening set's plies (6-9) are never generated.

``fit`` computes every position's features (and its mirror image's: the
board is symmetric) with `connect4_eval.features` itself, keeps a shuffled
tenth out, and fits the weights by logistic regression (full-batch Adam, a
little L2) to the result for seat 0, a draw counting 1/2; it reports the
held-out accuracy (the sign of the result, and win/draw/loss with a band of
+-0.7 logits for the draw) and writes the weights (float32) to
``connect4_eval.WEIGHTS_FILE`` (``--out`` elsewhere).
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from benchmarks.c4solver import SolverError
from games.connect4 import Connect4
from player.mcts.fast import load

LOW, HIGH = 10, 36
#: the last ply a position with a move left can have (7 x 6 cells)
MAX_PLY = 41
#: the logit band read as a draw when the held-out win/draw/loss accuracy is counted
DRAW_BAND = 0.7


#: the greedy lines' plies, the uniformly random opening before the evaluation chooses, the
#: share of random moves after it, and the noise (logits) added to each move's evaluation
GREEDY_LOW, GREEDY_HIGH = 10, 30
GREEDY_OPENING = (2, 8)
GREEDY_RANDOM = 0.25
GREEDY_NOISE = 0.3

State = tuple[int, int, int, int]


class Greedy:
    """Moves chosen by a learned evaluation (`connect4_eval.score`), noisy and with random ones.

    A side that can win at once does; otherwise a uniformly random move with
    probability `GREEDY_RANDOM`, else the move whose position the evaluation
    rates best for the mover, each rating with Gaussian noise of
    `GREEDY_NOISE` logits: play of some sense, as a search meets it, where
    uniformly random play mostly reaches lopsided positions.
    """

    def __init__(self, weights: np.ndarray) -> None:
        from player.mcts.fast.connect4 import evaluation as connect4_eval
        from player.mcts.fast.connect4 import kernel as connect4

        self.game = Connect4()
        self.weights = weights
        self.cfg = connect4.make_cfg(connect4_eval.WIDTH, connect4_eval.HEIGHT)
        self.buf = np.empty((1, connect4_eval.FEATURES), dtype=np.int64)

    def __call__(self, rng: random.Random, state: State) -> int:
        from player.mcts.fast.connect4 import evaluation as connect4_eval

        game = self.game
        legal = game.legal_moves(state)
        mover = game.to_move(state)
        children = [game.apply(state, move) for move in legal]
        for move, child in zip(legal, children, strict=True):
            if child[3] == mover:
                return move
        if rng.random() < GREEDY_RANDOM:
            return rng.choice(legal)
        best, rating = legal[0], -math.inf
        for move, child in zip(legal, children, strict=True):
            if child[3] >= 0:
                return move
            row = np.array(child, dtype=np.int64)
            value = -connect4_eval.score(self.cfg, row, self.weights, 0, self.buf)
            value += rng.gauss(0, GREEDY_NOISE)
            if value > rating:
                best, rating = move, value
        return best


def line(
    rng: random.Random, policy: Greedy | None, plies: tuple[int, int] | None = None
) -> tuple[State, list[int]] | None:
    """One line of play from the empty board: the position and its moves; None if it ended.

    ``policy`` None: uniformly random moves to a ply in `LOW`..`HIGH`; else a
    ply in `GREEDY_LOW`..`GREEDY_HIGH`, random moves for the first few
    (`GREEDY_OPENING`), the policy's after them. `plies` (low, high) replaces
    either range.
    """
    game = Connect4()
    if policy is None:
        low, high = plies or (LOW, HIGH)
        target, opening = rng.randint(low, high), high
    else:
        low, high = plies or (GREEDY_LOW, GREEDY_HIGH)
        target, opening = rng.randint(low, high), rng.randint(*GREEDY_OPENING)
    state: State = game.initial_state()
    moves: list[int] = []
    for ply in range(target):
        if game.is_terminal(state):
            break
        if policy is None or ply < opening:
            move = rng.choice(game.legal_moves(state))
        else:
            move = policy(rng, state)
        state = game.apply(state, move)
        moves.append(move)
    if game.is_terminal(state) or state[2] < target:
        return None
    return state, moves


def ply_range(text: str) -> tuple[int, int]:
    """``LOW-HIGH`` for ``--plies``: never below `LOW` (the accuracy benchmark's opening set,
    plies 6-9, is never generated), never past `MAX_PLY` (a full board has no move)."""
    low, sep, high = text.partition("-")
    try:
        bounds = (int(low), int(high if sep else low))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not LOW-HIGH (e.g. 13-20)") from None
    if not LOW <= bounds[0] <= bounds[1] <= MAX_PLY:
        raise argparse.ArgumentTypeError(
            f"{text!r}: the plies must lie within {LOW}-{MAX_PLY}, the lower first"
        )
    return bounds


def generate(
    seed: int,
    count: int,
    out: Path,
    policy: Greedy | None = None,
    plies: tuple[int, int] | None = None,
) -> None:
    """`count` positions of seeded play (`line`, at `plies` if given) scored by BitBully, saved
    to `out` (.npy)."""
    try:
        from bitbully import BitBully, Board
    except ImportError:
        raise SolverError("bitbully is not installed: pip install -e '.[dev]'") from None
    solver = BitBully()
    rng = random.Random(f"train:{seed}" if policy is None else f"pol:{seed}")
    rows: list[tuple[int, int, int, int]] = []
    began = time.perf_counter()
    while len(rows) < count:
        found = line(rng, policy, plies)
        if found is None:
            continue
        state, moves = found
        board = Board()
        for move in moves:
            board.play(move)
        if board.can_win_next():
            continue
        value = solver.null_window(board)
        rows.append((state[0], state[1], state[2], (value > 0) - (value < 0)))
        if len(rows) % 10_000 == 0:
            print(f"{len(rows)} positions, {time.perf_counter() - began:.0f} s", flush=True)
    np.save(out, np.array(rows, dtype=np.int64))


def mirror(bits: np.ndarray) -> np.ndarray:
    """The bitboards reflected left to right."""
    from player.mcts.fast.connect4 import evaluation as connect4_eval

    stride = connect4_eval.HEIGHT + 1
    column = (1 << stride) - 1
    out = np.zeros_like(bits)
    for c in range(connect4_eval.WIDTH):
        out |= ((bits >> (c * stride)) & column) << ((connect4_eval.WIDTH - 1 - c) * stride)
    return out


def feature_rows(data: np.ndarray) -> np.ndarray:
    """The active feature indices of each row's position (the side to move's included)."""
    from player.mcts.fast.connect4 import evaluation as connect4_eval
    from player.mcts.fast.connect4 import kernel as connect4

    cfg = connect4.make_cfg(connect4_eval.WIDTH, connect4_eval.HEIGHT)
    out = np.empty((len(data), connect4_eval.FEATURES), dtype=np.int64)
    for i, (p0, p1, ply, _) in enumerate(data):
        connect4_eval.features(cfg, int(p0), int(p1), out[i : i + 1])
        out[i, -1] += ply & 1
    return out


def targets(data: np.ndarray) -> np.ndarray:
    """Seat 0's result: 1 win, 1/2 draw, 0 loss."""
    ply, value = data[:, 2], data[:, 3]
    return (np.where(ply % 2 == 0, value, -value) + 1) / 2.0


def fit(
    features: np.ndarray, y: np.ndarray, size: int, epochs: int, rate: float, l2: float
) -> np.ndarray:
    """Logistic-regression weights of the sparse 0/1 features, by full-batch Adam."""
    weights, m, v = np.zeros(size), np.zeros(size), np.zeros(size)
    flat, k = features.ravel(), features.shape[1]
    for t in range(1, epochs + 1):
        p = 1.0 / (1.0 + np.exp(-weights[features].sum(1)))
        grad = np.bincount(flat, np.repeat((p - y) / len(y), k), minlength=size) + l2 * weights
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad * grad
        weights -= rate * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
        if t % 50 == 0:
            loss = -np.mean(y * np.log(p + 1e-12) + (1 - y) * np.log(1 - p + 1e-12))
            print(f"epoch {t}: loss {loss:.4f}", flush=True)
    return weights


def accuracy(z: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """(the sign of the result right, win/draw/loss right) for the logits `z` of positions."""
    outcome = np.where(z > DRAW_BAND, 1.0, np.where(z < -DRAW_BAND, 0.0, 0.5))
    decided = y != 0.5
    return float(np.mean((z[decided] > 0) == (y[decided] > 0.5))), float(np.mean(outcome == y))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    steps = parser.add_subparsers(dest="step", required=True)
    gen = steps.add_parser("generate", help="solved positions of seeded random play")
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--positions", type=int, default=200_000)
    gen.add_argument("--out", type=Path, required=True, help="the .npy file written")
    gen.add_argument(
        "--policy",
        choices=("random", "greedy"),
        default="random",
        help="uniformly random moves, or noisy greedy ones by an evaluation (--weights)",
    )
    gen.add_argument(
        "--weights", type=Path, default=None, help="greedy: the weights (default: the shipped)"
    )
    gen.add_argument(
        "--plies",
        type=ply_range,
        default=None,
        help=f"LOW-HIGH: the positions' plies, {LOW} to {MAX_PLY} (default {LOW}-{HIGH},"
        f" greedy {GREEDY_LOW}-{GREEDY_HIGH})",
    )
    fitting = steps.add_parser("fit", help="fit the weights to generated positions")
    fitting.add_argument("--data", required=True, help="generated .npy files, comma-separated")
    fitting.add_argument("--out", type=Path, default=None, help="default: the shipped file")
    fitting.add_argument("--epochs", type=int, default=300)
    fitting.add_argument("--rate", type=float, default=0.05)
    fitting.add_argument("--l2", type=float, default=1e-6)
    fitting.add_argument(
        "--hidden", type=int, default=32, help="hidden units on top of the regression (0 = none)"
    )
    fitting.add_argument("--net-epochs", type=int, default=10, help="the network's epochs")
    fitting.add_argument("--net-rate", type=float, default=1e-3, help="its Adam step size")
    args = parser.parse_args(argv)
    if load() is None:
        print("error: the compiled engine needs numba", file=sys.stderr)
        return 2
    try:
        from player.mcts.fast.connect4 import evaluation as connect4_eval

        if args.step == "generate":
            policy = None
            if args.policy == "greedy":
                policy = Greedy(
                    connect4_eval.load_weights(args.weights or connect4_eval.WEIGHTS_FILE)
                )
            generate(args.seed, args.positions, args.out, policy, args.plies)
            return 0

        data = np.concatenate([np.load(name) for name in args.data.split(",")])
    except (OSError, ValueError, SolverError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    np.random.default_rng(0).shuffle(data)
    held = len(data) // 10
    train, test = data[held:], data[:held]
    flipped = train.copy()
    flipped[:, 0], flipped[:, 1] = mirror(train[:, 0]), mirror(train[:, 1])
    both = np.concatenate([train, flipped])
    print(f"{len(train)} positions (and their mirror images) to fit, {held} held out", flush=True)
    features = feature_rows(both)
    y = targets(both)
    weights = fit(features, y, connect4_eval.SIZE, args.epochs, args.rate, args.l2)
    tests = feature_rows(test)
    sign, wdl = accuracy(weights[tests].sum(1), targets(test))
    print(f"held out: the sign of the result right in {sign:.3f}, win/draw/loss in {wdl:.3f}")
    out = args.out or connect4_eval.WEIGHTS_FILE
    if args.hidden <= 0:
        np.savez_compressed(out, weights=weights.astype(np.float32))
        print(f"wrote {out} ({np.count_nonzero(weights)} of {len(weights)} weights non-zero)")
        return 0
    from benchmarks import connect4_net  # numba: after `load`

    net = connect4_net.Net.start(weights, args.hidden, seed=0)

    def report(epoch: int, loss: float) -> None:
        sign, wdl = accuracy(net.logits(tests), targets(test))
        print(
            f"net epoch {epoch}: loss {loss:.4f}, held out: the sign of the result right in"
            f" {sign:.3f}, win/draw/loss in {wdl:.3f}",
            flush=True,
        )

    connect4_net.train(net, features, y, args.net_epochs, args.net_rate, args.l2, 1, report)
    net.save(out)
    print(f"wrote {out} ({args.hidden} hidden units)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
