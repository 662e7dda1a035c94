"""One search loop: `tree.run` with a kernel's leaf evaluator (`kernels.leaf`) or rollouts.

Reversi's evaluated leaves used to run in a copy of the loop of their own
(``reversi_search.run``). The golden figures below were recorded with that
copy (and the plain loop, for the rollout games) before it was folded into
`tree.run`: the same seed and options must give the same simulations, root
visits and tree size. Change them only with a change meant to alter the
search (a new evaluation, another random stream), never to make a refactor
pass.
"""

from __future__ import annotations

import math
from typing import Any

import pytest

pytest.importorskip("numba")

import numpy as np

from games import make_game
from games.reversi import Reversi
from player.agent import SearchLimit
from player.mcts.fast import kernels
from player.mcts.fast.adapters import adapter_for
from player.mcts.fast.core import tree
from player.mcts.fast.core.codes import DRAW, LEAF_EXACT, LEAF_REWARD, LEAF_ROLLOUT
from player.mcts.fast.core.engine import FastSearch
from player.mcts.fast.reversi import leaf as reversi_leaf
from player.mcts.fast.reversi.endgame import INF, new_buffer, new_stats, search
from player.mcts.fast.reversi.plan import SCALE
from player.mcts.options import Knowledge, SearchOptions
from tests.player.mcts.fast.test_reversi_endgame import late_positions, negamax, sides

#: (game, late position (count, empties, seed) or None for the start, iterations, options)
#: -> (simulations, root proof, visits of the root's children in order, rows used)
GOLDEN: dict[str, tuple[tuple[str, Any, int, dict[str, Any]], tuple[Any, ...]]] = {
    "reversi, defaults": (
        ("reversi", None, 3000, {}),
        (3000, None, [1248, 222, 1334, 196], 6229),
    ),
    "reversi, depth-1 leaves": (
        ("reversi", None, 2000, {"reversi_depth": 1}),
        (2000, None, [216, 195, 1359, 230], 4257),
    ),
    "reversi, leaf solves prove the root": (
        ("reversi", (1, 14, 5), 4000, {"reversi_endgame": 0, "reversi_solve": 10}),
        (611, 0.0, [96, 78, 57, 77, 60, 72, 89, 82], 1421),
    ),
    "reversi, leaf solves below the root": (
        ("reversi", (1, 17, 8), 3000, {"reversi_endgame": 0}),
        (3000, None, [384, 436, 1030, 587, 124, 439], 6795),
    ),
    "reversi, root solve then depth-1 leaves": (
        ("reversi", (1, 22, 6), 3000, {"reversi_depth": 1, "reversi_endgame": 24}),
        (3000, None, [23, 22, 25, 28, 2758, 26, 21, 27, 27, 20, 24], 6296),
    ),
    "reversi, random rollouts": (
        ("reversi", None, 3000, {"reversi_leaf": "rollout", "reversi_endgame": 0}),
        (3000, None, [865, 657, 553, 925], 6100),
    ),
    "connect four": (  # changed with the rollouts' follow-up and claimeven ending
        ("connect4", None, 5000, {"exact": 0, "connect4_eval": 0}),
        (5000, None, [493, 341, 306, 384, 653, 2225, 598], 10186),
    ),
    "connect four, evaluated leaves": (  # connect4_eval's default share (0.7), the weights
        ("connect4", None, 5000, {"exact": 0, "connect4_minimax": 0}),
        (5000, None, [45, 48, 26, 31, 44, 4492, 314], 9036),
    ),
    "connect four, evaluated leaves, implicit minimax": (  # the default minimax weight
        ("connect4", None, 5000, {"exact": 0}),
        (5000, None, [30, 29, 25, 27, 23, 4760, 106], 9244),
    ),
    "tic-tac-toe": (
        ("tictactoe", None, 3000, {}),
        (3000, None, [455, 163, 449, 435, 109, 161, 594, 175, 459], 5754),
    ),
}


@pytest.mark.parametrize("case", list(GOLDEN))
def test_a_fixed_seed_search_does_what_the_loop_did_before(case: str) -> None:
    (name, late, iterations, options), expected = GOLDEN[case]
    game = make_game(name)
    if late is None:
        state = game.initial_state()
    else:
        state = late_positions(late[0], late[1], seed=late[2])[0]
    adapter = adapter_for(game)
    assert adapter is not None
    values = {"memory": 16, **options}  # the options as a spec names them
    own = Knowledge.from_values(values).of(adapter.knowledge)
    engine = FastSearch(game, adapter, SearchOptions.from_values(values), own, seed=42)
    result = engine.search(state, SearchLimit(iterations=iterations))
    visits = [stat.visits for stat in result.stats]
    found = (result.iterations, result.root_proven, visits, int(engine.meta[tree.NEXT]))
    assert found == expected


def test_kernels_without_an_evaluator_ask_for_a_rollout() -> None:
    for name in ["tictactoe", "ultimate", "gomoku"]:
        adapter = adapter_for(make_game(name))
        assert adapter is not None and adapter.gid not in kernels.EVALUATORS
        row = np.array(adapter.encode_state(make_game(name).initial_state()), dtype=np.int64)
        kind, _, _, _ = kernels.leaf(
            adapter.gid,
            adapter.cfg,
            row,
            reversi_leaf.params(0, 10, SCALE),
            new_stats(0),
            new_buffer(),
        )
        assert kind == LEAF_ROLLOUT


def reversi_leaf_of(state: Any, depth: int, solve_empties: int) -> tuple[int, int, float]:
    adapter = adapter_for(Reversi())
    assert adapter is not None and adapter.gid in kernels.EVALUATORS
    row = np.array(adapter.encode_state(state), dtype=np.int64)
    params = reversi_leaf.params(depth, solve_empties, SCALE)
    kind, winner, reward, estimate = kernels.leaf(
        adapter.gid, adapter.cfg, row, params, new_stats(0), new_buffer()
    )
    assert estimate == reward  # no rollout in reversi's value: the evaluation is all of it
    return int(kind), int(winner), float(reward)


def test_the_reversi_evaluator_solves_few_empties_exactly() -> None:
    for state in late_positions(6, 8, seed=3):
        kind, winner, _ = reversi_leaf_of(state, depth=0, solve_empties=8)
        exact = negamax(state)
        assert kind == LEAF_EXACT
        side = state[2]
        assert winner == (DRAW if exact == 0 else side if exact > 0 else 1 - side)


def test_the_reversi_evaluator_scores_other_leaves_by_its_alpha_beta() -> None:
    for state in late_positions(4, 30, seed=4):
        for depth in (0, 2):
            kind, _, reward = reversi_leaf_of(state, depth=depth, solve_empties=10)
            me, opp = sides(state)
            score = search(me, opp, depth, -INF, INF, 0, new_stats(1 << 40), new_buffer())
            assert kind == LEAF_REWARD
            assert reward == pytest.approx(1.0 / (1.0 + math.exp(-score / SCALE)))
            assert 0.0 < reward < 1.0
