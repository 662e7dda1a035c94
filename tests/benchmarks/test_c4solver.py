"""The reference solver (benchmarks/c4solver): built with cc, right on known positions,
in agreement with plain minimax on late positions and with an independent perfect
solver from PyPI (`bitbully`, the ``bench`` extra) on a seeded sample."""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.c4solver import Solver, SolverError, build
from games.connect4 import Connect4
from tests.benchmarks.minimax import late_positions, move_values


@pytest.fixture(scope="module")
def solver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Solver]:
    if shutil.which("cc") is None:
        if os.environ.get("ARENA_REQUIRE_ENGINES"):
            pytest.fail("no C compiler (cc): run `make engines`")
        pytest.skip("no C compiler (cc) to build the solver")
    program = build(tmp_path_factory.mktemp("cache"))
    with Solver(program) as running:
        yield running


def test_known_positions(solver: Solver) -> None:
    # three full columns, X and O alternating: X's rows 1, 3, 5 and O's rows 2, 4, 6 each
    # need the fourth column; X to move wins there at once (values checked with bitbully)
    line = [0] * 6 + [1] * 6 + [2] * 6
    assert solver.values(line) == [None, None, None, 1, 0, 0, -1]
    assert solver.values(line[:-1]) == [None, None, -1, 1, -1, -1, -1]
    # a line that ended the game is an error
    with pytest.raises(SolverError):
        solver.values([0, 1, 0, 1, 0, 1, 0])


def test_the_build_is_cached(tmp_path: Path) -> None:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    first = build(tmp_path)
    stamp = first.stat().st_mtime_ns
    assert build(tmp_path) == first
    assert first.stat().st_mtime_ns == stamp


def test_agrees_with_plain_minimax_on_late_positions(solver: Solver) -> None:
    game = Connect4()
    for moves in late_positions(seed=11, count=8, ply=32):
        state = game.initial_state()
        for move in moves:
            state = game.apply(state, move)
        assert solver.values(moves) == move_values(game, state), moves


def test_agrees_with_bitbully(solver: Solver) -> None:
    """BitBully (Markus Thill's C++ solver, on PyPI) scores every move exactly; only
    the signs are compared. Mid-game positions, so that it answers in milliseconds."""
    core = pytest.importorskip("bitbully.bitbully_core")
    reference = core.BitBullyCore()
    rng = random.Random(24)
    for moves in late_positions(seed=rng.randrange(1 << 30), count=12, ply=20):
        board = core.BoardCore()
        assert board.play(list(moves))
        if board.canWin():  # bitbully scores only positions not won at once
            continue
        scores = reference.scoreMoves(board)
        expected = [
            None if not board.isLegalMove(c) else (s > 0) - (s < 0) for c, s in enumerate(scores)
        ]
        assert solver.values(moves) == expected, moves


def test_the_bitbully_reference_agrees_with_our_solver(solver: Solver) -> None:
    """`BitBullySolver` (the accuracy benchmark's fast reference) answers as our C solver,
    column by column, on seeded mid-game positions."""
    pytest.importorskip("bitbully")
    from benchmarks.c4solver.reference import BitBullySolver

    game = Connect4()
    reference = BitBullySolver()
    checked = 0
    for moves in late_positions(seed=41, count=20, ply=18):
        state = game.initial_state()
        for move in moves:
            state = game.apply(state, move)
        if any(game.apply(state, m)[3] == game.to_move(state) for m in game.legal_moves(state)):
            continue  # won at once: bitbully does not score it
        assert reference.values(moves) == solver.values(moves), moves
        checked += 1
    assert checked >= 10
