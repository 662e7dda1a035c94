"""The gomoku threat knowledge (player/mcts/fast/threats.py) on constructed positions.

Positions are given as move lists and played with the real rules
(`games.gomoku`); a VCF the search finds is then played out against the
rules too: each attacking move must leave the defender exactly one winning
cell to take (or none it can stop), and the line must end in five.
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("numba")

import numpy as np

from games.gomoku import Gomoku
from player.mcts.fast.mnk import big as bigmnk
from player.mcts.fast.mnk import threats

GAME = Gomoku()
CFG = bigmnk.make_cfg(15, 15, 5)
#: a position (O to move) with a VCF of four fours, found by a seeded random search
VCF_POSITION: tuple[str, ...] = ("g10", "h9", "e8", "k11", "d12", "h5", "k4", "f6", "k12")
VCF_POSITION += ("h8", "d8", "j8", "j4", "i4", "e5", "l12", "e4")


def position(*moves: str) -> Any:
    state = GAME.initial_state()
    for text in moves:
        state = GAME.play(state, GAME.parse_move(text))
    return state


def board(state: Any) -> Any:
    cells = np.zeros(225, dtype=np.int8)
    for cell in range(225):
        if state[0] >> cell & 1:
            cells[cell] = 1
        elif state[1] >> cell & 1:
            cells[cell] = 2
    return cells


def scanned(cells: Any) -> threats.Scan:
    scan = threats.Scan(225)
    threats.scan(CFG, cells, scan.score, scan.wins, scan.fours, scan.fpair, scan.zone, scan.total)
    return scan


def cells_of(*names: str) -> set[int]:
    return {GAME.parse_move(name) for name in names}


def test_scan_finds_winning_cells_and_the_open_three() -> None:
    # X: f8 g8 h8 (an open three), O elsewhere; then X: e8..h8 is an open four
    state = position("f8", "f10", "g8", "g10", "h8")
    scan = scanned(board(state))
    assert not scan.wins.any()
    # a stone of X on e8 or i8 makes two winning cells; d8 or j8 make one
    doubles = {int(e) for e in np.nonzero(scan.fours[0] >= 2)[0]}
    singles = {int(e) for e in np.nonzero(scan.fours[0] == 1)[0]}
    assert doubles == cells_of("e8", "i8")
    assert singles == cells_of("d8", "j8")
    four = board(position("f8", "f10", "g8", "g10", "h8", "a1", "i8"))
    assert {int(e) for e in np.nonzero(scanned(four).wins[0])[0]} == cells_of("e8", "j8")


def test_vcf_line_wins_under_the_real_rules() -> None:
    state = position(*VCF_POSITION)
    attacker = GAME.to_move(state)
    for _ in range(20):
        cells = board(state)
        if scanned(cells).wins[attacker].any():
            move = int(np.argmax(scanned(cells).wins[attacker]))
            state = GAME.apply(state, move)
            break
        move = threats.vcf(CFG, cells, attacker, threats.MAX_VCF_DEPTH, np.array([50_000]))
        assert move >= 0
        state = GAME.apply(state, move)
        replies = np.nonzero(scanned(board(state)).wins[attacker])[0]
        assert len(replies) >= 1  # every attacking move is a four
        state = GAME.apply(state, int(replies[0]))  # the defender takes (one) winning cell
    outcome = GAME.outcome(state)
    assert outcome is not None and outcome.winner == attacker


def test_vcf_is_not_found_where_there_is_none_and_respects_its_budget() -> None:
    quiet = board(position("h8", "h9", "i8"))
    assert threats.vcf(CFG, quiet, 0, threats.MAX_VCF_DEPTH, np.array([10_000])) == -1
    spent = np.array([3])
    before = board(position(*VCF_POSITION))
    cells = before.copy()
    assert threats.vcf(CFG, cells, 1, threats.MAX_VCF_DEPTH, spent) == -1  # too few positions
    assert spent[0] == 0
    assert (cells == before).all()  # the board is restored


def test_analyse_wins_blocks_and_defends_an_open_three() -> None:
    out = np.zeros(304, dtype=np.int64)
    # O to move facing X's open three f8 g8 h8: only e8 and i8 leave X without a VCF
    state = position("f8", "f10", "g8", "g10", "h8")
    threats.analyse(CFG, board(state), 1, np.array([20_000]), out)
    assert out[0] == threats.DEFEND
    assert set(out[3 : 3 + out[2]].tolist()) == cells_of("e8", "i8")
    # X to move with a four of its own: it wins at once
    state = position("f8", "f10", "g8", "g10", "h8", "a1", "i8", "a2")
    threats.analyse(CFG, board(state), 0, np.array([20_000]), out)
    assert (out[0], out[1]) == (threats.WIN, GAME.parse_move("e8"))
    # O to move facing that four: the block
    state = position("f8", "f10", "g8", "g10", "h8", "a1", "i8")
    threats.analyse(CFG, board(state), 1, np.array([20_000]), out)
    assert out[0] == threats.BLOCK
    # O to move in the VCF position: the VCF
    threats.analyse(CFG, board(position(*VCF_POSITION)), 1, np.array([50_000]), out)
    assert out[0] == threats.VCF


def test_candidates_restrict_a_threatened_node_to_the_defences_and_fours() -> None:
    out = np.zeros(304, dtype=np.int64)
    state = position("f8", "f10", "g8", "g10", "h8")
    n = threats.candidates(CFG, board(state), 1, 12, 0, out)
    # the cells of X's threatening windows (d8 e8 i8 j8), and none of O's fours (it has none)
    assert set(out[:n].tolist()) == cells_of("d8", "e8", "i8", "j8")
    quiet = position("h8")
    n = threats.candidates(CFG, board(quiet), 1, 12, 0, out)
    assert n == 12 and all(abs(c // 15 - 7) <= 4 and abs(c % 15 - 7) <= 4 for c in out[:n])
    empty = position()
    assert threats.candidates(CFG, board(empty), 0, 12, 0, out) == 1
    assert out[0] == GAME.parse_move("h8")
    # with a VCF search at the node, a found VCF is the only move
    cells = board(position(*VCF_POSITION))
    first = threats.vcf(CFG, cells.copy(), 1, threats.MAX_VCF_DEPTH, np.array([1000]))
    assert threats.candidates(CFG, cells, 1, 12, 1000, out) == 1
    assert out[0] == first
    assert threats.candidates(CFG, cells, 1, 12, 0, out) == 12


def test_playout_returns_a_seat_and_leaves_no_trace_of_its_rng_misuse() -> None:
    state = position("f8", "f10", "g8", "g10", "h8")
    rng = np.array([12345], dtype=np.uint64)
    results = [threats.playout(CFG, board(state), 1, 5, rng, 2) for _ in range(200)]
    assert set(results) <= {0, 1, 2}
    # O to move cannot stop an open four it does not block: X wins most playouts
    four = position("f8", "f10", "g8", "g10", "h8", "a1", "e8")
    results = [threats.playout(CFG, board(four), 1, 7, rng, 2) for _ in range(50)]
    assert results.count(0) == 50
