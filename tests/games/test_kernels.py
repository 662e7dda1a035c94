"""The compiled kernels (player/mcts/fast) play the same rules as the Python games.

Perft-style counts through the kernels' own move generation equal the
published counts the Python games are held to (tests/games/test_connect4.py,
test_tictactoe.py, test_reversi.py's Othello perft, test_ultimate.py), and
random games driven move by move through both reach identical states, legal
move sets and outcomes.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

pytest.importorskip("numba")

import numpy as np

from games import make_game
from player.mcts.fast import kernels
from player.mcts.fast.adapters import Adapter, adapter_for
from player.mcts.fast.rng import new_rng

GAMES = ["connect4", "tictactoe", "reversi", "ultimate", "gomoku"]
#: random games per test (gomoku's 225 cells make each Python game slow)
GAME_COUNT = {"gomoku": 20}


def adapter(game: Any) -> Adapter:
    found = adapter_for(game)
    assert found is not None
    return found


def kernel_counts(name: str, depth: int) -> list[tuple[int, int]]:
    """(distinct positions, move sequences) per ply, through the kernel only."""
    game = make_game(name)
    a = adapter(game)
    moves = np.empty(128, dtype=np.int64)
    level: Counter[tuple[int, ...]] = Counter({a.encode_state(game.initial_state()): 1})
    result = []
    for _ in range(depth):
        following: Counter[tuple[int, ...]] = Counter()
        for state, paths in level.items():
            row = np.array(state, dtype=np.int64)
            for i in range(kernels.legal(a.gid, a.cfg, row, moves)):
                child = np.empty(a.state_size, dtype=np.int64)
                kernels.play(a.gid, a.cfg, row, int(moves[i]), child)
                following[tuple(int(x) for x in child)] += paths
        level = following
        result.append((len(level), sum(level.values())))
    return result


def test_connect4_kernel_positions_and_perft() -> None:
    counts = kernel_counts("connect4", 7)
    # OEIS A212693 and perft(d) = 7**d (d <= 6), 7**7 - 7 (see test_connect4.py)
    assert [p for p, _ in counts] == [7, 49, 238, 1120, 4263, 16422, 54859]
    assert [s for _, s in counts] == [7**d for d in range(1, 7)] + [7**7 - 7]


def test_tictactoe_kernel_perft() -> None:
    # games still going at each ply: the counts of test_tictactoe.test_perft_by_depth
    counts = kernel_counts("tictactoe", 9)
    assert [s for _, s in counts] == [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]


def test_reversi_kernel_perft() -> None:
    # Aart Bik's Othello perft (as in test_reversi.PERFT): sequences per depth, passes counted
    from tests.games.test_reversi import PERFT

    counts = kernel_counts("reversi", 7)
    assert [s for _, s in counts] == [PERFT[d] for d in range(1, 8)]


def test_ultimate_kernel_counts_match_the_python_game() -> None:
    from games.ultimate import UltimateTicTacToe
    from tests.games.test_ultimate import perft_counts

    game = UltimateTicTacToe()
    assert [s for _, s in kernel_counts("ultimate", 3)] == perft_counts(game, 3)


@pytest.mark.parametrize("name", GAMES)
def test_random_games_reach_identical_states_and_outcomes(name: str) -> None:
    game = make_game(name)
    a = adapter(game)
    rng = random.Random(7)
    moves = np.empty(512, dtype=np.int64)
    for _ in range(GAME_COUNT.get(name, 200)):
        state = game.initial_state()
        row = np.array(a.encode_state(state), dtype=np.int64)
        while True:
            n = kernels.legal(a.gid, a.cfg, row, moves)
            kernel_moves = sorted(a.decode_move(int(m)) for m in moves[:n])
            assert kernel_moves == sorted(game.legal_moves(state))
            outcome = game.outcome(state)
            status = kernels.status(a.gid, a.cfg, row)
            if outcome is None:
                assert status == -1 and kernels.to_move(a.gid, a.cfg, row) == game.to_move(state)
            else:
                assert status == (2 if outcome.winner is None else outcome.winner)
                break
            move = rng.choice(game.legal_moves(state))
            child = np.empty_like(row)
            kernels.play(a.gid, a.cfg, row, a.encode_move(move), child)
            state, row = game.apply(state, move), child
            assert tuple(int(x) for x in row) == a.encode_state(state)


@pytest.mark.parametrize("name", GAMES)
def test_random_rollouts_match_the_python_playout_statistics(name: str) -> None:
    """Policy 0 is uniform random: its first-player win rate matches `Game.playout`'s."""
    game = make_game(name)
    a = adapter(game)
    row = np.array(a.encode_state(game.initial_state()), dtype=np.int64)
    krng = new_rng(3)
    n, tolerance = (2_000, 0.05) if name == "gomoku" else (20_000, 0.025)
    kernel = Counter(kernels.rollout(a.gid, a.cfg, row, krng, 0) for _ in range(n))
    rng = random.Random(3)
    python: Counter[int | None] = Counter(
        game.outcome(game.playout(game.initial_state(), rng)).winner  # type: ignore[union-attr]
        for _ in range(n)
    )
    for seat in (0, 1):
        assert abs(kernel[seat] / n - python[seat] / n) < tolerance


@pytest.mark.parametrize("name", GAMES)
def test_rollouts_end_by_the_rules(name: str) -> None:
    """Both policies return a legal result from positions along random games."""
    game = make_game(name)
    a = adapter(game)
    rng = random.Random(11)
    krng = new_rng(11)
    for _ in range(50):
        state = game.initial_state()
        while game.outcome(state) is None:
            row = np.array(a.encode_state(state), dtype=np.int64)
            for policy in (0, 1):
                assert kernels.rollout(a.gid, a.cfg, row, krng, policy) in (0, 1, 2)
            state = game.apply(state, rng.choice(game.legal_moves(state)))
        row = np.array(a.encode_state(state), dtype=np.int64)
        outcome = game.outcome(state)
        assert outcome is not None
        expected = 2 if outcome.winner is None else outcome.winner
        assert kernels.rollout(a.gid, a.cfg, row, krng, 1) == expected


def test_gomoku_smart_rollouts_take_a_win_and_block_one() -> None:
    game = make_game("gomoku")
    a = adapter(game)
    krng = new_rng(5)

    def after(moves: list[str]) -> np.ndarray:
        state = game.initial_state()
        for text in moves:
            state = game.apply(state, game.parse_move(text))
        return np.array(a.encode_state(state), dtype=np.int64)

    # X (to move) has four in a row, open at both ends: the smart policy always wins
    four = after(["a1", "o15", "b1", "o14", "c1", "o13", "d1", "n15"])
    assert {kernels.rollout(a.gid, a.cfg, four, krng, 1) for _ in range(200)} == {0}
    # O (to move) faces X's four with one open end (e1): unblocked, the smart X would
    # take it next move every time; O blocks, so X wins only some of the games
    blocked = after(["a1", "h8", "b1", "h9", "c1", "h10", "d1"])
    smart = Counter(kernels.rollout(a.gid, a.cfg, blocked, krng, 1) for _ in range(500))
    assert smart[0] < 400 and smart[1] > 50
