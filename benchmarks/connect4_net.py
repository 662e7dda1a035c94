"""The hidden layer of connect four's evaluation: minibatch Adam over the sparse features (numba).

The network (`player.mcts.fast.connect4.evaluation.score` evaluates it) reads the
same active features as the logistic regression that `connect4_fit.fit`
makes, twice: each feature's linear weight goes straight to the output
logit, and each feature's row of ``hidden`` weights is summed into the
hidden units (the sparse first layer of an "efficiently updatable" network,
as chess and shogi programs' NNUE), which pass a ReLU and a weighted sum
to the logit. The hidden units see combinations of lines that a sum of
per-line weights cannot (which side controls the zugzwang, given all the
threats at once).

`train` starts from the regression's weights (the linear part) and small
random hidden weights, and fits all of them by minibatch Adam on the
cross-entropy of the logit against the result for seat 0 (a draw 1/2),
with a little L2, the examples in a seeded random order each epoch; the
output bias, one number, takes plain gradient steps of ten times the rate
(the mean result moves little, and the linear weights start fitted).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

#: examples per Adam step, and the Adam constants
BATCH = 2048
BETA1, BETA2, EPSILON = 0.9, 0.999, 1e-8
#: the scale of the hidden weights' random start, and of the output weights'
START_HIDDEN, START_OUT = 0.02, 0.1


@dataclass
class Net:
    """The evaluation's weights: linear per feature, hidden rows per feature, biases, outputs."""

    linear: np.ndarray  # float32[size]
    hidden: np.ndarray  # float32[size, units]
    bias: np.ndarray  # float32[units]
    out: np.ndarray  # float32[units]
    out_bias: float

    @classmethod
    def start(cls, linear: np.ndarray, units: int, seed: int) -> Net:
        """The regression's `linear` weights and seeded small random hidden ones."""
        rng = np.random.default_rng(seed)
        hidden = rng.standard_normal((len(linear), units)) * START_HIDDEN
        return cls(
            linear.astype(np.float32),
            hidden.astype(np.float32),
            np.zeros(units, dtype=np.float32),
            (rng.standard_normal(units) * START_OUT).astype(np.float32),
            0.0,
        )

    def logits(self, features: np.ndarray) -> np.ndarray:
        """Seat 0's logit for each row of active feature indices."""
        z = np.empty(len(features), dtype=np.float64)
        _forward(features, self.linear, self.hidden, self.bias, self.out, self.out_bias, z)
        return z

    def save(self, path: Path) -> None:
        """Write the weights as `connect4_eval.load_weights` reads them: float32, the hidden
        rows float16 (half the file; a logit moves by about 1e-3)."""
        np.savez_compressed(
            path,
            weights=self.linear,
            hidden=self.hidden.astype(np.float16),
            bias=self.bias,
            out=self.out,
            out_bias=np.float32(self.out_bias),
        )


@njit(cache=True, nogil=True)
def _logit(
    features: np.ndarray, i: int, linear: np.ndarray, hidden: np.ndarray, bias: np.ndarray,
    out: np.ndarray, out_bias: float, acc: np.ndarray,
) -> float:  # fmt: skip
    """Row `i`'s logit; the hidden units' sums (before the ReLU) are left in `acc`."""
    z = out_bias
    acc[:] = bias
    for f in range(features.shape[1]):
        k = features[i, f]
        z += linear[k]
        acc += hidden[k]
    for j in range(acc.shape[0]):
        if acc[j] > 0.0:
            z += out[j] * acc[j]
    return z


@njit(cache=True, nogil=True)
def _forward(
    features: np.ndarray, linear: np.ndarray, hidden: np.ndarray, bias: np.ndarray,
    out: np.ndarray, out_bias: float, z: np.ndarray,
) -> None:  # fmt: skip
    acc = np.empty(bias.shape[0], dtype=np.float32)
    for i in range(features.shape[0]):
        z[i] = _logit(features, i, linear, hidden, bias, out, out_bias, acc)


@njit(cache=True, nogil=True)
def _adam(
    w: np.ndarray, g: np.ndarray, m: np.ndarray, v: np.ndarray, rate: float, l2: float
) -> None:
    """One Adam step on flat arrays, the L2 term added to the gradient `g` (`rate` already
    bias-corrected)."""
    for a in range(w.shape[0]):
        g[a] += l2 * w[a]
        m[a] = BETA1 * m[a] + (1.0 - BETA1) * g[a]
        v[a] = BETA2 * v[a] + (1.0 - BETA2) * g[a] * g[a]
        w[a] -= rate * m[a] / (math.sqrt(v[a]) + EPSILON)


@njit(cache=True, nogil=True)
def _epoch(
    features: np.ndarray, y: np.ndarray, order: np.ndarray, linear: np.ndarray,
    hidden: np.ndarray, bias: np.ndarray, out: np.ndarray, out_bias: np.ndarray,
    moments: np.ndarray, step: np.ndarray, rate: float, l2: float,
) -> float:  # fmt: skip
    """One pass over the examples in `order`; the mean cross-entropy.

    `moments` holds Adam's two moments of every weight, in the order
    linear, hidden, bias, out (rows 0 and 1).
    """
    n, units = features.shape[0], bias.shape[0]
    # where each array's gradient and moments start in `grad` and `moments`' rows
    a, b, c = linear.size, linear.size + hidden.size, linear.size + hidden.size + units
    grad = np.zeros(c + units, dtype=np.float32)
    g_linear, g_hidden = grad[:a], grad[a:b].reshape(hidden.shape)
    g_bias, g_out = grad[b:c], grad[c:]
    acc = np.empty(units, dtype=np.float32)
    back = np.empty(units, dtype=np.float32)
    loss = 0.0
    for start in range(0, n, BATCH):
        end = min(n, start + BATCH)
        grad[:] = 0.0
        g_out_bias = 0.0
        for r in range(start, end):
            i = order[r]
            z = _logit(features, i, linear, hidden, bias, out, out_bias[0], acc)
            p = 1.0 / (1.0 + math.exp(-z))
            loss -= y[i] * math.log(p + 1e-12) + (1.0 - y[i]) * math.log(1.0 - p + 1e-12)
            e = (p - y[i]) / (end - start)
            g_out_bias += e
            for j in range(units):
                if acc[j] > 0.0:
                    g_out[j] += e * acc[j]
                    back[j] = e * out[j]
                else:
                    back[j] = 0.0
            g_bias += back
            for f in range(features.shape[1]):
                k = features[i, f]
                g_linear[k] += e
                g_hidden[k] += back
        step[0] += 1
        t = step[0]
        corrected = rate * math.sqrt(1.0 - BETA2**t) / (1.0 - BETA1**t)
        _adam(linear, grad[:a], moments[0, :a], moments[1, :a], corrected, l2)
        _adam(hidden.reshape(-1), grad[a:b], moments[0, a:b], moments[1, a:b], corrected, l2)
        _adam(bias, grad[b:c], moments[0, b:c], moments[1, b:c], corrected, l2)
        _adam(out, grad[c:], moments[0, c:], moments[1, c:], corrected, l2)
        out_bias[0] -= corrected * g_out_bias * 10.0
    return float(loss / n)


def train(
    net: Net, features: np.ndarray, y: np.ndarray, epochs: int, rate: float, l2: float, seed: int,
    report: Callable[[int, float], None] | None = None,
) -> None:  # fmt: skip
    """Fit `net` in place: `epochs` passes of minibatch Adam; `report(epoch, loss)` after each."""
    rng = np.random.default_rng(seed)
    out_bias = np.array([net.out_bias], dtype=np.float64)
    size = net.linear.size + net.hidden.size + 2 * net.bias.size
    moments = np.zeros((2, size), dtype=np.float32)
    step = np.zeros(1, dtype=np.int64)
    y = y.astype(np.float64)
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(y))
        loss = _epoch(
            features, y, order, net.linear, net.hidden, net.bias, net.out, out_bias, moments,
            step, rate, l2,
        )  # fmt: skip
        net.out_bias = float(out_bias[0])
        if report is not None:
            report(epoch, loss)
