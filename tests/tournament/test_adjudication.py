"""The solver behind proven-result adjudication, and the rules' settings."""

from __future__ import annotations

import pytest

from games import make_game
from tournament.adjudication import Adjudication, prove


def test_tic_tac_toe_is_a_draw_under_best_play() -> None:
    game = make_game("tictactoe", {})
    proof = prove(game, game.initial_state(), 100_000)
    assert proof is not None and proof.winner is None


def test_a_won_position_is_proven_for_the_right_seat() -> None:
    game = make_game("tictactoe", {})
    state = game.initial_state()
    for notation in ("a1", "b1", "a2", "b2"):  # X (seat 0) to move completes a column
        state = game.play(state, game.parse_move(notation))
    proof = prove(game, state, 1_000)
    assert proof is not None and proof.winner == 0 and proof.nodes <= 1_000
    state = game.play(state, game.parse_move("c3"))  # X misses a3: O to move wins with b3
    proof = prove(game, state, 1_000)
    assert proof is not None and proof.winner == 1


def test_four_by_four_three_in_a_row_is_a_first_player_win() -> None:
    # 4x4 k=3: the first player wins (a known result; e.g. Wikipedia "m,n,k-game")
    game = make_game("tictactoe", {"width": 4, "height": 4, "k": 3})
    state = game.play(game.initial_state(), game.parse_move("b2"))
    proof = prove(game, state, 2_000_000)
    assert proof is not None and proof.winner == 0


def test_a_small_budget_proves_nothing() -> None:
    game = make_game("connect4", {})
    assert prove(game, game.initial_state(), 500) is None


def test_rules_are_checked() -> None:
    assert Adjudication.from_dict({}).describe() == ""
    rules = Adjudication(max_plies=40, proven_nodes=1000)
    assert Adjudication.from_dict(rules.as_dict()) == rules
    with pytest.raises(ValueError, match="max_plies"):
        Adjudication(max_plies=0)
    with pytest.raises(ValueError, match="unknown adjudication rule 'eval'"):
        Adjudication.from_dict({"eval": 3})
