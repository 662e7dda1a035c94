"""Freestyle gomoku: 15x15, five or more in a row wins (an m,n,k-game)."""

from __future__ import annotations

import pytest

from games import IllegalMoveError, InvalidMoveError, Termination, make_game
from games.gomoku import Gomoku
from games.mnk import MNKState


def play(game: Gomoku, *moves: str) -> MNKState:
    state = game.initial_state()
    for text in moves:
        assert game.outcome(state) is None, f"game over before {text}"
        state = game.play(state, game.parse_move(text))
    return state


def winner(game: Gomoku, state: MNKState) -> int | None:
    outcome = game.outcome(state)
    assert outcome is not None, "the game should be over"
    assert outcome.termination is Termination.LINE
    return outcome.winner


def interleave(xs: list[str], os: list[str]) -> list[str]:
    """X's moves and O's moves alternated, X first."""
    moves: list[str] = []
    for i, x in enumerate(xs):
        moves.append(x)
        if i < len(os):
            moves.append(os[i])
    return moves


def test_defaults() -> None:
    game = Gomoku()
    assert (game.width, game.height, game.k) == (15, 15, 5)
    assert len(game.legal_moves(game.initial_state())) == 225


def test_five_in_a_row_wins_and_four_does_not() -> None:
    game = Gomoku()
    four = play(game, *interleave(["a1", "b1", "c1", "d1"], ["a15", "b15", "c15", "d15"]))
    assert game.outcome(four) is None
    assert winner(game, game.play(four, game.parse_move("e1"))) == 0


def test_six_in_a_row_counts_as_a_win() -> None:
    # Freestyle: an overline wins too. X closes the gap in a1 b1 c1 _ e1 f1.
    game = Gomoku()
    xs = ["a1", "b1", "c1", "e1", "f1"]
    os = ["a15", "b15", "c15", "e15", "f15"]  # O's own broken row never reaches five
    state = play(game, *interleave(xs, os))
    assert game.outcome(state) is None
    assert winner(game, game.play(state, game.parse_move("d1"))) == 0


@pytest.mark.parametrize(
    "line",
    [
        ["a1", "b2", "c3", "d4", "e5"],  # rising diagonal from the bottom-left corner
        ["o15", "n14", "m13", "l12", "k11"],  # the same direction at the top-right corner
        ["a15", "b14", "c13", "d12", "e11"],  # falling diagonal from the top-left corner
        ["o1", "n2", "m3", "l4", "k5"],  # the same direction at the bottom-right corner
        ["h3", "h4", "h5", "h6", "h7"],  # a column
    ],
)
def test_lines_in_every_direction(line: list[str]) -> None:
    game = Gomoku()
    os = ["g8", "g9", "g10", "f12"]  # scattered O stones, no line
    state = play(game, *interleave(line, os))
    assert winner(game, state) == 0
    assert game.legal_moves(state) == []


def test_second_player_wins_too() -> None:
    game = Gomoku()
    xs = ["a1", "c1", "e1", "g1", "i1"]
    os = ["h8", "h9", "h10", "h11", "h12"]
    state = play(game, *interleave(xs, os))
    assert winner(game, state) == 1
    outcome = game.outcome(state)
    assert outcome is not None and outcome.scores == (0.0, 1.0)
    with pytest.raises(IllegalMoveError, match="over"):
        game.play(state, game.parse_move("o15"))


def test_smaller_board_option() -> None:
    game = make_game("gomoku", {"width": 9, "height": 9})
    state = game.initial_state()
    for text in interleave(["a9", "b9", "c9", "d9", "e9"], ["a1", "b1", "c1", "d1"]):
        state = game.play(state, game.parse_move(text))
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner == 0
    assert game.describe() == "gomoku(width=9, height=9, k=5)"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"width": 4, "height": 4}, "'k' \\(5\\) cannot exceed"),
        ({"k": 16}, "'k' \\(16\\) cannot exceed"),
        ({"width": 2, "height": 2, "k": 2}, "too small"),
        ({"width": -15}, "'width' must be >= 1"),
        ({"height": -1}, "'height' must be >= 1"),
        ({"k": 0}, "'k' must be >= 1"),
        ({"width": 27}, "'width' must be <= 26"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_game("gomoku", options)


@pytest.mark.parametrize(
    ("text", "index"), [("a1", 14 * 15), ("o15", 14), ("a15", 0), ("o1", 224), ("h8", 112)]
)
def test_notation_round_trip_on_corners(text: str, index: int) -> None:
    game = Gomoku()
    assert game.parse_move(text) == index
    assert game.format_move(index) == text
    assert game.parse_move(text.upper()) == index
    assert game.decode_move(game.encode_move(index)) == index


@pytest.mark.parametrize("bad", ["p1", "a16", "a0", "o", "15", ""])
def test_off_board_notation(bad: str) -> None:
    with pytest.raises(InvalidMoveError):
        Gomoku().parse_move(bad)


def test_wire_moves_out_of_range() -> None:
    game = Gomoku()
    for bad in [225, -1, "h8", None, False]:
        with pytest.raises(InvalidMoveError):
            game.decode_move(bad)


def test_encode_decode_round_trip() -> None:
    game = Gomoku()
    state = play(game, "a1", "o15", "h8")
    data = game.encode_state(state)
    assert data["to_move"] == 1
    assert data["board"][0] == "." * 14 + "O"
    assert data["board"][7] == "." * 7 + "X" + "." * 7
    assert data["board"][14] == "X" + "." * 14
    assert game.decode_state(data) == state
