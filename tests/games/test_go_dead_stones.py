"""The agreed dead stones as a Go result's reason keeps them, and the board drawn with them
(games/go.py: `taken_off_text`, `agreed_dead`, `Go.render(dead=...)`)."""

from __future__ import annotations

from games.go import Go, agreed_dead, taken_off_text

GAME = Go(size=5, komi=0.5)
MOVES = ["C1", "D1", "C2", "D2", "C3", "D3", "C4", "D4", "C5", "D5", "pass", "A3", "pass"]


def test_the_reason_names_the_dead_stones_and_they_are_read_back() -> None:
    dead = frozenset(GAME.parse_move(v) for v in ("A3", "B3"))
    text = taken_off_text(GAME, dead)
    assert text == "with 2 dead stones taken off (A3 B3)"
    assert agreed_dead(GAME, f"Black wins (score) {text}: both agreed") == dead
    one = taken_off_text(GAME, frozenset({GAME.parse_move("E5")}))
    assert one == "with 1 dead stone taken off (E5)"


def test_a_reason_without_dead_stones_or_with_points_off_the_board_names_none() -> None:
    assert agreed_dead(GAME, "White wins (score)") == frozenset()
    assert agreed_dead(GAME, None) == frozenset()
    assert agreed_dead(GAME, "with 1 dead stone taken off (T19)") == frozenset()


def test_the_board_shows_marked_stones_in_lower_case_and_counts_without_them() -> None:
    state = GAME.initial_state()
    for text in MOVES:
        state = GAME.play(state, GAME.parse_move(text))
    a3 = frozenset({GAME.parse_move("A3")})
    marking = GAME.render(state, dead=a3)
    assert "3 o . X O . 3" in marking
    assert "marking dead stones (x, o): 1 marked; counted without them: area Black 15," in marking
    over = GAME.render(GAME.play(state, -1), dead=a3)
    assert "game over: 1 dead stone (x, o) taken off; area Black 15, White 10: B+4.5" in over
    assert "o" not in GAME.render(state).split("captures")[0].replace("(O)", "")
