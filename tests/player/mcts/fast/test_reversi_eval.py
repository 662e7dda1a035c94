"""Sanity of the hand evaluation: symmetry, corners, X-squares, stable discs, finished games."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

import numpy as np

from games.reversi import Reversi
from player.mcts.fast.reversi.evaluation import FINAL_SCALE, evaluate, full_lines, stable


def board(*squares: int) -> np.uint64:
    value = 0
    for square in squares:
        value |= 1 << square
    return np.uint64(value)


def test_the_start_position_is_even() -> None:
    state = Reversi().initial_state()
    assert evaluate(np.uint64(state[0]), np.uint64(state[1])) == 0.0


def test_scores_are_antisymmetric_without_parity() -> None:
    me, opp = board(0, 27, 28, 35), board(36, 19, 20, 44)  # 56 empties: no parity term
    assert evaluate(me, opp) == -evaluate(opp, me)


def test_a_corner_is_good_and_an_x_square_bad() -> None:
    base_me, opp = board(27, 36), board(28, 35)
    with_corner = evaluate(base_me | board(0), opp)
    with_x = evaluate(base_me | board(9), opp)
    plain = evaluate(base_me | board(20), opp)
    assert with_corner > plain > with_x


def test_stable_discs() -> None:
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    lines = full_lines(full)
    assert all(int(line) == int(full) for line in lines)
    assert int(stable(full, lines)) == int(full)  # a full board: every disc is stable
    # a corner and its edge run are stable; a lone centre disc is not
    me = board(0, 1, 2, 27)
    opp = board(28)
    assert int(stable(me, full_lines(me | opp))) == int(board(0, 1, 2))


def test_a_finished_game_scores_its_disc_difference() -> None:
    me, opp = board(*range(40)), board(*range(40, 64))  # full board, 40-24
    assert evaluate(me, opp) == FINAL_SCALE * 16
