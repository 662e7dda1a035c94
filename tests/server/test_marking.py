"""The dead-stone agreement of two people after two passes in Go (server/marking.py)."""

from __future__ import annotations

import pytest

from games.go import Go, GoState, result_text
from server.marking import DeadStones, MarkingError

#: 5×5: Black walls column C, White column D, then White drops a stone at A3, in Black's area
MOVES = ["C1", "D1", "C2", "D2", "C3", "D3", "C4", "D4", "C5", "D5", "pass", "A3", "pass", "pass"]


def final() -> tuple[Go, GoState]:
    game = Go(size=5, komi=0.5)
    state = game.initial_state()
    for text in MOVES:
        state = game.play(state, game.parse_move(text))
    assert game.is_terminal(state)
    return game, state


def test_as_the_board_stands_the_stone_left_inside_wins_the_count_for_white() -> None:
    game, state = final()
    outcome = game.outcome(state)
    assert outcome is not None and result_text(outcome) == "W+6.5"  # Tromp–Taylor: 5 - 11 - 0.5


def test_both_accept_the_same_dead_set_and_the_count_takes_it_off() -> None:
    game, state = final()
    marking = DeadStones(game, state)
    a3 = game.parse_move("A3")
    assert marking.toggle(a3) == frozenset({a3})
    assert marking.area() == (15, 10)
    assert not marking.accept(0, [a3])
    assert marking.accept(1, [a3])
    assert result_text(marking.outcome()) == "B+4.5"


def test_a_change_withdraws_every_acceptance_and_a_stale_accept_is_refused() -> None:
    game, state = final()
    marking = DeadStones(game, state)
    c3 = game.parse_move("C3")
    assert marking.accept(0, []) is False
    assert marking.toggle(c3) == frozenset(game.parse_move(f"C{row}") for row in range(1, 6))
    assert marking.accepted == [False, False]  # the whole chain, and Black's accept withdrawn
    with pytest.raises(MarkingError, match="changed since you saw them"):
        marking.accept(1, [])
    marking.toggle(game.parse_move("C5"))  # the same chain: alive again
    assert marking.dead == frozenset()
    assert result_text(marking.outcome()) == "W+6.5"


@pytest.mark.parametrize(
    ("point", "error"),
    [(0, "no stone on A5"), (-1, "no stone on pass"), (25, "out of range"), ("A3", "integer")],
)
def test_marking_an_empty_point_or_a_bad_value_is_refused(point: object, error: str) -> None:
    game, state = final()
    with pytest.raises(MarkingError, match=error):
        DeadStones(game, state).toggle(point)
