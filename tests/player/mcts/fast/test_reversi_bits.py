"""The compiled reversi move generator (mobility, flips, moves) against `games.reversi`."""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numba")

import numpy as np

from games.reversi import PASS, Reversi, ReversiState
from player.mcts.fast.reversi import kernel
from player.mcts.fast.reversi.bits import flips, neighbours, popcount, square_of


def random_games(count: int, seed: int) -> list[list[ReversiState]]:
    """`count` random games of `Reversi`, as their lists of states."""
    game, rng = Reversi(), random.Random(seed)
    games = []
    for _ in range(count):
        state = game.initial_state()
        states = [state]
        while not game.is_terminal(state):
            state = game.apply(state, rng.choice(game.legal_moves(state)))
            states.append(state)
        games.append(states)
    return games


def test_moves_and_flips_agree_with_the_game_on_random_games() -> None:
    game = Reversi()
    cfg = kernel.make_cfg()
    row = np.empty(kernel.STATE_SIZE, dtype=np.int64)
    out = np.empty(64, dtype=np.int64)
    for states in random_games(20, seed=1):
        for state in states:
            black, white, side = state[0], state[1], state[2]
            me, opp = (black, white) if side == 0 else (white, black)
            assert int(kernel.mobility(np.uint64(me), np.uint64(opp))) == state[4]
            if game.is_terminal(state):
                continue
            encoded = np.array(kernel.encode(state), dtype=np.int64)
            n = kernel.legal(cfg, encoded, out)
            assert sorted(out[:n].tolist()) == sorted(game.legal_moves(state))
            for move in game.legal_moves(state):
                kernel.play(cfg, encoded, move, row)
                assert tuple(row) == kernel.encode(game.apply(state, move))
                if move != PASS:
                    after = game.apply(state, move)
                    mine_after = after[0] if side == 0 else after[1]
                    expected = mine_after & ~me & ~(1 << move)
                    assert int(flips(move, np.uint64(me), np.uint64(opp))) == expected


def test_bit_helpers() -> None:
    full = np.uint64(0xFFFFFFFFFFFFFFFF)
    assert popcount(full) == 64 and popcount(np.uint64(0)) == 0
    assert [square_of(np.uint64(1 << k)) for k in (0, 9, 63)] == [0, 9, 63]
    # a1 (square 0) touches b1, a2, b2 only: nothing wraps around the board's edges
    assert int(neighbours(np.uint64(1))) == (1 << 1) | (1 << 8) | (1 << 9)
    assert int(neighbours(np.uint64(1 << 7))) == (1 << 6) | (1 << 14) | (1 << 15)
