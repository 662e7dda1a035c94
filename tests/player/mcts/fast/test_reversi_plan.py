"""The reversi search as the ``mcts`` agent runs it: proven endgames, evaluated leaves, options."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from games.connect4 import Connect4
from games.reversi import Reversi
from player.agent import SearchLimit
from player.mcts import fast
from player.mcts.fast.adapters import Adapter, adapter_for
from player.mcts.fast.core.engine import FastSearch
from player.mcts.fast.reversi.endgame import new_buffer, new_stats, solve
from player.mcts.fast.reversi.options import ReversiOptions
from player.mcts.fast.reversi.plan import plan_for
from player.mcts.options import SearchOptions
from tests.player.mcts.fast.test_reversi_endgame import late_positions, negamax, sides

GAME = Reversi()


def reversi_adapter() -> Adapter:
    adapter = adapter_for(GAME)
    assert adapter is not None
    return adapter


ADAPTER = reversi_adapter()


def test_the_root_solve_plays_a_winning_move_and_only_then_claims_a_proof() -> None:
    assert fast.warm_up()
    for state in late_positions(6, 7, seed=11):
        exact = negamax(state)
        search = FastSearch(GAME, ADAPTER, SearchOptions(memory=8), seed=1)
        result = search.search(state, SearchLimit(time=5.0))
        wins = [s for s in result.stats if s.proven == 1.0]
        if exact > 0:
            assert result.root_proven == 1.0 and wins
            for stat in wins:  # every move claimed to win does win
                assert -negamax(GAME.apply(state, stat.move)) > 0
        else:
            assert not wins and result.root_proven is not None
            assert result.root_proven == (0.5 if exact == 0 else 0.0)


def test_leaf_solves_alone_prove_a_late_position() -> None:
    state = late_positions(1, 12, seed=12)[0]
    me, opp = sides(state)  # the solver itself is checked against brute force
    exact = solve(me, opp, -65, 65, 0, new_stats(1 << 40), new_buffer())
    search = FastSearch(
        GAME, ADAPTER, SearchOptions(memory=64), ReversiOptions(reversi_endgame=0), seed=2
    )
    result = search.search(state, SearchLimit(iterations=200_000))
    assert result.root_proven == (1.0 if exact > 0 else 0.5 if exact == 0 else 0.0)


#: reversi with neither evaluated leaves nor solves: plain UCT
ROLLOUTS = ReversiOptions(reversi_leaf="rollout", reversi_endgame=0)


def test_every_reversi_technique_can_be_switched_off() -> None:
    adapter = ADAPTER
    assert plan_for(adapter, ROLLOUTS) is None
    assert plan_for(adapter_for(Connect4()), ReversiOptions()) is None
    plain = FastSearch(GAME, adapter, SearchOptions(memory=8), ROLLOUTS, seed=3)
    assert plain.plan is None
    result = plain.search(GAME.initial_state(), SearchLimit(iterations=500))
    assert result.iterations == 500


def test_a_bad_reversi_option_is_refused() -> None:
    with pytest.raises(ValueError, match="reversi_depth"):
        ReversiOptions(reversi_depth=-1)
