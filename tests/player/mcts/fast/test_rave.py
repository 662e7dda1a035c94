"""RAVE in the compiled tree (`tree.run`'s ``rave``) and the kernels' AMAF rollouts."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

import numpy as np

from games import make_game
from games.connect4 import Connect4
from games.go import Go
from player.agent import SearchLimit
from player.mcts.fast import kernels
from player.mcts.fast.adapters import adapter_for
from player.mcts.fast.core import tree
from player.mcts.fast.core.codes import Rollout
from player.mcts.fast.core.engine import FastSearch
from player.mcts.fast.core.rng import new_rng
from player.mcts.search_options import SearchOptions


def _search(game: object, moves: tuple[int, ...], rave: float, iterations: int) -> FastSearch:
    adapter = adapter_for(game)  # type: ignore[arg-type]
    assert adapter is not None
    options = SearchOptions(time=None, iterations=iterations, rave=rave, exact=0, solver=False)
    search = FastSearch(game, adapter, options, seed=5)  # type: ignore[arg-type]
    state = game.initial_state()  # type: ignore[attr-defined]
    for move in moves:
        state = game.apply(state, move)  # type: ignore[attr-defined]
    search.search(state, SearchLimit(iterations=iterations))
    return search


def _children(search: FastSearch, node: int) -> range:
    first = int(search.ni[node, tree.FIRST])
    return range(first, first + int(search.ni[node, tree.NCH]))


def test_two_cells_left_amaf_is_each_childs_own_visits() -> None:
    # X to move with two empty cells (2 and 8): whichever X takes, O takes the other, so
    # a root child's move is played by X after the root only in its own simulations
    search = _search(make_game("tictactoe"), (0, 1, 3, 4, 5, 6, 7), 100.0, 40)
    root = int(search.meta[tree.ROOT])
    children = _children(search, root)
    assert len(children) == 2
    for j in children:
        assert search.arrays.avis[j] == search.ni[j, tree.VIS] > 0
        assert search.arrays.awin[j] == pytest.approx(search.wsum[j])


def test_three_cells_left_amaf_counts_the_later_moves() -> None:
    # X 0 2 3, O 1 4 6: X to move, cells 5 7 8 left. X's first move is always marked for
    # X, and its last one too when the game lasts (O takes 7 and wins, else it is full):
    # a root child's AMAF visits are its own simulations and more
    moves = (0, 1, 2, 4, 3, 6)
    search = _search(make_game("tictactoe"), moves, 100.0, 200)
    root = int(search.meta[tree.ROOT])
    ni, avis, awin = search.ni, search.arrays.avis, search.arrays.awin
    children = _children(search, root)
    assert len(children) == 3
    visits = sum(int(ni[j, tree.VIS]) for j in children)
    total = sum(int(avis[j]) for j in children)
    for j in children:
        assert avis[j] >= ni[j, tree.VIS]
        assert 0.0 <= awin[j] <= avis[j]
    assert visits < total <= 2 * visits  # at most two of X's moves a simulation


def test_rave_off_keeps_no_amaf_rows_and_games_without_amaf_ignore_it() -> None:
    off = _search(make_game("tictactoe"), (), 0.0, 100)
    assert off.arrays.avis.shape == (0,) and off.rave == 0.0
    reversi = make_game("reversi")
    adapter = adapter_for(reversi)
    assert adapter is not None and adapter.gid not in kernels.AMAF
    ignored = FastSearch(reversi, adapter, SearchOptions(time=None, iterations=10, rave=500))
    assert ignored.rave == 0.0 and ignored.arrays.avis.shape == (0,)


def test_rave_search_on_connect4_and_go_fills_the_root_childrens_amaf() -> None:
    for game, iterations in ((Connect4(), 300), (Go(), 200)):
        search = _search(game, (), 300.0, iterations)
        root = int(search.meta[tree.ROOT])
        avis = search.arrays.avis
        children = _children(search, root)
        assert sum(int(avis[j]) for j in children) > iterations  # moves beside the one chosen
        assert all(
            avis[j] >= search.ni[j, tree.VIS] for j in children if search.ni[j, tree.MOVE] >= 0
        )


@pytest.mark.parametrize("name", ["tictactoe", "gomoku", "connect4", "go"])
def test_rollout_amaf_plays_the_rollout_and_marks_its_moves(name: str) -> None:
    game = make_game(name)
    adapter = adapter_for(game)
    assert adapter is not None and adapter.gid in kernels.AMAF
    row = np.array(adapter.encode_state(game.initial_state()), dtype=np.int64)
    for policy in (int(Rollout.RANDOM), int(adapter.smart)):
        for seed in range(3):
            plain, marked = new_rng(seed), new_rng(seed)
            seen = np.zeros(tree.MAX_MOVES + 1, dtype=np.int8)
            winner = kernels.rollout(adapter.gid, adapter.cfg, row, plain, policy)
            again = kernels.rollout_amaf(adapter.gid, adapter.cfg, row, marked, policy, seen)
            assert again == winner and np.array_equal(plain, marked)  # the same rollout
            marks = seen[seen != 0]
            assert set(marks.tolist()) <= {1, 2} and marks.size > 0
            # the first mover's moves: as many as the other's, or one more
            first, second = int(np.sum(seen == 1)), int(np.sum(seen == 2))
            assert 0 <= first - second <= 1 or name in ("connect4", "go")


def test_marks_already_set_are_kept() -> None:
    game = make_game("tictactoe")
    adapter = adapter_for(game)
    assert adapter is not None
    row = np.array(adapter.encode_state(game.initial_state()), dtype=np.int64)
    seen = np.full(tree.MAX_MOVES + 1, 2, dtype=np.int8)
    kernels.rollout_amaf(adapter.gid, adapter.cfg, row, new_rng(1), 0, seen)
    assert np.all(seen == 2)


def test_rave_with_threads_keeps_amaf_within_bounds() -> None:
    game = Go()
    adapter = adapter_for(game)
    assert adapter is not None
    options = SearchOptions(time=0.3, rave=300, workers=2)
    search = FastSearch(game, adapter, options, seed=3)
    try:
        result = search.search(game.initial_state(), SearchLimit(time=0.3))
    finally:
        search.close()
    used = int(search.meta[tree.NEXT])
    avis, awin = search.arrays.avis[:used], search.arrays.awin[:used]
    assert result.iterations > 0
    assert np.all(avis >= 0) and np.all(awin >= 0) and np.all(awin <= avis)
