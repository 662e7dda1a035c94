"""The exact endgame solver and the depth-limited search against brute-force negamax."""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("numba")

import numpy as np

from games.reversi import Reversi
from player.mcts.fast.reversi.endgame import ABORTED, new_buffer, new_stats, search, solve
from player.mcts.fast.reversi.evaluation import evaluate, final_score

GAME = Reversi()


def sides(state: tuple[int, ...]) -> tuple[np.uint64, np.uint64]:
    me, opp = (state[0], state[1]) if state[2] == 0 else (state[1], state[0])
    return np.uint64(me), np.uint64(opp)


def late_positions(count: int, empties: int, seed: int) -> list[Any]:
    """Random positions with `empties` empty squares (the game not over)."""
    rng, found = random.Random(seed), list[Any]()
    while len(found) < count:
        state = GAME.initial_state()
        while 64 - (state[0] | state[1]).bit_count() > empties and not GAME.is_terminal(state):
            state = GAME.apply(state, rng.choice(GAME.legal_moves(state)))
        if not GAME.is_terminal(state):
            found.append(state)
    return found


def negamax(state: Any) -> int:
    """The exact disc difference for the side to move, by full minimax on `games.reversi`."""
    if GAME.is_terminal(state):
        me, opp = sides(state)
        return int(me).bit_count() - int(opp).bit_count()
    return max(-negamax(GAME.apply(state, move)) for move in GAME.legal_moves(state))


def negamax_eval(state: Any, depth: int) -> float:
    """Plain depth-limited negamax on `evaluate` (the reference for the alpha-beta search)."""
    me, opp = sides(state)
    if GAME.is_terminal(state):
        return float(final_score(me, opp))
    if depth == 0:
        return float(evaluate(me, opp))
    moves = GAME.legal_moves(state)
    # a pass does not use up depth, as in `search`
    next_depth = depth if moves == [-1] else depth - 1
    return max(-negamax_eval(GAME.apply(state, move), next_depth) for move in moves)


@pytest.mark.parametrize("empties", [4, 6, 8])
def test_solver_agrees_with_brute_force(empties: int) -> None:
    buf = new_buffer()
    for state in late_positions(12, empties, seed=empties):
        exact = negamax(state)
        me, opp = sides(state)
        stats = new_stats(1 << 40)
        assert solve(me, opp, -65, 65, 0, stats, buf) == exact
        # the null window answers win / draw / loss
        wld = solve(me, opp, -1, 1, 0, new_stats(1 << 40), buf)
        assert wld == (exact > 0) - (exact < 0)


def test_search_agrees_with_plain_negamax() -> None:
    buf = new_buffer()
    for state in late_positions(6, 30, seed=3) + late_positions(4, 8, seed=4):
        me, opp = sides(state)
        for depth in (1, 2, 3):
            got = search(me, opp, depth, -1e9, 1e9, 0, new_stats(1 << 40), buf)
            assert got == pytest.approx(negamax_eval(state, depth))


def test_a_node_budget_aborts_the_solve() -> None:
    state = late_positions(1, 16, seed=5)[0]
    stats = new_stats(100)
    me, opp = sides(state)
    solve(me, opp, -1, 1, 0, stats, new_buffer())
    assert stats[ABORTED] == 1
