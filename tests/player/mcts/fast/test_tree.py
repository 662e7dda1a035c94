"""`tree.run`'s implicit minimax backups (``connect4_minimax``): each node's IMPLIED column."""

from __future__ import annotations

import functools
import math
from typing import Any

import pytest

pytest.importorskip("numba")

import numpy as np

from games.connect4 import Connect4
from games.reversi import Reversi
from player.agent import SearchLimit
from player.mcts.fast.adapters import adapter_for
from player.mcts.fast.connect4 import evaluation as connect4_eval
from player.mcts.fast.connect4 import kernel as connect4
from player.mcts.fast.core import tree
from player.mcts.fast.core.codes import PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN
from player.mcts.fast.core.engine import FastSearch
from player.mcts.options import Knowledge, SearchOptions, default

CFG = connect4.make_cfg(7, 6)
ONE = tree.IMPLIED_ONE
EXACT = {PROVEN_WIN: ONE, PROVEN_DRAW: ONE // 2, PROVEN_LOSS: 0}


def searched(
    moves: tuple[int, ...], minimax: float | None, iterations: int = 4000, game: Any = None
) -> FastSearch:
    """A search of `iterations` from `moves` (connect four unless `game`), with the game's
    minimax option set to `minimax` (None: its default)."""
    game = game or Connect4()
    state = game.initial_state()
    for move in moves:
        state = game.apply(state, move)
    adapter = adapter_for(game)
    assert adapter is not None
    values: dict[str, Any] = {"memory": 16, "exact": 0}
    if minimax is not None:
        values[f"{game.name}_minimax"] = minimax
    own = Knowledge.from_values(values).of(adapter.knowledge)
    engine = FastSearch(game, adapter, SearchOptions.from_values(values), own, seed=7)
    engine.search(state, SearchLimit(iterations=iterations))
    return engine


def judged(engine: FastSearch) -> int:
    """How many of the tree's nodes hold an implied value."""
    return int((engine.ni[: int(engine.meta[tree.NEXT]), tree.IMPLIED] >= 0).sum())


@functools.cache
def network() -> np.ndarray:
    """The shipped network, read once (12 MB: not once per node checked)."""
    return connect4_eval.load_weights()


def evaluation(engine: FastSearch, node: int) -> int:
    """The network's value of `node` for the seat that moved into it, in IMPLIED's fixed point."""
    buf = np.zeros((1, connect4_eval.FEATURES), dtype=np.int64)
    z = connect4_eval.score(CFG, engine.st[node], network(), 0, buf)
    return int((1.0 - 1.0 / (1.0 + math.exp(-z))) * ONE)


def known(ni: np.ndarray, j: int) -> int:
    return EXACT.get(int(ni[j, tree.PROVEN]), int(ni[j, tree.IMPLIED]))


def test_every_node_holds_the_minimax_of_its_childrens_evaluations() -> None:
    """After a search with ``minimax``: a node whose children all have a value (or one that
    wins, proven) holds the best of them for the side choosing there; a visited node with a
    child not yet judged holds its own evaluation; an unvisited one none."""
    engine = searched((3, 2, 3, 3, 4, 4), minimax=0.4)
    ni, root = engine.ni, int(engine.meta[tree.ROOT])
    kinds = {"minimax": 0, "own": 0, "none": 0}
    for node in range(int(engine.meta[tree.NEXT])):
        if node == root or ni[node, tree.PROVEN] != 0:
            continue
        first, count = int(ni[node, tree.FIRST]), int(ni[node, tree.NCH])
        values = [known(ni, j) for j in range(first, first + count)]
        if values and (ONE in values or min(values) >= 0):
            best = max(values)  # the children's mover chooses: the node's own is the other seat
            assert ni[node, tree.IMPLIED] == ONE - best, node
            kinds["minimax"] += 1
        elif ni[node, tree.VIS] > 0:
            assert abs(int(ni[node, tree.IMPLIED]) - evaluation(engine, node)) <= 1, node
            kinds["own"] += 1
        else:
            assert ni[node, tree.IMPLIED] == tree.UNKNOWN, node
            kinds["none"] += 1
    assert min(kinds.values()) >= 50, kinds


def test_without_minimax_no_node_gets_a_value() -> None:
    engine = searched((3, 2, 3, 3, 4, 4), minimax=0.0, iterations=2000)
    rows = engine.ni[: int(engine.meta[tree.NEXT]), tree.IMPLIED]
    assert (rows == tree.UNKNOWN).all()


def test_connect_four_has_the_backups_by_default_and_reversi_when_asked() -> None:
    assert default("connect4_minimax") > 0 and default("reversi_minimax") == 0
    assert judged(searched((3, 2, 3, 3, 4, 4), minimax=None, iterations=2000)) > 500
    reversi = Reversi()
    assert judged(searched((), minimax=None, iterations=1000, game=reversi)) == 0
    assert judged(searched((), minimax=0.4, iterations=1000, game=reversi)) > 300
