"""A tiny xorshift64* generator for the compiled search (state: one uint64 in an array).

Why not NumPy's generator inside numba: its state is per thread and hidden, so
two searches in one process would share it; an explicit state makes a search
reproducible from its seed and lets each search own its stream. `advance`
and `scaled` are the same steps on a state held elsewhere (Go's playout
keeps it in its board array, so its hot loop passes one array, not two).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

_MUL = np.uint64(0x2545F4914F6CDD1D)
_S12 = np.uint64(12)
_S25 = np.uint64(25)
_S27 = np.uint64(27)
_S33 = np.uint64(33)


def new_rng(seed: int) -> np.ndarray:
    """A generator state from any int seed (never zero)."""
    value = (seed * 0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019) & 0xFFFF_FFFF_FFFF_FFFF
    return np.array([value or 1], dtype=np.uint64)


@njit(cache=True, nogil=True)
def advance(x: Any) -> Any:
    """The generator's next state after `x` (a uint64)."""
    x ^= x >> _S12
    x ^= x << _S25
    x ^= x >> _S27
    return x


@njit(cache=True, nogil=True)
def scaled(x: Any, n: int) -> int:
    """The int in range(n) that the state `x` draws (multiply-shift on 31 random bits)."""
    return int(np.int64((((x * _MUL) >> _S33) * np.uint64(n)) >> np.uint64(31)))


@njit(cache=True, nogil=True)
def next_u64(rng: np.ndarray) -> Any:
    x = advance(rng[0])
    rng[0] = x
    return x * _MUL


@njit(cache=True, nogil=True)
def below(rng: np.ndarray, n: int) -> int:
    """A uniform int in range(n), n >= 1 (multiply-shift on 31 random bits)."""
    x = advance(rng[0])
    rng[0] = x
    return scaled(x, n)
