"""Go's ladder reader (player/mcts/fast/go/ladder.py) on built 9×9 positions, checked
against what a player knows, and its use by the heavy policy and the prior.

- `caught`: a classic ladder from the lower left runs to the far corner and
  catches the chain; a ladder breaker on its diagonal lets it out; one that
  runs into the top edge catches it; an attacker stone that the chase puts
  in atari is taken (a counter-capture escape); the read leaves the board
  as it was;
- `escape` declines the extension that a ladder catches only when the
  board reads ladders (option ``go_ladders``);
- `ladder` (and `heavy`) plays the atari whose ladder works: none in the
  open, the one that drives the chain away from a breaker;
- the prior: no virtual win for an escape into a ladder, one for the atari
  that starts a working ladder;
- heavy playouts that read ladders still play by the rules.
"""

from __future__ import annotations

import random

import pytest

pytest.importorskip("numba")

import numpy as np

from games.go import Go
from player.mcts.fast.adapters import adapter_for
from player.mcts.fast.core.codes import Rollout
from player.mcts.fast.core.rng import new_rng
from player.mcts.fast.go import board, kernel, ladder, policy, prior
from player.mcts.fast.go.config import LADDERS, make_cfg

from .test_go_kernel import random_move
from .test_go_policy import at, build, replay_heavy
from .test_go_prior import priors

EMPTY = ["........."] * 9
#: Black's stone (6,2) in atari from White's (7,2), White's stones set for a ladder that
#: runs up and right, across the board to the corner (0,8)
LADDER = [
    ".........",
    ".........",
    ".........",
    ".........",
    ".........",
    "..O......",
    ".OX......",
    "..OO.....",
    ".........",
]


def put(rows: list[str], *stones: tuple[int, int, str]) -> list[str]:
    """`rows` with the stones (row, col, ``X`` or ``O``) added."""
    grid = [list(line) for line in rows]
    for r, c, ch in stones:
        grid[r][c] = ch
    return ["".join(line) for line in grid]


def reading(rows: list[str], mover: int, last: tuple[int, int]) -> np.ndarray:
    """`build`'s board, set to read ladders."""
    bd = build(rows, mover, last)
    bd[board.SCALAR, board.S_LADDERS] = 1
    return bd


def chain(bd: np.ndarray, r: int, c: int) -> int:
    """The head of the chain on (`r`, `c`)."""
    return int(bd[board.HEAD, at(bd, r, c)])


def test_a_ladder_from_the_corner_catches_the_chain_across_the_board() -> None:
    bd = reading(LADDER, mover=0, last=(7, 2))
    before = bd[: board.SCRATCH].copy()
    assert ladder.caught(bd, chain(bd, 6, 2), board.BLACK)
    assert (bd[: board.SCRATCH] == before).all()  # read on the scratch rows
    assert policy.escape(bd, board.BLACK) == board.NO_POINT
    assert policy.heavy(bd, board.BLACK) != at(bd, 6, 3)
    bd[board.SCALAR, board.S_LADDERS] = 0  # not reading: the old rule extends
    assert policy.escape(bd, board.BLACK) == at(bd, 6, 3)


def test_a_ladder_breaker_on_the_diagonal_lets_the_chain_out() -> None:
    bd = reading(put(LADDER, (2, 6, "X")), mover=0, last=(7, 2))
    assert not ladder.caught(bd, chain(bd, 6, 2), board.BLACK)
    assert policy.escape(bd, board.BLACK) == at(bd, 6, 3)


def test_a_ladder_that_runs_into_the_edge_catches_the_chain() -> None:
    rows = LADDER[4:] + EMPTY[:4]  # the same ladder four lines higher: the top edge
    bd = reading(rows, mover=0, last=(3, 2))
    assert ladder.caught(bd, chain(bd, 2, 2), board.BLACK)
    assert policy.escape(bd, board.BLACK) == board.NO_POINT


def test_an_attacker_stone_put_in_atari_by_the_chase_is_taken() -> None:
    # Black (5,1) leaves White (5,2) two liberties; Black's second extension, (5,3),
    # takes one, and Black takes the stone on (4,2) instead of running on
    rows = put(LADDER, (5, 1, "X"))
    bd = reading(rows, mover=0, last=(7, 2))
    assert board.counter_capture(bd, chain(bd, 6, 2), board.BLACK) == board.NO_POINT
    assert not ladder.caught(bd, chain(bd, 6, 2), board.BLACK)
    assert policy.escape(bd, board.BLACK) == at(bd, 6, 3)


def test_the_liberties_counted_up_to_three() -> None:
    bd = reading(put(EMPTY, (4, 4, "O"), (3, 4, "X"), (4, 3, "X")), mover=0, last=(4, 4))
    assert ladder.liberties(bd, chain(bd, 4, 4)) == (2, at(bd, 4, 5), at(bd, 5, 4))
    assert ladder.liberties(bd, chain(bd, 3, 4))[0] == 3
    bd = reading(LADDER, mover=0, last=(7, 2))
    assert ladder.liberties(bd, chain(bd, 6, 2)) == (1, at(bd, 6, 3), board.NO_POINT)


#: White's (4,4), two liberties (4,5) and (5,4), in Black's net: an atari on either
#: drives it along a diagonal, (4,5) towards the lower left, (5,4) the upper right
NET = put(EMPTY, (4, 4, "O"), (3, 4, "X"), (4, 3, "X"), (5, 5, "X"))


def test_no_ladder_atari_in_the_open() -> None:
    bd = reading(put(EMPTY, (4, 4, "O"), (3, 4, "X"), (4, 3, "X")), mover=0, last=(4, 4))
    assert policy.ladder(bd, board.BLACK) == board.NO_POINT


def test_the_atari_that_drives_the_chain_away_from_the_breaker() -> None:
    bd = reading(put(NET, (2, 6, "O")), mover=0, last=(4, 4))
    assert policy.ladder(bd, board.BLACK) == at(bd, 4, 5)
    assert policy.heavy(bd, board.BLACK) == at(bd, 4, 5)
    bd = reading(put(NET, (6, 2, "O")), mover=0, last=(4, 4))
    assert policy.ladder(bd, board.BLACK) == at(bd, 5, 4)
    bd = reading(put(NET, (2, 6, "O"), (6, 2, "O")), mover=0, last=(4, 4))
    assert policy.ladder(bd, board.BLACK) == board.NO_POINT
    bd = reading(put(NET, (2, 6, "O")), mover=0, last=(4, 4))
    bd[board.SCALAR, board.S_LADDERS] = 0
    assert policy.ladder(bd, board.BLACK) == board.NO_POINT


def ladder_cfg() -> np.ndarray:
    cfg = make_cfg(9, 7.0, 3 * 81)
    cfg[LADDERS] = 1
    return cfg


def test_the_prior_reads_ladders_when_told() -> None:
    plain = priors(LADDER, mover=0, last=(7, 2))
    read = priors(LADDER, mover=0, last=(7, 2), cfg=ladder_cfg())
    assert plain[(6, 3)][1] >= prior.ESCAPE_VISITS  # an escape's virtual win ...
    assert read[(6, 3)][1] < plain[(6, 3)][1]  # ... gone when a ladder catches it
    net = put(NET, (2, 6, "O"))
    plain = priors(net, mover=0, last=(4, 4))
    read = priors(net, mover=0, last=(4, 4), cfg=ladder_cfg())
    assert read[(4, 5)][1] == plain[(4, 5)][1] + prior.LADDER_VISITS
    assert read[(5, 4)] == plain[(5, 4)]


@pytest.mark.parametrize("size", [5, 9])
def test_heavy_playouts_that_read_ladders_play_by_the_rules(size: int) -> None:
    game = Go(size=size)
    a = adapter_for(game)
    assert a is not None
    cfg = a.cfg.copy()
    cfg[LADDERS] = 1
    rng = random.Random(size)
    krng = new_rng(size)
    record = np.empty(game.move_cap, dtype=np.int64)
    for _ in range(15):
        state = game.initial_state()
        for _ in range(rng.randrange(3 * size)):
            if game.is_terminal(state):
                break
            state = game.apply(state, random_move(game, state, rng, eyes=False))
        row = np.array(a.encode_state(state), dtype=np.int64)
        winner, plies = kernel.playout(cfg, row, krng, Rollout.HEAVY.value, record)
        end = replay_heavy(game, state, [int(m) for m in record[:plies]])
        outcome = game.outcome(end)
        assert outcome is not None
        assert winner == (2 if outcome.winner is None else outcome.winner)
