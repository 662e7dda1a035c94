"""Go's compiled kernel (player/mcts/fast/go) held to the rules API (games/go.py).

- Random games on 5×5, 9×9 and 19×19, driven by the rules, with the kernel's
  row carried along by its own `play`: at every ply the kernel's legal moves
  are the rules' plus only moves the rules refuse by positional superko (each
  one checked to repeat a position of the game), the stones after every move
  are the rules' (captures), the simple-ko point is the one the rules' history
  implies, and at the end the area count and the winner are the rules'.
- The positions reachable through the kernel from the empty board, on 2×2
  and 3×3, are the legal positions Tromp and Farnebäck counted (OEIS A094777).
- Light playouts replayed through the rules: every move a legal one that
  does not fill the mover's own eye (`Go.playout`'s rule), a pass only when
  no such move is left, and the winner the rules' count of the final board;
  their win rate is `Go.playout`'s.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("numba")

import numpy as np

from games.go import PASS, Go, GoState, _key_of
from player.mcts.fast import kernels
from player.mcts.fast.adapters import adapter_for
from player.mcts.fast.core.adapter import Adapter
from player.mcts.fast.core.codes import DRAW, ONGOING, Rollout
from player.mcts.fast.core.rng import new_rng
from player.mcts.fast.go import config, kernel

MOVES = np.empty(400, dtype=np.int64)


def adapter(game: Go) -> Adapter:
    found = adapter_for(game)
    assert found is not None and found.gid == kernels.GO
    return found


def stones(game: Go, state: GoState) -> tuple[frozenset[int], frozenset[int]]:
    """Black's and White's points on the rules' board."""
    position = game.tables.position
    return (
        frozenset(m for m, pos in enumerate(position) if (state[0] >> pos) & 1),
        frozenset(m for m, pos in enumerate(position) if (state[1] >> pos) & 1),
    )


def repeats(game: Go, state: GoState, a: Adapter, row: np.ndarray, move: int) -> bool:
    """Whether the kernel's `move` in `row` (the rules' `state`) recreates a position of the
    game so far (the rules' history of Zobrist keys)."""
    child = np.empty_like(row)
    kernels.play(a.gid, a.cfg, row, move, child)
    black, white = kernel.decode_board(game.size, child)
    position, zobrist = game.tables.position, game.tables.zobrist
    key = _key_of(sum(1 << position[m] for m in black), zobrist[0]) ^ _key_of(
        sum(1 << position[m] for m in white), zobrist[1]
    )
    return key in state[5]


def own_eye(game: Go, state: GoState, move: int) -> bool:
    """`Go.playout`'s eye rule for the side to move at the empty point `move`."""
    tables = game.tables
    pos = tables.position[move]
    mover = state[2] & 1
    me, opp = (state[1], state[0]) if mover else (state[0], state[1])
    if tables.neighbours[pos] & ~me:
        return False
    enemy = tables.diagonals[pos] & opp
    return not enemy or (not tables.on_edge[pos] and not enemy & (enemy - 1))


def random_move(game: Go, state: GoState, rng: random.Random, eyes: bool) -> int:
    """A uniformly random legal move; with `eyes` False, never one that fills the mover's
    own eye (so the game ends by passes, with territory to count)."""
    moves = game.legal_moves(state)
    if not eyes:
        moves = [m for m in moves if m == PASS or not own_eye(game, state, m)]
        if len(moves) > 1:
            moves.remove(PASS)
    return rng.choice(moves)


def play_and_compare(game: Go, rng: random.Random, eyes: bool) -> dict[str, int]:
    """One game, the kernel held to the rules at every ply; what it met, counted."""
    a = adapter(game)
    met = {"plies": 0, "superko": 0, "captures": 0, "ko": 0}
    state = game.initial_state()
    row = np.array(a.encode_state(state), dtype=np.int64)
    while True:
        n = kernels.legal(a.gid, a.cfg, row, MOVES)
        ours = {int(m) for m in MOVES[:n]}
        rules = set(game.legal_moves(state))
        assert rules <= ours, f"the kernel refuses {rules - ours} at ply {state[2]}"
        for move in ours - rules:  # refused by the rules: only a repeated position
            assert repeats(game, state, a, row, move), f"{move} at ply {state[2]}"
            met["superko"] += 1
        outcome = game.outcome(state)
        status = kernels.status(a.gid, a.cfg, row)
        if outcome is not None:
            assert status == (DRAW if outcome.winner is None else outcome.winner)
            assert kernel.area(a.cfg, row) == game.area(state)
            return met
        assert status == ONGOING
        assert kernels.to_move(a.gid, a.cfg, row) == game.to_move(state)
        move = random_move(game, state, rng, eyes)
        child = np.empty_like(row)
        kernels.play(a.gid, a.cfg, row, a.encode_move(move), child)
        before = state
        state, row = game.apply(state, move), child
        met["plies"] += 1
        met["captures"] += (state[7] + state[8]) - (before[7] + before[8])
        assert kernel.decode_board(game.size, row) == stones(game, state), f"ply {state[2]}"
        encoded = np.array(a.encode_state(state), dtype=np.int64)
        info = 2 * config.words(game.size)
        assert (encoded[:info] == row[:info]).all()
        assert kernel.ply_of(a.cfg, row) == state[2] == kernel.ply_of(a.cfg, encoded)
        assert kernel.passes_of(a.cfg, row) == state[3] == kernel.passes_of(a.cfg, encoded)
        assert kernel.last_of(a.cfg, row) == state[6] == kernel.last_of(a.cfg, encoded)
        ko, implied = kernel.ko_of(a.cfg, row), kernel.ko_of(a.cfg, encoded)
        if ko >= 0:
            met["ko"] += 1
        # the history may imply a ko the kernel's play did not set; the rules refuse it then
        assert ko == implied or (ko < 0 and implied not in game.legal_moves(state))


def held_to_the_rules(size: int, games: int, seed: int) -> dict[str, int]:
    game = Go(size=size)
    rng = random.Random(seed)
    total: dict[str, int] = {}
    for i in range(games):
        for key, value in play_and_compare(game, rng, eyes=i % 2 == 0).items():
            total[key] = total.get(key, 0) + value
    return total


@pytest.mark.parametrize(("size", "games"), [(5, 300), (9, 60), (19, 4)])
def test_the_kernel_is_held_to_the_rules_over_random_games(size: int, games: int) -> None:
    met = held_to_the_rules(size, games, seed=size)
    # the games met what the comparison is for
    assert met["captures"] > 0 and met["ko"] > 0
    if size == 5:
        assert met["superko"] > 0


@pytest.mark.slow
@pytest.mark.parametrize(("size", "games"), [(5, 3000), (9, 1000), (19, 100)])
def test_thousands_of_random_games_hold_the_kernel_to_the_rules(size: int, games: int) -> None:
    met = held_to_the_rules(size, games, seed=100 + size)
    assert met["captures"] > 0 and met["ko"] > 0 and met["superko"] > 0


def reachable_positions(size: int) -> int:
    """Every board reached from the empty one through the kernel, either side to move."""
    game = Go.unchecked(size, move_cap=1000)
    a = adapter(game)
    count = config.words(size)
    empty = (0,) * (2 * count)
    seen = {empty}
    frontier = [empty]
    while frontier:
        following = []
        for words in frontier:
            for mover in (0, 1):
                row = np.array([*words, int(kernel.pack(mover, 0, -1, -2, ONGOING))])
                child = np.empty_like(row)
                for i in range(kernels.legal(a.gid, a.cfg, row, MOVES) - 1):  # not the pass
                    kernels.play(a.gid, a.cfg, row, int(MOVES[i]), child)
                    board = tuple(int(x) for x in child[: 2 * count])
                    if board not in seen:
                        seen.add(board)
                        following.append(board)
        frontier = following
    return len(seen)


def test_the_kernel_reaches_every_legal_position_of_tiny_boards() -> None:
    # Tromp and Farnebäck (OEIS A094777), as tests/games/test_go.py holds the rules to
    assert reachable_positions(2) == 57
    assert reachable_positions(3) == 12_675


def replay(game: Go, start: GoState, moves: list[int]) -> GoState:
    """Play a kernel playout's recorded moves through the rules, checking each one."""
    state = start
    for move in moves:
        if move == PASS:
            # a pass only when every legal point is the mover's own eye
            assert all(own_eye(game, state, m) for m in game.legal_moves(state) if m != PASS)
        else:
            assert not own_eye(game, state, move)
            if move not in game.legal_moves(state):  # the kernel knows only simple ko
                a = adapter(game)
                row = np.array(a.encode_state(state), dtype=np.int64)
                assert repeats(game, state, a, row, move)
        state = game.apply(state, move)
    return state


@pytest.mark.parametrize("size", [5, 9, 19])
def test_light_playouts_play_by_the_rules_and_count_as_the_rules_do(size: int) -> None:
    game = Go(size=size)
    a = adapter(game)
    rng = random.Random(size)
    krng = new_rng(size)
    record = np.empty(game.move_cap, dtype=np.int64)
    for _ in range(40 if size < 19 else 6):
        # from the empty board, and from positions along a random game
        state = game.initial_state()
        for _ in range(rng.randrange(3 * size)):
            if game.is_terminal(state):
                break
            state = game.apply(state, random_move(game, state, rng, eyes=False))
        row = np.array(a.encode_state(state), dtype=np.int64)
        winner, plies = kernel.playout(a.cfg, row, krng, Rollout.RANDOM.value, record)
        end = replay(game, state, [int(m) for m in record[:plies]])
        outcome = game.outcome(end)
        assert outcome is not None, "the playout stopped before the game's end"
        assert winner == (DRAW if outcome.winner is None else outcome.winner)
        assert end[2] == state[2] + plies


def test_a_short_record_keeps_the_first_moves() -> None:
    game = Go(size=9)
    a = adapter(game)
    row = np.array(a.encode_state(game.initial_state()), dtype=np.int64)
    full = np.empty(game.move_cap, dtype=np.int64)
    winner, played = kernel.playout(a.cfg, row, new_rng(5), 0, full)
    short = np.empty(10, dtype=np.int64)
    assert kernel.playout(a.cfg, row, new_rng(5), 0, short) == (winner, played)
    assert (short == full[:10]).all() and played > 10
    # no record, the same game: the rollout is the playout
    assert kernels.rollout(a.gid, a.cfg, row, new_rng(5), 0) == winner
    assert kernel.playouts(a.cfg, row, new_rng(5), 0, 1) == played


def test_light_playouts_win_as_often_as_the_rules_playout() -> None:
    """The kernel's light playout is `Go.playout`'s: Black's win rate from the empty
    9×9 board and the plies per game agree."""
    game = Go(size=9)
    a = adapter(game)
    row = np.array(a.encode_state(game.initial_state()), dtype=np.int64)
    krng = new_rng(3)
    record = np.empty(game.move_cap, dtype=np.int64)
    n = 20_000
    wins = plies = 0
    for _ in range(n):
        winner, played = kernel.playout(a.cfg, row, krng, 0, record)
        wins += winner == 0
        plies += played
    rng = random.Random(3)
    m = 1_500
    ends: list[Any] = [game.playout(game.initial_state(), rng) for _ in range(m)]
    python_wins = sum(game.score(end).winner == 0 for end in ends)
    python_plies = sum(end[2] for end in ends)
    assert abs(wins / n - python_wins / m) < 0.04
    assert abs(plies / n - python_plies / m) < 3
