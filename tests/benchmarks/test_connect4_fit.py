"""The evaluation's fitting script: mirror images, features, a fit that the player can load."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("numba")

import numpy as np

from benchmarks import connect4_fit, connect4_net
from games.connect4 import Connect4
from player.mcts.fast.connect4 import evaluation as connect4_eval
from player.mcts.fast.connect4 import kernel as connect4
from player.mcts.fast.connect4 import solve as connect4_solve
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
    argv = ["fit", "--data", str(data), "--out", str(out), "--epochs", "50", "--hidden", "0"]
    assert connect4_fit.main(argv) == 0
    net = connect4_eval.load_weights(out)
    assert net.shape == (connect4_eval.NET_HEADER + connect4_eval.SIZE,)
    assert net[connect4_eval.HIDDEN] == 0 and np.count_nonzero(net) > 100
    printed = capsys.readouterr().out
    assert "held out: the sign of the result right in" in printed and f"wrote {out}" in printed


def test_a_fit_with_hidden_units_writes_the_network_the_player_evaluates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The trainer's own logits are the player's scores of the same positions."""
    data, out = tmp_path / "solved.npy", tmp_path / "net.npz"
    rows = solved_rows(160, 20)
    np.save(data, rows)
    argv = ["fit", "--data", str(data), "--out", str(out), "--epochs", "30"]
    argv += ["--hidden", "4", "--net-epochs", "3"]
    assert connect4_fit.main(argv) == 0
    printed = capsys.readouterr().out
    assert printed.count("net epoch ") == 3 and "wrote" in printed and "(4 hidden units)" in printed
    net = connect4_eval.load_weights(out)
    assert net[connect4_eval.HIDDEN] == 4
    with np.load(out) as saved:
        trained = connect4_net.Net(
            saved["weights"],
            saved["hidden"].astype(np.float32),
            saved["bias"],
            saved["out"],
            float(saved["out_bias"]),
        )
    assert np.count_nonzero(trained.hidden) > 100 and np.any(trained.out != 0)
    logits = trained.logits(connect4_fit.feature_rows(rows))  # for seat 0
    cfg = connect4.make_cfg(7, 6)
    buf = np.zeros((1, connect4_eval.FEATURES), dtype=np.int64)
    for row, z in zip(rows, logits, strict=True):
        mine = float(connect4_eval.score(cfg, row, net, 0, buf))  # for the side to move
        assert mine == pytest.approx(-z if row[2] % 2 else z, rel=1e-4, abs=1e-4)


def recorder(into: list[float]) -> Callable[[int, float], None]:
    """A training report that keeps each epoch's loss."""
    return lambda _epoch, loss: into.append(loss)


def test_training_lowers_the_loss_and_is_seeded() -> None:
    rows = solved_rows(200, 22)
    features, y = connect4_fit.feature_rows(rows), connect4_fit.targets(rows)
    linear = np.zeros(connect4_eval.SIZE)
    runs = []
    for _ in range(2):
        net = connect4_net.Net.start(linear, 8, seed=3)
        losses: list[float] = []
        connect4_net.train(net, features, y, 6, 0.01, 0.0, 5, recorder(losses))
        runs.append((losses, net.logits(features)))
    (losses, logits), (again, logits_again) = runs
    assert losses == again and np.array_equal(logits, logits_again)
    assert losses[-1] < 0.8 * losses[0]


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
    # a position of the fit's plies where one move is the evaluation's clear favourite (by more
    # than 1 logit, the noise 0.3) is chosen whenever the move is not a random one (1/4)
    cfg = connect4.make_cfg(7, 6)
    buf = np.zeros((1, connect4_eval.FEATURES), dtype=np.int64)
    for moves in late_positions(seed=31, count=40, ply=14):
        state = GAME.initial_state()
        for move in moves:
            state = GAME.apply(state, move)
        legal = GAME.legal_moves(state)
        children = [GAME.apply(state, move) for move in legal]
        if any(child[3] >= 0 for child in children):
            continue
        rated = sorted(
            (-connect4_eval.score(cfg, np.array(c, dtype=np.int64), greedy.weights, 0, buf), m)
            for m, c in zip(legal, children, strict=True)
        )
        if rated[-1][0] - rated[-2][0] > 1.0:
            break
    else:
        pytest.fail("no position with a clear favourite")
    chosen = [greedy(random.Random(i), state) for i in range(200)]
    assert chosen.count(rated[-1][1]) > 140


def test_lines_reach_the_plies_asked_for_and_the_default_lines_are_unchanged() -> None:
    found = [connect4_fit.line(random.Random(f"train:{i}"), None, (13, 15)) for i in range(60)]
    plies = {state[2] for state, moves in filter(None, found)}
    assert plies and plies <= {13, 14, 15}
    for i in range(20):  # the shipped data's lines: the same with or without the default range
        rng_a, rng_b = random.Random(f"train:{i}"), random.Random(f"train:{i}")
        assert connect4_fit.line(rng_a, None) == connect4_fit.line(
            rng_b, None, (connect4_fit.LOW, connect4_fit.HIGH)
        )


@pytest.mark.parametrize(
    ("plies", "said"),
    [("6-9", "within 10-41"), ("20-13", "the lower first"), ("12-42", "within"), ("x", "LOW-HIGH")],
)
def test_plies_outside_the_fitted_range_are_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], plies: str, said: str
) -> None:
    argv = ["generate", "--positions", "1", "--out", str(tmp_path / "x.npy"), "--plies", plies]
    with pytest.raises(SystemExit) as exit_:
        connect4_fit.main(argv)
    assert exit_.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--plies" in error and said in error and not (tmp_path / "x.npy").exists()
