"""The VCT search (player/mcts/fast/vct.py): found wins are real, no win is claimed falsely.

Soundness is checked by an independent referee written here in plain
Python (its own five-in-a-row test, no window scan): a line `vct` claims is
played out on a small board against *every* empty cell as the defender's
reply, the attacker asking `vct` again for each continuation; the claim
holds only if every branch ends in the attacker's five (the referee prunes
a branch early only where its own count says the attacker has two winning
cells the defender cannot stop, or one it must take).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

pytest.importorskip("numba")

import numpy as np

from games.gomoku import Gomoku
from player.agent import SearchLimit
from player.mcts.fast.adapters import adapter_for
from player.mcts.fast.core import tree
from player.mcts.fast.core.codes import PROVEN_LOSS
from player.mcts.fast.core.engine import FastSearch
from player.mcts.fast.core.rng import new_rng
from player.mcts.fast.mnk import big as bigmnk
from player.mcts.fast.mnk import threats, vct
from player.mcts.fast.mnk.options import GomokuOptions
from player.mcts.options import SearchOptions
from tests.player.mcts.fast.test_threats import board, position

GAME = Gomoku()
CFG = bigmnk.make_cfg(15, 15, 5)
SMALL = 9  # the referee's board: 9x9, k = 5
SMALL_CFG = bigmnk.make_cfg(SMALL, SMALL, 5)
BUDGET = 200_000


def search(cells: np.ndarray, side: int, budget: int = BUDGET, cfg: np.ndarray = CFG) -> int:
    before = cells.copy()
    move = vct.vct(cfg, cells, side, np.array([budget], dtype=np.int64))
    assert np.array_equal(cells, before), "vct must restore the board"
    return int(move)


# --- the referee (independent of threats.scan and vct) ------------------------------


def five(cells: list[int], size: int, cell: int, piece: int) -> bool:
    """Whether `piece` on `cell` (already placed) makes five or more in a row."""
    row, col = divmod(cell, size)
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            r, c = row + sign * dr, col + sign * dc
            while 0 <= r < size and 0 <= c < size and cells[r * size + c] == piece:
                run += 1
                r, c = r + sign * dr, c + sign * dc
        if run >= 5:
            return True
    return False


def winning_cells(cells: list[int], size: int, piece: int) -> list[int]:
    found = []
    for e, v in enumerate(cells):
        if v == 0:
            cells[e] = piece
            if five(cells, size, e, piece):
                found.append(e)
            cells[e] = 0
    return found


def referee(cells: list[int], size: int, attacker: int, depth: int) -> bool:
    """Whether the attacker (to move) wins by the lines `vct` gives, against every reply."""
    piece, foe = attacker + 1, 2 - attacker
    if winning_cells(cells, size, piece):
        return True
    if depth == 0:
        return False
    cfg = bigmnk.make_cfg(size, size, 5)
    move = search(np.array(cells, dtype=np.int8), attacker, cfg=cfg)
    if move < 0 or cells[move] != 0:
        return False
    cells[move] = piece
    try:
        if five(cells, size, move, piece):
            return True
        threats, counters = winning_cells(cells, size, piece), winning_cells(cells, size, foe)
        if len(threats) >= 2 and not counters:
            return True  # two winning cells, and the defender has no five to play first
        # against one winning cell (and no five of its own) any other reply loses at once
        replies = threats if threats and not counters else range(len(cells))
        for reply in replies:
            if cells[reply] != 0:
                continue
            cells[reply] = foe
            try:
                if five(cells, size, reply, foe) or not referee(cells, size, attacker, depth - 1):
                    return False
            finally:
                cells[reply] = 0
        return True
    finally:
        cells[move] = 0


# --- hand-made positions on 15x15 ----------------------------------------------------


def test_three_three_is_found() -> None:
    # X: f8 g8 (row 8) and h9 h10 (column h); h8 makes two open threes at once
    state = position("f8", "a1", "g8", "a3", "h9", "a5", "h10", "o15")
    cells = board(state)
    move = search(cells, GAME.to_move(state))
    assert GAME.format_move(move) in ("h8", "e8", "h11", "i8", "h7")
    assert move >= 0


def test_four_three_is_found() -> None:
    # X: e8 f8 g8, closed at d8 by O; and h10 h11. h8 is a four (O must take i8) that
    # also makes h8 . h10 h11, after which h9 is an open four: a four-three
    state = position("e8", "d8", "f8", "a1", "g8", "a3", "h10", "a5", "h11", "o15")
    cells = board(state)
    move = search(cells, GAME.to_move(state))
    assert move >= 0
    assert search(cells, 1) == -1  # O, far away, has nothing


def test_three_three_needs_more_than_fours() -> None:
    # the three-three position has no VCF: only the threes find the win
    state = position("f8", "a1", "g8", "a3", "h9", "a5", "h10", "o15")
    cells = board(state)
    assert threats.vcf(CFG, cells, 0, threats.MAX_VCF_DEPTH, np.array([BUDGET])) == -1
    assert search(cells, 0) >= 0


def test_nothing_claimed_without_a_threat() -> None:
    state = position("h8", "h9", "i8", "i9")
    assert search(board(state), GAME.to_move(state)) == -1
    # a lone stone each: no VCT either side
    state = position("h8", "a1")
    cells = board(state)
    assert search(cells, 0) == -1
    assert search(cells, 1) == -1


def test_the_budget_is_respected() -> None:
    state = position("f8", "a1", "g8", "a3", "h9", "a5", "h10", "o15")
    budget = np.array([3], dtype=np.int64)
    cells = board(state)
    move = vct.vct(CFG, cells, 0, budget)
    assert budget[0] >= 0
    assert move == -1 or GAME.format_move(int(move)) != ""


# --- soundness on small boards: every claim survives every defence ---------------


def random_position(rng: random.Random, stones: int) -> list[int]:
    """Stones placed near the centre of a 9x9 board, alternately, with no five yet."""
    cells = [0] * (SMALL * SMALL)
    side = 0
    placed = 0
    while placed < stones:
        r = min(SMALL - 1, max(0, int(rng.gauss(SMALL / 2, 1.6))))
        c = min(SMALL - 1, max(0, int(rng.gauss(SMALL / 2, 1.6))))
        e = r * SMALL + c
        if cells[e]:
            continue
        cells[e] = side + 1
        if five(cells, SMALL, e, side + 1):
            cells[e] = 0
            continue
        side = 1 - side
        placed += 1
    return cells


def test_claims_hold_against_every_defence() -> None:
    rng = random.Random(5)
    claimed = 0
    for _ in range(150):
        cells = random_position(rng, rng.randrange(9, 17))
        side = sum(1 for v in cells if v) % 2
        if winning_cells(cells, SMALL, 1 + side) or winning_cells(cells, SMALL, 2 - side):
            continue  # settled at once: not a VCT question
        move = search(np.array(cells, dtype=np.int8), side, cfg=SMALL_CFG)
        if move < 0:
            continue
        claimed += 1
        assert referee(cells, SMALL, side, vct.MAX_DEPTH), f"unsound claim {move!r} in {cells!r}"
    assert claimed >= 40  # the check saw real claims, not only silence


# --- the root check: our win played, moves that allow the opponent's win pruned --------


def fast_search(state: Any, vct_positions: int = 20_000) -> FastSearch:
    adapter = adapter_for(GAME)
    assert adapter is not None
    search = FastSearch(
        GAME, adapter, SearchOptions(memory=8), GomokuOptions(vct=vct_positions), seed=3
    )
    search._prepare(state)
    return search


def test_the_root_plays_our_threat_win() -> None:
    state = position("f8", "a1", "g8", "a3", "h9", "a5", "h10", "o15")
    result = fast_search(state).search(state, SearchLimit(time=0.5))
    assert result.root_proven == 1.0
    move = result.stats[0].move
    after = GAME.apply(state, move)
    assert search(board(after), 1) == -1  # O cannot strike first
    assert search(board(after), 0) >= 0  # and X keeps its win, wherever O plays next


def test_the_root_prunes_moves_that_allow_a_threat_win() -> None:
    # O to move; X (f8 g8, h9 h10; O holds e8, i8, j8) has a VCT if O lets it: only a few
    # O moves (e7, i10, i11, found by `vct` over every move) leave it none
    state = position("f8", "e8", "g8", "i8", "h9", "j8", "h10")
    fs = fast_search(state)
    root = int(fs.meta[tree.ROOT])
    assert fs.root_vct is not None
    marked = fs.root_vct.defend(fs, root, new_rng(1), float("inf"))
    first, count = int(fs.ni[root, tree.FIRST]), int(fs.ni[root, tree.NCH])
    children = range(first, first + count)
    lost = {int(fs.ni[j, tree.MOVE]) for j in children if fs.ni[j, tree.PROVEN] == PROVEN_LOSS}
    assert marked == len(lost) > 0
    assert len(lost) < count
    for move in lost:  # each mark is a proof: X has its VCT after that move
        assert search(board(GAME.apply(state, move)), 0) >= 0
    # the search's choice leaves X no VCT
    result = fs.search(state, SearchLimit(time=0.3))
    best = max(result.stats, key=lambda stat: stat.visits).move
    assert GAME.format_move(best) in ("e7", "i10", "i11")
    assert search(board(GAME.apply(state, best)), 0) == -1
