"""Ultimate tic-tac-toe rules, cross-checked against a naive implementation."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games import (
    Game,
    IllegalMoveError,
    InvalidMoveError,
    InvalidStateError,
    Termination,
    make_game,
)
from games.base import DRAW, ONGOING
from games.ultimate import FREE, UltimateState, UltimateTicTacToe

# --- a deliberately naive second implementation ---------------------------------

NaiveState = tuple[tuple[int, ...], int | None]
"""(81 cells row-major from the top left: -1 empty, 0 X, 1 O; the last move or None)."""

LINES_3X3 = [
    [(0, 0), (0, 1), (0, 2)],
    [(1, 0), (1, 1), (1, 2)],
    [(2, 0), (2, 1), (2, 2)],
    [(0, 0), (1, 0), (2, 0)],
    [(0, 1), (1, 1), (2, 1)],
    [(0, 2), (1, 2), (2, 2)],
    [(0, 0), (1, 1), (2, 2)],
    [(0, 2), (1, 1), (2, 0)],
]


class NaiveUltimate:
    """Recomputes everything from the 9×9 grid and the last move, with explicit loops."""

    def initial(self) -> NaiveState:
        return ((-1,) * 81, None)

    def __init__(self) -> None:
        self.cells = {
            (big_row, big_col): [
                [(big_row * 3 + r) * 9 + big_col * 3 + c for c in range(3)] for r in range(3)
            ]
            for big_row in range(3)
            for big_col in range(3)
        }

    def sub_cells(self, big_row: int, big_col: int) -> list[list[int]]:
        """The sub-board's cells as a 3×3 grid of global cell indices."""
        return self.cells[big_row, big_col]

    def sub_winner(self, grid: tuple[int, ...], big_row: int, big_col: int) -> int | None:
        cells = self.sub_cells(big_row, big_col)
        for line in LINES_3X3:
            values = [grid[cells[r][c]] for r, c in line]
            if values[0] != -1 and values[0] == values[1] == values[2]:
                return values[0]
        return None

    def sub_status(self, grid: tuple[int, ...]) -> dict[tuple[int, int], tuple[int | None, bool]]:
        """(winner, closed) of every sub-board, keyed by (big row, big col)."""
        status = {}
        for r in range(3):
            for c in range(3):
                winner = self.sub_winner(grid, r, c)
                full = all(grid[cell] != -1 for row in self.sub_cells(r, c) for cell in row)
                status[r, c] = (winner, winner is not None or full)
        return status

    def winner(
        self,
        grid: tuple[int, ...],
        status: dict[tuple[int, int], tuple[int | None, bool]] | None = None,
    ) -> int | None:
        if status is None:
            status = self.sub_status(grid)
        for line in LINES_3X3:
            values = [status[r, c][0] for r, c in line]
            if values[0] is not None and values[0] == values[1] == values[2]:
                return values[0]
        return None

    def legal(self, state: NaiveState) -> list[int]:
        grid, last = state
        status = self.sub_status(grid)
        if self.winner(grid, status) is not None:
            return []
        targets = [sub for sub, (_, closed) in status.items() if not closed]
        if last is not None:
            row, col = divmod(last, 9)
            sent_to = (row % 3, col % 3)
            if sent_to in targets:
                targets = [sent_to]
        moves = [
            cell
            for r, c in targets
            for row in self.sub_cells(r, c)
            for cell in row
            if grid[cell] == -1
        ]
        return sorted(moves)

    def apply(self, state: NaiveState, move: int) -> NaiveState:
        grid = list(state[0])
        grid[move] = sum(1 for v in grid if v != -1) % 2
        return (tuple(grid), move)

    def result(self, state: NaiveState, legal: list[int] | None = None) -> tuple[bool, int | None]:
        """(game over, winner); pass `legal` if already computed."""
        if self.legal(state) if legal is None else legal:
            return False, None
        return True, self.winner(state[0])


def perft_counts(game: UltimateTicTacToe, depth: int) -> list[int]:
    """Move sequences of each length 1..depth (paths counted per distinct state)."""
    level: Counter[UltimateState] = Counter({game.initial_state(): 1})
    result = []
    for _ in range(depth):
        following: Counter[UltimateState] = Counter()
        for state, paths in level.items():
            for move in game.legal_moves(state):
                following[game.apply(state, move)] += paths
        level = following
        result.append(sum(level.values()))
    return result


def naive_perft_counts(naive: NaiveUltimate, depth: int) -> list[int]:
    level: Counter[NaiveState] = Counter({naive.initial(): 1})
    result = []
    for _ in range(depth):
        following: Counter[NaiveState] = Counter()
        for state, paths in level.items():
            for move in naive.legal(state):
                following[naive.apply(state, move)] += paths
        level = following
        result.append(sum(level.values()))
    return result


# --- counts and lockstep games ---------------------------------------------------


def test_perft_matches_naive_implementation() -> None:
    # Depth 1: 81 cells. Depth 2: of the 81 first moves, the 9 that point to their own
    # sub-board leave 8 replies there, the other 72 leave 9: 9 * 8 + 72 * 9 = 720.
    counts = perft_counts(UltimateTicTacToe(), 4)
    assert counts[:2] == [81, 720]
    assert counts == naive_perft_counts(NaiveUltimate(), 4)


@pytest.mark.slow
def test_deeper_perft_matches_naive_implementation() -> None:
    assert perft_counts(UltimateTicTacToe(), 5) == naive_perft_counts(NaiveUltimate(), 5)


def test_random_games_in_lockstep_with_naive() -> None:
    game, naive = UltimateTicTacToe(), NaiveUltimate()
    rng = random.Random(2024)
    endings: Counter[int] = Counter()
    for _ in range(200):
        state, reference = game.initial_state(), naive.initial()
        while True:
            moves = game.legal_moves(state)
            reference_moves = naive.legal(reference)
            assert moves == reference_moves
            over, winner = naive.result(reference, reference_moves)
            outcome = game.outcome(state)
            if outcome is None:
                assert not over
            else:
                assert over and outcome.winner == winner
                assert outcome.termination is (
                    Termination.LINE if winner is not None else Termination.BOARD_FULL
                )
                endings[state[7]] += 1
                break
            move = rng.choice(moves)
            state, reference = game.apply(state, move), naive.apply(reference, move)
    assert endings[0] > 0 and endings[1] > 0 and endings[DRAW] > 0


# --- playouts --------------------------------------------------------------------


def test_playouts_end_in_consistent_terminal_states() -> None:
    game = UltimateTicTacToe()
    naive = NaiveUltimate()
    rng = random.Random(8)
    statuses: Counter[int] = Counter()
    for start_moves in (0, 1, 10, 30, 50):
        for _ in range(60):
            state = game.initial_state()
            for _ in range(start_moves):
                if game.is_terminal(state):
                    break
                state = game.apply(state, rng.choice(game.legal_moves(state)))
            final = game.playout(state, rng)
            assert game.is_terminal(final)
            # decode re-derives sub-boards and status from the board alone
            assert game.decode_state(game.encode_state(final)) == final
            assert final[0] & state[0] == state[0] and final[1] & state[1] == state[1]
            cells = tuple(
                0 if ch == "X" else 1 if ch == "O" else -1
                for ch in "".join(game.encode_state(final)["board"])
            )
            assert naive.winner(cells) == (None if final[7] == DRAW else final[7])
            statuses[final[7]] += 1
    assert statuses[0] > 0 and statuses[1] > 0 and statuses[DRAW] > 0


def test_playout_statistics_match_the_plain_random_game() -> None:
    game = UltimateTicTacToe()
    start = game.initial_state()
    rng = random.Random(17)
    fast = Counter(game.playout(start, rng)[7] for _ in range(2000))
    slow = Counter(Game.playout(game, start, rng)[7] for _ in range(2000))
    for status in (0, 1, DRAW):
        assert abs(fast[status] - slow[status]) < 150  # ~5 standard deviations


def test_playout_respects_max_moves() -> None:
    game = UltimateTicTacToe()
    rng = random.Random(3)
    state = game.playout(game.initial_state(), rng, max_moves=7)
    assert state[6] == 7 and state[7] == ONGOING
    assert game.playout(state, rng, max_moves=0) == state
    final = game.playout(state, rng)
    assert game.is_terminal(final) and game.playout(final, rng) == final


# --- hand-made positions -----------------------------------------------------------


def play(game: UltimateTicTacToe, moves: str) -> UltimateState:
    state = game.initial_state()
    for text in moves.split():
        state = game.play(state, game.parse_move(text))
    return state


def test_first_move_is_free_and_then_the_cell_picks_the_sub_board() -> None:
    game = UltimateTicTacToe()
    assert game.legal_moves(game.initial_state()) == list(range(81))
    state = play(game, "e5")  # centre of the centre: O must answer in the centre
    assert [game.format_move(m) for m in game.legal_moves(state)] == [
        "d6", "e6", "f6", "d5", "f5", "d4", "e4", "f4"
    ]  # fmt: skip
    state = play(game, "a9")  # top-left cell of the top-left board: O plays there too
    assert game.legal_moves(state) == [1, 2, 9, 10, 11, 18, 19, 20]
    state = play(game, "b1")  # bottom-middle cell of the bottom-left board
    assert game.legal_moves(state) == [r * 9 + c for r in (6, 7, 8) for c in (3, 4, 5)]
    with pytest.raises(IllegalMoveError, match="'a1' is illegal"):
        game.play(state, game.parse_move("a1"))


def test_sent_to_a_won_sub_board_moves_anywhere_open() -> None:
    game, naive = UltimateTicTacToe(), NaiveUltimate()
    # X takes a1 b1 c1 (the bottom-left board) and a1 sends O back there.
    moves = "b1 d1 c1 g1 a1"
    state = play(game, moves)
    assert game.outcome(state) is None and state[5] == FREE
    assert game.encode_state(state)["sub_boards"] == ["...", "...", "X.."]
    legal = game.legal_moves(state)
    won_board = {r * 9 + c for r in (6, 7, 8) for c in (0, 1, 2)}
    assert len(legal) == 81 - 9 - 2  # all but the won board and O's two stones
    assert not won_board & set(legal)
    reference = naive.initial()
    for text in moves.split():
        reference = naive.apply(reference, game.parse_move(text))
    assert legal == naive.legal(reference)
    # the won board's empty cells are closed for good
    with pytest.raises(IllegalMoveError, match="'a2' is illegal"):
        game.play(state, game.parse_move("a2"))
    state = game.play(state, game.parse_move("i9"))  # O sends X to the top-right board
    assert game.legal_moves(state) == [6, 7, 15, 16, 17, 24, 25, 26]


def test_sent_to_a_full_sub_board_moves_anywhere_open() -> None:
    game, naive = UltimateTicTacToe(), NaiveUltimate()
    moves = (
        "h6 f8 g4 a1 c3 i7 h1 e3 d7 c2 i5 g5 c5 i6 i8 g6 b7 f2 i4 h2 f5 h5"
        " d4 a2 c6 g9 c8 h4 e1 e2 e4 d3 c7 i2"
    )
    state = play(game, moves)
    # the last move, i2, points to the middle-right board: full, won by nobody
    data = game.encode_state(state)
    assert all("." not in row[6:] for row in data["board"][3:6])
    assert data["sub_boards"][1][2] == "-"
    assert game.outcome(state) is None and state[5] == FREE
    reference = naive.initial()
    for text in moves.split():
        reference = naive.apply(reference, game.parse_move(text))
    legal = game.legal_moves(state)
    assert legal == naive.legal(reference)
    assert len({cell // 27 * 3 + cell % 9 // 3 for cell in legal}) > 1


def test_draw_when_every_sub_board_is_closed() -> None:
    game, naive = UltimateTicTacToe(), NaiveUltimate()
    moves = (
        "g9 c8 g6 c9 i7 i2 i4 i3 h8 f6 a3 b8 d5 b4 e2 d4 a2 c5 h5 e5 a7 b3 f8 d9"
        " a8 a4 b1 d1 a1 b5 d2 b6 e9 d8 a9 e7 f2 i1 d7 f9 f7 e8"
    )
    state = play(game, moves)
    outcome = game.outcome(state)
    assert outcome is not None
    assert outcome.winner is None and outcome.scores == (0.5, 0.5)
    assert outcome.termination is Termination.BOARD_FULL
    assert game.legal_moves(state) == [] and state[6] == 42  # empty cells remain
    assert "-" in "".join(game.encode_state(state)["sub_boards"])
    reference = naive.initial()
    for text in moves.split():
        reference = naive.apply(reference, game.parse_move(text))
    assert naive.result(reference) == (True, None)
    assert game.encode_state(state)["forced"] is None


@pytest.mark.parametrize(
    ("moves", "winner"),
    [
        (
            "b2 e4 d3 c7 g2 b4 d1 c1 g1 b3 d8 c4 g3 a7 c2 g5 c6 h7 d2 a4 a2",
            0,
        ),
        (
            "a7 c1 i1 h1 d1 c2 i4 g3 b7 f1 g1 b3 d7 c3 h8 d6 c7 h3 f7 h2 e4 f2 g6 f3",
            1,
        ),
    ],
)
def test_three_sub_boards_in_a_line_win(moves: str, winner: int) -> None:
    game, naive = UltimateTicTacToe(), NaiveUltimate()
    state = play(game, moves)
    outcome = game.outcome(state)
    assert outcome is not None
    assert outcome.winner == winner and outcome.termination is Termination.LINE
    assert game.legal_moves(state) == []
    before = play(game, moves.rsplit(" ", 1)[0])
    assert game.outcome(before) is None
    reference = naive.initial()
    for text in moves.split():
        reference = naive.apply(reference, game.parse_move(text))
    assert naive.result(reference) == (True, winner)
    with pytest.raises(IllegalMoveError, match="game is over"):
        game.play(state, game.legal_moves(before)[0])


# --- options, notation, wire -------------------------------------------------------


def test_no_options() -> None:
    with pytest.raises(ValueError, match="unknown option 'size' for game 'ultimate'"):
        make_game("ultimate", {"size": 9})
    assert isinstance(make_game("ultimate"), UltimateTicTacToe)


def test_notation() -> None:
    game = UltimateTicTacToe()
    assert game.parse_move("a9") == 0
    assert game.parse_move("i1") == 80
    assert game.parse_move(" E5 ") == 40
    for move in range(81):
        assert game.parse_move(game.format_move(move)) == move
    for bad in ["j1", "a0", "a10", "", "e", "55", "5e"]:
        with pytest.raises(InvalidMoveError, match=r"not a square|off the board"):
            game.parse_move(bad)


def test_wire_moves() -> None:
    game = UltimateTicTacToe()
    assert game.decode_move(game.encode_move(80)) == 80
    with pytest.raises(InvalidMoveError, match=r"out of range 0\.\.80"):
        game.decode_move(81)
    with pytest.raises(InvalidMoveError, match="must be an integer"):
        game.decode_move("e5")


def test_encode_decode_and_render() -> None:
    game = UltimateTicTacToe()
    state = play(game, "e5 d6")  # O answers in the top-left cell of the centre board
    data = game.encode_state(state)
    assert data == {
        "board": [
            ".........",
            ".........",
            ".........",
            "...O.....",
            "....X....",
            ".........",
            ".........",
            ".........",
            ".........",
        ],
        "to_move": 0,
        "forced": 0,
        "sub_boards": ["...", "...", "..."],
    }
    assert game.decode_state(data) == state
    text = game.render(state)
    assert text.splitlines()[4] == "6 . . . | O . . | . . ."
    assert text.splitlines()[11] == "  a b c   d e f   g h i"
    assert text.splitlines()[-1] == "X to play in sub-board a7-c9"
    rng = random.Random(4)
    for _ in range(30):
        state = game.initial_state()
        while True:
            assert game.decode_state(game.encode_state(state)) == state
            if game.is_terminal(state):
                break
            state = game.apply(state, rng.choice(game.legal_moves(state)))


EMPTY_ROWS = ["........."] * 9


def with_rows(changes: dict[int, str]) -> list[str]:
    return [changes.get(i, row) for i, row in enumerate(EMPTY_ROWS)]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"board": EMPTY_ROWS[:8]}, "9 strings of length 9"),
        ({"board": with_rows({0: "Z........"})}, "bad cell 'Z'"),
        ({"board": with_rows({0: "XX......."})}, "stone counts"),
        ({"board": with_rows({0: "XXX......", 1: "OOO......"})}, "both players have a line"),
        ({"board": EMPTY_ROWS, "forced": 4}, "not where any move"),
        ({"board": with_rows({4: "....X...."}), "forced": 9}, "sub-board 0..8 or null"),
        ({"board": with_rows({4: "....X...."}), "forced": True}, "sub-board 0..8 or null"),
        ({"board": with_rows({4: "....X...."}), "forced": 0}, "not where any move"),
        ({"board": with_rows({4: "....X...."})}, "'forced' is null"),
        ({"board": with_rows({4: "....X...."}), "forced": 4, "to_move": 0}, "to_move"),
        (
            {"board": with_rows({4: "....X...."}), "forced": 4, "sub_boards": ["X..", "", ""]},
            "'sub_boards' does not match",
        ),
        # X won the top-left board with a9 b9 c9; c9 points to the top-right board
        (
            {"board": with_rows({0: "XXX...O..", 1: "O........"}), "forced": 0},
            "sub-board 0 is closed",
        ),
    ],
)
def test_decode_rejects_bad_states(data: dict[str, object], message: str) -> None:
    game = UltimateTicTacToe()
    with pytest.raises(InvalidStateError, match=message):
        game.decode_state(data)


def test_decode_checks_finished_games() -> None:
    game = UltimateTicTacToe()
    moves = "b2 e4 d3 c7 g2 b4 d1 c1 g1 b3 d8 c4 g3 a7 c2 g5 c6 h7 d2 a4 a2"
    data = game.encode_state(play(game, moves))
    assert data["forced"] is None and data["sub_boards"][2] == "XXX"
    with pytest.raises(InvalidStateError, match="'forced' must be null in a finished game"):
        game.decode_state({**data, "forced": 4})
    # add an O stone: X's line now came before O's move
    rows = list(data["board"])
    rows[0] = "O" + rows[0][1:] if rows[0][0] == "." else rows[0]
    assert rows != data["board"]
    with pytest.raises(InvalidStateError, match="X won but did not move last"):
        game.decode_state({"board": rows})
    with pytest.raises(InvalidStateError, match="'board' list"):
        game.decode_state("board")
