"""The atomic array operations (`player.mcts.fast.core.atomics`) under two real threads."""

from __future__ import annotations

import threading

import numpy as np
import pytest

pytest.importorskip("numba")

from numba import njit

from player.mcts.fast.core.atomics import add2, cas1, cas2, fadd1, load2


@njit(nogil=True)
def _count(ints: np.ndarray, rows: np.ndarray, sums: np.ndarray, n: int) -> None:
    for _ in range(n):
        add2(ints, 1, 2, 1)
        fadd1(sums, 0, 0.5)
        while True:  # a row allocator: compare-and-swap until this thread's bump wins
            old = rows[0]
            if cas1(rows, 0, old, old + 3) == old:
                break


@njit(nogil=True)
def _swap(ints: np.ndarray, expected: int, new: int) -> tuple[int, int, int]:
    old = cas2(ints, 0, 1, expected, new)
    return old, ints[0, 1], load2(ints, 0, 1)


def test_two_threads_lose_no_update() -> None:
    ints = np.zeros((2, 3), dtype=np.int32)
    rows = np.zeros(2, dtype=np.int64)
    sums = np.zeros(1, dtype=np.float64)
    _count(ints, rows, sums, 1)  # compile outside the threads
    ints[:], rows[:], sums[:] = 0, 0, 0.0
    n = 300_000
    threads = [threading.Thread(target=_count, args=(ints, rows, sums, n)) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert ints[1, 2] == 2 * n and ints.sum() == 2 * n
    assert rows[0] == 3 * 2 * n and rows[1] == 0
    assert sums[0] == 0.5 * 2 * n


def test_compare_and_swap_sets_only_the_expected_value() -> None:
    ints = np.zeros((1, 3), dtype=np.int32)
    assert _swap(ints, 0, -1) == (0, -1, -1)  # claimed
    assert _swap(ints, 0, 5) == (-1, -1, -1)  # another claim fails, nothing changes
    assert _swap(ints, -1, 7) == (-1, 7, 7)  # published
    assert ints[0, 0] == 0 and ints[0, 2] == 0
