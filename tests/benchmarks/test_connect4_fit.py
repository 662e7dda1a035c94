"""The evaluation's fitting script: mirror images, features, a fit that the player can load."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("numba")

import numpy as np

from benchmarks import connect4_fit
from games.connect4 import Connect4
from player.mcts.fast import connect4, connect4_eval, connect4_solve
from tests.benchmarks.minimax import late_positions

GAME = Connect4()


def solved_rows(count: int, ply: int) -> np.ndarray:
    """Rows as `connect4_fit.generate` writes them, scored by our exact solver."""
    cfg = connect4.make_cfg(7, 6)
    table = connect4_solve.new_table(1 << 16)
    rows = []
    for moves in late_positions(seed=99, count=count, ply=ply):
        state = GAME.initial_state()
        for move in moves:
            state = GAME.apply(state, move)
        budget = np.array([0, 10**8], dtype=np.int64)
        value = connect4_solve.solve(cfg, np.array(state, dtype=np.int64), table, budget)
        rows.append((state[0], state[1], state[2], int(value)))
    return np.array(rows, dtype=np.int64)


def test_a_mirror_image_is_the_board_reflected() -> None:
    state = GAME.apply(GAME.apply(GAME.initial_state(), 0), 1)  # seat 0 in column 1, 1 in 2
    reflected = GAME.apply(GAME.apply(GAME.initial_state(), 6), 5)
    bits = np.array([state[0], state[1]], dtype=np.int64)
    assert list(connect4_fit.mirror(bits)) == [reflected[0], reflected[1]]
    rows = solved_rows(20, 18)
    assert np.array_equal(connect4_fit.mirror(connect4_fit.mirror(rows[:, :2])), rows[:, :2])


def test_a_fit_writes_weights_the_player_loads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, out = tmp_path / "solved.npy", tmp_path / "weights.npz"
    np.save(data, solved_rows(120, 24))
    assert connect4_fit.main(["fit", "--data", str(data), "--out", str(out), "--epochs", "50"]) == 0
    weights = connect4_eval.load_weights(out)
    assert weights.shape == (connect4_eval.SIZE,) and np.count_nonzero(weights) > 100
    printed = capsys.readouterr().out
    assert "held out: the sign of the result right in" in printed and f"wrote {out}" in printed


def test_a_missing_data_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert connect4_fit.main(["fit", "--data", str(tmp_path / "none.npy")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1


def test_lines_are_seeded_and_in_their_plies() -> None:
    greedy = connect4_fit.Greedy(connect4_eval.load_weights())
    for policy, low, high in (
        (None, connect4_fit.LOW, connect4_fit.HIGH),
        (greedy, connect4_fit.GREEDY_LOW, connect4_fit.GREEDY_HIGH),
    ):
        found = [connect4_fit.line(random.Random(f"t:{i}"), policy) for i in range(30)]
        again = [connect4_fit.line(random.Random(f"t:{i}"), policy) for i in range(30)]
        assert found == again
        kept = [f for f in found if f is not None]
        assert len(kept) > 5  # a random game often ends before its ply
        for state, moves in kept:
            assert low <= len(moves) <= high and state[2] == len(moves)
            replay = GAME.initial_state()
            for move in moves:
                replay = GAME.apply(replay, move)
            assert replay == state and not GAME.is_terminal(state)


def test_the_greedy_policy_takes_a_win_and_prefers_what_the_evaluation_prefers() -> None:
    greedy = connect4_fit.Greedy(connect4_eval.load_weights())
    state = GAME.initial_state()
    for move in (0, 6, 1, 6, 2):  # X threatens d1 on the bottom row, O to move
        state = GAME.apply(state, move)
    state = GAME.apply(state, 5)  # O ignores it
    assert all(greedy(random.Random(i), state) == 3 for i in range(20))  # X wins at once
    # from the empty board the center column is the evaluation's clear favourite
    chosen = [greedy(random.Random(i), GAME.initial_state()) for i in range(200)]
    assert chosen.count(3) > 100
