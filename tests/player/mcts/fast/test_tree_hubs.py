"""`tree.run`'s hubs with threads (``shared``): a thread's simulations through a well-visited
node are held back in its own slot and added in bunches, none lost or counted twice."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

import numpy as np

from player.mcts.fast.core import tree


def rows(n: int) -> tuple[np.ndarray, np.ndarray]:
    """`n` tree rows' int32 columns and reward sums, all zero."""
    return np.zeros((n, tree.COLUMNS), dtype=np.int32), np.zeros(n)


def slots() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A thread's empty slots: a hub, its simulations and their rewards per depth."""
    return (
        np.full(tree.MAX_DEPTH, -1, dtype=np.int64),
        np.zeros(tree.MAX_DEPTH, dtype=np.int32),
        np.zeros(tree.MAX_DEPTH),
    )


def test_a_hub_is_counted_in_bunches_and_the_rest_at_the_flush() -> None:
    ni, wsum = rows(1)
    nodes, visits, wins = slots()
    for i in range(tree.HUB_BUNCH - 1):
        tree._count(ni, wsum, nodes, visits, wins, 0, 0, 1.0 if i % 2 else 0.5)
    assert ni[0, tree.VIS] == 0  # held back: less than a bunch
    tree._count(ni, wsum, nodes, visits, wins, 0, 0, 1.0)
    assert ni[0, tree.VIS] == tree.HUB_BUNCH  # a bunch is added at once
    assert visits[0] == 0 and wins[0] == 0.0
    for _ in range(5):
        tree._count(ni, wsum, nodes, visits, wins, 0, 0, 0.0)
    before = float(wsum[0])
    tree._flush(ni, wsum, nodes, visits, wins)
    assert ni[0, tree.VIS] == tree.HUB_BUNCH + 5 and wsum[0] == before
    assert (nodes == -1).all() and (visits == 0).all()


def test_another_hub_at_the_same_depth_adds_the_slot_first() -> None:
    """Paths that alternate between hubs at one depth lose none of their simulations."""
    ni, wsum = rows(4)
    nodes, visits, wins = slots()
    rng = np.random.default_rng(5)
    expected = np.zeros(4, dtype=np.int64)
    gains = np.zeros(4)
    for _ in range(1000):
        depth = int(rng.integers(0, 2))
        node = depth * 2 + int(rng.integers(0, 2))  # rows 0-1 at depth 0, 2-3 at depth 1
        gain = float(rng.integers(0, 3)) / 2
        tree._count(ni, wsum, nodes, visits, wins, node, depth, gain)
        expected[node] += 1
        gains[node] += gain
        held = expected - ni[:, tree.VIS]
        assert (held >= 0).all() and (held < tree.HUB_BUNCH).all()
    tree._flush(ni, wsum, nodes, visits, wins)
    assert (ni[:, tree.VIS] == expected).all()
    assert np.allclose(wsum, gains)
