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


def test_evaluation_rules_judge_a_run_of_evaluations() -> None:
    rules = Adjudication(resign_moves=3, resign_score=0.05, draw_moves=4, draw_score=0.05)
    assert rules.judge_evaluations([0.99, 0.97]) is None  # not enough in a row yet
    assert rules.judge_evaluations([0.5, 0.99, 0.97, 0.96]) == (True, 0)
    assert rules.judge_evaluations([0.02, 0.01, 0.05]) == (True, 1)
    assert rules.judge_evaluations([0.99, 0.9, 0.99]) is None  # one of them not sure enough
    assert rules.judge_evaluations([0.52, 0.48, 0.5, 0.55]) == (True, None)
    assert rules.judge_evaluations([0.52, 0.48, 0.5, 0.56]) is None


def test_evaluation_rules_are_checked_and_described() -> None:
    with pytest.raises(ValueError, match="go together"):
        Adjudication(resign_moves=3)
    with pytest.raises(ValueError, match=r"in \[0, 0.5\)"):
        Adjudication(draw_moves=3, draw_score=0.7)
    rules = Adjudication(resign_moves=6, resign_score=0.05)
    assert rules.by_evaluation and "resign after 6" in rules.describe()
    assert Adjudication.from_dict(rules.as_dict()) == rules
