"""Go's playout policies (player/mcts/fast/go/policy.py) on built positions, through the
compiled board, and heavy playouts held to the rules API (games/go.py).

- each heavy rule on a position built for it: `capture` takes the biggest
  chain the last move left in atari, `escape` extends out of an atari the
  last move made (and declines when that only makes a bigger self-atari),
  `heavy_random` never plays a self-atari of two stones or more (`light`
  does), and no policy fills its own eye (a pass when only eyes are left);
- the runtime 3×3 code of a point is the learning script's (`code_at`), and
  `pattern` plays only fit points beside the last move;
- heavy playouts replayed through the rules: every move legal and no own
  eye, a pass only when no fit point is left, the winner the rules' count.
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numba")

import numpy as np

from benchmarks.go_patterns import code_at
from games.go import PASS, Go, GoState
from player.mcts.fast.adapters import adapter_for
from player.mcts.fast.core.codes import ONGOING, Rollout
from player.mcts.fast.core.rng import new_rng
from player.mcts.fast.go import board, kernel, policy
from player.mcts.fast.go.config import make_cfg, words

from .test_go_kernel import own_eye, random_move, repeats


def build(rows: list[str], mover: int, last: tuple[int, int] | None, seed: int = 1) -> np.ndarray:
    """The compiled board of a diagram (``X`` Black, ``O`` White, ``.`` empty), `mover`
    (0 Black, 1 White) to move after the `last` move (row, col)."""
    n = len(rows)
    cfg = make_cfg(n, 7.0, 3 * n * n)
    count = words(n)
    row = np.zeros(2 * count + 1, dtype=np.int64)
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            m = r * n + c
            if ch in "XO":
                offset = 0 if ch == "X" else count
                row[offset + (m >> 6)] |= 1 << (m & 63)
    at = -2 if last is None else last[0] * n + last[1]
    row[2 * count] = kernel.pack(mover, 0, -1, at, ONGOING)
    bd = board.new_board(cfg)
    board.load(cfg, row, bd, -1, at)
    bd[board.SCALAR, board.S_RNG] = np.int64(new_rng(seed)[0])
    return bd


def at(bd: np.ndarray, r: int, c: int) -> int:
    """The grid point of (`r`, `c`)."""
    return int(
        board.grid(int(bd[board.SCALAR, board.S_N]), r * int(bd[board.SCALAR, board.S_N]) + c)
    )


def test_capture_takes_the_biggest_chain_the_last_move_left_in_atari() -> None:
    bd = build(
        [
            "..X..",
            ".XOOX",
            "..XXO",
            ".....",
            ".....",
        ],
        mover=0,
        last=(1, 3),
    )
    # White's two stones have one liberty (0,3), its lone stone (2,4) one, (3,4)
    assert policy.capture(bd, board.BLACK) == at(bd, 0, 3)
    assert policy.heavy(bd, board.BLACK) == at(bd, 0, 3)
    assert policy.choose(bd, board.BLACK, Rollout.HEAVY.value) == at(bd, 0, 3)
    # Black's (1,4) is in atari too (liberty (0,4)): White to move would take it
    assert policy.capture(bd, board.WHITE) == at(bd, 0, 4)


def test_capture_needs_a_last_move() -> None:
    bd = build(["..X..", ".XOOX", "..XX.", ".....", "....."], mover=0, last=None)
    assert policy.capture(bd, board.BLACK) == board.NO_POINT
    assert policy.escape(bd, board.BLACK) == board.NO_POINT
    assert policy.pattern(bd, board.BLACK) == board.NO_POINT


def test_escape_extends_out_of_the_atari_the_last_move_made() -> None:
    bd = build(
        [
            ".....",
            ".OXO.",
            "..O..",
            ".....",
            ".....",
        ],
        mover=0,
        last=(2, 2),
    )
    assert policy.capture(bd, board.BLACK) == board.NO_POINT
    assert policy.escape(bd, board.BLACK) == at(bd, 0, 2)
    assert policy.heavy(bd, board.BLACK) == at(bd, 0, 2)


def test_escape_takes_a_chain_in_atari_that_touches_the_chain() -> None:
    bd = build(
        [
            "X....",
            "OXOX.",
            ".OX..",
            "..O..",
            ".....",
        ],
        mover=0,
        last=(3, 2),
    )
    # White's last move put Black (2,2) in atari (liberty (2,3)); White (1,2), touching
    # it, has one liberty: taking it frees (2,2)
    assert policy.capture(bd, board.BLACK) == board.NO_POINT
    assert policy.escape(bd, board.BLACK) == at(bd, 0, 2)


def test_escape_declines_an_extension_into_a_bigger_atari() -> None:
    bd = build(
        [
            "OX...",
            "OOO..",
            ".....",
            ".....",
            ".....",
        ],
        mover=0,
        last=(1, 1),
    )
    # Black (0,1)'s liberty is (0,2); there, two stones would have one liberty, (0,3)
    assert policy.escape(bd, board.BLACK) == board.NO_POINT
    assert policy.bad_self_atari(bd, at(bd, 0, 2), board.BLACK)
    assert not policy.bad_self_atari(bd, at(bd, 3, 3), board.BLACK)


def test_heavy_random_plays_no_self_atari_of_two_stones_where_light_does() -> None:
    rows = [
        "OX.X.",
        "OOXOO",
        "OOOOO",
        "OO.OO",
        "OO.OO",
    ]
    # Black on (0,2) joins three stones and on (0,4) one, each chain left with one liberty;
    # on (3,2) or (4,2) a lone stone would have one liberty: a throw-in it may play
    bad = (0, 2)
    heavy_picks = set()
    light_picks = set()
    for seed in range(1, 200):
        bd = build(rows, mover=0, last=None, seed=seed)
        heavy_picks.add(policy.heavy(bd, board.BLACK))
        bd = build(rows, mover=0, last=None, seed=seed)
        light_picks.add(policy.light(bd, board.BLACK))
    bd = build(rows, mover=0, last=None)
    assert policy.bad_self_atari(bd, at(bd, *bad), board.BLACK)
    assert at(bd, *bad) in light_picks
    assert policy.bad_self_atari(bd, at(bd, 0, 4), board.BLACK)
    assert heavy_picks == {at(bd, 3, 2), at(bd, 4, 2)}


def test_no_policy_fills_its_own_eye() -> None:
    rows = [
        ".X.X.",
        "XXXXX",
        "X.X.X",
        "XXXXX",
        ".X.X.",
    ]
    for seed in range(1, 20):
        for choice in (policy.light, policy.heavy):
            bd = build(rows, mover=0, last=(1, 1), seed=seed)
            assert choice(bd, board.BLACK) == policy.PASS
    # White may not play there either (every point a suicide): a pass too
    bd = build(rows, mover=1, last=(1, 1))
    assert policy.heavy(bd, board.WHITE) == policy.PASS


def test_the_runtime_code_is_the_learning_scripts() -> None:
    game = Go(size=7)
    rng = random.Random(5)
    a = adapter_for(game)
    assert a is not None
    for _ in range(20):
        state = game.initial_state()
        for _ in range(rng.randrange(40)):
            if game.is_terminal(state):
                break
            state = game.apply(state, random_move(game, state, rng, eyes=False))
        row = np.array(a.encode_state(state), dtype=np.int64)
        bd = board.new_board(a.cfg)
        board.load(a.cfg, row, bd, -1, -1)
        colour = (state.ply & 1) + 1
        for m in range(49):
            p = board.grid(7, m)
            if bd[board.COLOUR, p] == board.EMPTY:
                assert policy.code(bd, p, colour) == code_at(game, state, m)


def test_pattern_plays_only_fit_points_beside_the_last_move() -> None:
    rows = [
        ".........",
        ".........",
        "..X.O....",
        "...XO....",
        "...OX....",
        ".........",
        ".........",
        ".........",
        ".........",
    ]
    picks = set()
    for seed in range(1, 300):
        bd = build(rows, mover=1, last=(4, 4), seed=seed)
        p = policy.pattern(bd, board.WHITE)
        if p != board.NO_POINT:
            picks.add(p)
            assert policy.fit(bd, p, board.WHITE)
    near = {at(bd, 4 + dr, 4 + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)}
    assert picks <= near
    if policy.WEIGHTS.any():  # the shipped table: some pattern beside the move weighs
        assert picks


def fit_in_rules(game: Go, state: GoState, move: int) -> bool:
    """Whether the heavy policy may play `move` (legal, no own eye, no bad self-atari)."""
    a = adapter_for(game)
    assert a is not None
    row = np.array(a.encode_state(state), dtype=np.int64)
    bd = board.new_board(a.cfg)
    board.load(a.cfg, row, bd, kernel.ko_of(a.cfg, row), kernel.last_of(a.cfg, row))
    p = board.grid(game.size, move)
    colour = (state.ply & 1) + 1
    return not own_eye(game, state, move) and not policy.bad_self_atari(bd, p, colour)


def replay_heavy(game: Go, start: GoState, moves: list[int]) -> GoState:
    """Play a heavy playout's recorded moves through the rules, checking each one."""
    state = start
    for move in moves:
        if move == PASS:
            assert not any(
                fit_in_rules(game, state, m) for m in game.legal_moves(state) if m != PASS
            )
        else:
            assert not own_eye(game, state, move)
            if move not in game.legal_moves(state):  # the kernel knows only simple ko
                a = adapter_for(game)
                assert a is not None
                row = np.array(a.encode_state(state), dtype=np.int64)
                assert repeats(game, state, a, row, move)
        state = game.apply(state, move)
    return state


@pytest.mark.parametrize("size", [5, 9])
def test_heavy_playouts_play_by_the_rules_and_count_as_the_rules_do(size: int) -> None:
    game = Go(size=size)
    a = adapter_for(game)
    assert a is not None and a.smart == Rollout.HEAVY
    rng = random.Random(size)
    krng = new_rng(size)
    record = np.empty(game.move_cap, dtype=np.int64)
    for _ in range(25):
        state = game.initial_state()
        for _ in range(rng.randrange(3 * size)):
            if game.is_terminal(state):
                break
            state = game.apply(state, random_move(game, state, rng, eyes=False))
        row = np.array(a.encode_state(state), dtype=np.int64)
        winner, plies = kernel.playout(a.cfg, row, krng, Rollout.HEAVY.value, record)
        end = replay_heavy(game, state, [int(m) for m in record[:plies]])
        outcome = game.outcome(end)
        assert outcome is not None, "the playout stopped before the game's end"
        assert winner == (2 if outcome.winner is None else outcome.winner)
        assert end[2] == state[2] + plies
