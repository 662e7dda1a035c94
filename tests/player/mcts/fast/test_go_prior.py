"""Go's prior (player/mcts/fast/go/prior.py) on built positions, called as the core calls
it: the kernel's legal moves of a row, and arrays of virtual visits and wins to fill."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

import numpy as np

from player.mcts.fast.core.codes import ONGOING
from player.mcts.fast.go import kernel, prior
from player.mcts.fast.go.config import PRIOR, make_cfg, words


def priors(
    rows: list[str], mover: int, last: tuple[int, int] | None, cfg: np.ndarray | None = None
) -> dict[tuple[int, int] | None, tuple[int, float]]:
    """Per legal move (row, col), or None for the pass: its virtual (visits, wins)."""
    n = len(rows)
    cfg = make_cfg(n, 7.0, 3 * n * n) if cfg is None else cfg
    count = words(n)
    st = np.zeros(2 * count + 1, dtype=np.int64)
    for r, line in enumerate(rows):
        for c, ch in enumerate(line):
            m = r * n + c
            if ch in "XO":
                st[(0 if ch == "X" else count) + (m >> 6)] |= 1 << (m & 63)
    at = -2 if last is None else last[0] * n + last[1]
    st[2 * count] = kernel.pack(mover, 0, -1, at, ONGOING)
    moves = np.empty(n * n + 1, dtype=np.int64)
    legal = kernel.legal(cfg, st, moves)
    visits = np.full(legal, -7, dtype=np.int32)
    wins = np.full(legal, -7.0)
    prior.prior(cfg, st, moves, legal, visits, wins)
    assert (visits >= 0).all() and (wins >= 0).all() and (wins <= visits).all()
    return {
        (None if m < 0 else divmod(int(m), n)): (int(v), float(w))
        for m, v, w in zip(moves[:legal], visits, wins, strict=True)
    }


EMPTY9 = ["." * 9] * 9


def test_the_empty_board_discourages_the_pass_and_the_edges() -> None:
    got = priors(EMPTY9, mover=0, last=None)
    assert got[None] == (prior.PASS_VISITS, 0.0)
    assert got[(0, 4)] == (prior.EDGE_VISITS, 0.0)  # first line: a virtual loss
    assert got[(1, 4)][1] < got[(1, 4)][0] / 2  # second line: a loss too
    assert got[(2, 4)][1] > got[(2, 4)][0] / 2  # third line: a win
    assert got[(4, 4)] == (0, 0.0)  # the centre: no word


def test_a_crowded_board_lets_the_pass_be() -> None:
    rows = ["XXXXXXXXX", "XXXXXXXXX", "XXXXXXXXX", "XXXXXXXXX", "OOOOOOOOO", "........."]
    got = priors(rows + ["........."] * 3, mover=1, last=(4, 0))
    assert got[None] == (0, 0.0)


def test_captures_and_escapes_get_virtual_wins() -> None:
    rows = [
        ".........",
        "..XO.....",
        ".XO......",
        "..X......",
        ".........",
        "....O....",
        "...OXO...",
        ".........",
        ".........",
    ]
    got = priors(rows, mover=0, last=(6, 5))
    # White (2,2) has one liberty, (2,3): Black takes it there
    v, w = got[(2, 3)]
    assert v >= prior.CAPTURE_VISITS and w == v
    # Black (6,4) is in atari after White (6,5): (7,4) extends to three liberties
    v, w = got[(7, 4)]
    assert v >= prior.ESCAPE_VISITS and w >= prior.ESCAPE_VISITS


def test_own_eyes_and_self_ataris_get_virtual_losses() -> None:
    rows = [
        "OX.X.....",
        "OOXOO....",
        "OOOOO....",
        ".X.X.....",
        "X.X......",
        ".X.......",
        ".........",
        ".........",
        ".........",
    ]
    got = priors(rows, mover=0, last=(2, 4))
    assert got[(0, 2)] == (prior.BAD_VISITS, 0.0)  # four stones left with one liberty
    assert got[(4, 1)] == (prior.BAD_VISITS, 0.0)  # Black's own eye


def test_the_go_prior_option_weighs_every_virtual_visit_and_win() -> None:
    """``go_prior`` reaches the search's config and scales the prior (0: none at all)."""
    from games.go import Go
    from player.mcts.fast.adapters import adapter_for
    from player.mcts.fast.core.engine import FastSearch
    from player.mcts.fast.go.options import GoOptions

    game = Go(size=9)
    adapter = adapter_for(game)
    assert adapter is not None and adapter.knowledge is GoOptions
    plain = priors(EMPTY9, mover=0, last=None)
    for weight, factor in ((1.0, 1.0), (2.0, 2.0), (0.5, 0.5), (0.0, 0.0)):
        cfg = FastSearch(game, adapter, knowledge=GoOptions(go_prior=weight)).cfg
        got = priors(EMPTY9, mover=0, last=None, cfg=cfg)
        assert got.keys() == plain.keys()
        for move, (visits, wins) in plain.items():
            assert got[move] == (int(visits * factor), wins * factor)
    assert adapter.cfg[PRIOR] == 100  # the adapter's own config is left as it was
