"""Tic-tac-toe rules, checked against published game counts."""

from __future__ import annotations

import pytest

from games import IllegalMoveError, InvalidMoveError, Termination, make_game
from games.mnk import MNKState
from games.tictactoe import TicTacToe


def perft(game: TicTacToe, state: MNKState, depth: int) -> int:
    if depth == 0 or game.is_terminal(state):
        return 1 if depth == 0 else 0
    return sum(perft(game, game.apply(state, m), depth - 1) for m in game.legal_moves(state))


def count_games(game: TicTacToe, state: MNKState) -> int:
    if game.is_terminal(state):
        return 1
    return sum(count_games(game, game.apply(state, m)) for m in game.legal_moves(state))


def test_number_of_games_is_255168() -> None:
    # 255,168 possible games of tic-tac-toe: Henry Bottomley's count, OEIS-style
    # enumeration quoted at https://en.wikipedia.org/wiki/Game_complexity#Example:_tic-tac-toe
    game = TicTacToe()
    assert count_games(game, game.initial_state()) == 255_168


def test_perft_by_depth() -> None:
    # Positions reached at each ply without an earlier win (same source; the games
    # ending at plies 5..9 are 1440, 5328, 47952, 72576 and 127872).
    game = TicTacToe()
    expected = [9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]
    assert [perft(game, game.initial_state(), d) for d in range(1, 10)] == expected


def play(game: TicTacToe, *moves: str) -> MNKState:
    state = game.initial_state()
    for text in moves:
        state = game.play(state, game.parse_move(text))
    return state


@pytest.mark.parametrize(
    "moves",
    [
        ("a1", "a2", "b2", "b1", "c3"),  # main diagonal
        ("c1", "a1", "b2", "a2", "a3"),  # anti-diagonal
        ("a1", "b1", "a2", "b2", "a3"),  # column
        ("a3", "a1", "b3", "a2", "c3"),  # row
    ],
)
def test_x_wins_on_lines(moves: tuple[str, ...]) -> None:
    game = TicTacToe()
    outcome = game.outcome(play(game, *moves))
    assert outcome is not None
    assert outcome.winner == 0 and outcome.scores == (1.0, 0.0)
    assert outcome.termination is Termination.LINE


def test_win_on_last_cell_is_a_win_not_a_draw() -> None:
    game = TicTacToe()
    # X: a1 c1 b2 a3 c3?  Build a position where X's 5th stone fills the board and a line.
    state = play(game, "a1", "b1", "c1", "b2", "a2", "a3", "c2", "c3", "b3")
    # X has a1 c1 a2 c2 b3; check the last cell b3 completes nothing -> draw, then a true last-cell win.
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner is None
    state = play(game, "a1", "b1", "c1", "a2", "b2", "c2", "b3", "a3", "c3")
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner == 0 and outcome.termination is Termination.LINE


def test_full_board_draw() -> None:
    game = TicTacToe()
    state = play(game, "a1", "b2", "c3", "a2", "c2", "c1", "a3", "b3", "b1")
    outcome = game.outcome(state)
    assert outcome is not None
    assert outcome.winner is None and outcome.scores == (0.5, 0.5)
    assert outcome.termination is Termination.BOARD_FULL
    assert game.legal_moves(state) == []


def test_illegal_and_invalid_moves() -> None:
    game = TicTacToe()
    state = play(game, "b2")
    with pytest.raises(IllegalMoveError, match="b2"):
        game.play(state, game.parse_move("b2"))
    for bad in ["z9", "b", "22", "", "d1", "a4"]:
        with pytest.raises(InvalidMoveError):
            game.parse_move(bad)
    with pytest.raises(InvalidMoveError):
        game.decode_move(9)
    with pytest.raises(InvalidMoveError):
        game.decode_move("b2")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"width": 2, "height": 2, "k": 2}, "too small"),
        ({"width": -3}, "width"),
        ({"k": 4}, "'k'"),
        ({"size": 3}, "unknown option 'size'"),
        ({"width": "wide"}, "width"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_game("tictactoe", options)


def test_larger_boards() -> None:
    game = make_game("tictactoe", {"width": 5, "height": 5, "k": 5})
    state = game.initial_state()
    for text in ["a1", "a2", "b1", "b2", "c1", "c2", "d1", "d2"]:
        state = game.play(state, game.parse_move(text))
    assert game.outcome(state) is None
    state = game.play(state, game.parse_move("e1"))
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner == 0


def test_encode_decode_and_render() -> None:
    game = TicTacToe()
    state = play(game, "a1", "b2", "c3")
    data = game.encode_state(state)
    assert data == {"board": ["..X", ".O.", "X.."], "to_move": 1}
    assert game.decode_state(data) == state
    assert game.render(state).splitlines()[0] == "3 . . X"
