"""Reversi (Othello) rules, checked against published perft figures and hand-made positions."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from games import IllegalMoveError, InvalidMoveError, InvalidStateError, Termination, make_game
from games.reversi import PASS, Reversi, ReversiState

# Othello perft from the start position, as published by Aart Bik (aartbik.com,
# "Strategy" page; the table is quoted in many engines, and OEIS A124004 agrees
# up to depth 9). A pass counts as a ply, and a finished game counts as one leaf
# whatever depth is left. No game ends and nobody passes before ply 9, so
# depths 1-9 do not depend on those conventions; depth 10 does (OEIS, counting
# differently, has 24,571,056 there).
PERFT = {
    1: 4,
    2: 12,
    3: 56,
    4: 244,
    5: 1_396,
    6: 8_200,
    7: 55_092,
    8: 390_216,
    9: 3_005_288,
    10: 24_571_284,
}


def perft(game: Reversi, state: ReversiState, depth: int) -> int:
    """Leaves at `depth` plies; counts the last ply's moves instead of applying them."""
    if game.is_terminal(state):
        return 1
    moves = game.legal_moves(state)
    if depth == 1:
        return len(moves)
    return sum(perft(game, game.apply(state, m), depth - 1) for m in moves)


@pytest.mark.parametrize("depth", range(1, 9))
def test_perft(depth: int) -> None:
    game = Reversi()
    assert perft(game, game.initial_state(), depth) == PERFT[depth]


@pytest.mark.slow
@pytest.mark.parametrize("depth", [9, 10])
def test_perft_deep(depth: int) -> None:
    game = Reversi()
    assert perft(game, game.initial_state(), depth) == PERFT[depth]


@pytest.mark.slow
def test_shortest_games_are_228_nine_move_wipeouts() -> None:
    # The same perft tables split depth 11 into 212,258,572 full-depth leaves plus
    # 228 games that ended earlier: the 228 nine-move games, all 13-0 wipe-outs.
    game = Reversi()
    endings: Counter[tuple[int | None, tuple[float, ...] | None]] = Counter()

    def walk(state: ReversiState, depth: int) -> None:
        outcome = game.outcome(state)
        if outcome is not None:
            endings[(outcome.winner, outcome.points)] += 1
        elif depth:
            for move in game.legal_moves(state):
                walk(game.apply(state, move), depth - 1)

    walk(game.initial_state(), 9)
    assert endings == {(0, (13.0, -13.0)): 228}


def play(game: Reversi, *moves: str, state: ReversiState | None = None) -> ReversiState:
    state = game.initial_state() if state is None else state
    for text in moves:
        state = game.play(state, game.parse_move(text))
    return state


def position(rows: str, to_move: int = 0, passed: bool = False) -> ReversiState:
    """An 8x8 state from eight rows of '.', 'X' (Black), 'O' (White), row 1 first."""
    board = rows.split()
    return Reversi().decode_state({"board": board, "to_move": to_move, "passed": passed})


def test_start_position_and_notation() -> None:
    game = Reversi()
    state = game.initial_state()
    assert game.to_move(state) == 0 and game.seat_names[0] == "Black"
    # Black's four openings in Othello notation (a1 = top left).
    assert [game.format_move(m) for m in game.legal_moves(state)] == ["d3", "c4", "f5", "e6"]
    assert game.encode_state(state) == {
        "board": ["........"] * 3 + ["...OX...", "...XO..."] + ["........"] * 3,
        "to_move": 0,
        "passed": False,
    }
    assert game.parse_move(" D3 ") == 19 == game.decode_move(19)
    assert game.parse_move("pass") == PASS and game.format_move(PASS) == "pass"
    assert game.parse_move("h8") == 63 and game.parse_move("a1") == 0
    state = play(game, "f5")
    assert game.encode_state(state)["board"][3:5] == ["...OX...", "...XXX.."]
    assert [game.format_move(m) for m in game.legal_moves(state)] == ["f4", "d6", "f6"]


def test_a_known_nine_move_wipeout() -> None:
    game = Reversi()
    state = play(game, "d3", "c3", "b3", "d2", "e1", "d6", "d7", "e3", "f4")
    outcome = game.outcome(state)
    assert outcome is not None
    assert outcome.winner == 0 and outcome.scores == (1.0, 0.0)
    assert outcome.termination is Termination.NO_MOVES
    assert outcome.points == (13.0, -13.0)
    assert game.legal_moves(state) == []
    assert game.encode_state(state)["board"].count("........") > 0  # not a full board


PASS_POSITION = """
O.......
O.......
O.......
X..OO...
...OO...
........
........
.......X
"""


def test_forced_pass_then_double_pass_ending() -> None:
    game = Reversi()
    state = position(PASS_POSITION, to_move=0)
    # Black's discs on a4 and h8 cannot flank anything; White can take a4 from a5.
    assert game.legal_moves(state) == [PASS]
    assert not game.is_terminal(state) and game.outcome(state) is None
    assert "must pass" in game.render(state)
    with pytest.raises(IllegalMoveError):
        game.play(state, game.parse_move("b4"))

    state = game.play(state, PASS)
    assert game.to_move(state) == 1
    assert game.encode_state(state)["passed"] is True
    assert [game.format_move(m) for m in game.legal_moves(state)] == ["a5"]
    with pytest.raises(IllegalMoveError):
        game.play(state, PASS)  # White has a move, so White may not pass

    # After a5, Black (only h8 left) and White are both stuck: the game ends at once,
    # with 54 empty squares, without anyone having to pass again.
    state = game.play(state, game.parse_move("a5"))
    assert game.legal_moves(state) == []
    outcome = game.outcome(state)
    assert outcome is not None
    assert outcome.termination is Termination.NO_MOVES
    assert outcome.winner == 1 and outcome.scores == (0.0, 1.0)
    assert outcome.points == (-8.0, 8.0)  # 1 Black disc against 9 White
    assert game.encode_state(state)["passed"] is False
    assert "game over" in game.render(state)
    with pytest.raises(IllegalMoveError, match="over"):
        game.play(state, PASS)


def test_mutual_block_is_terminal_without_a_pass() -> None:
    # A lone Black corner disc and four White centre discs: nobody can flank anything.
    state = position(
        "X....... ........ ........ ...OO... ...OO... ........ ........ ........", to_move=0
    )
    game = Reversi()
    assert game.is_terminal(state) and game.legal_moves(state) == []
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner == 1 and outcome.points == (-3.0, 3.0)


def test_flips_in_all_eight_directions() -> None:
    game = Reversi()
    state = position(
        """
        X.X.X...
        .OOO....
        XO.OX...
        .OOOO...
        X.XXX...
        ........
        ........
        ........
        """
    )
    state = game.play(state, game.parse_move("c3"))
    assert game.encode_state(state)["board"][:5] == [
        "X.X.X...",
        ".XXX....",
        "XXXXX...",
        ".XXXO...",  # e4 is on no line through c3: it stays White
        "X.XXX...",
    ]
    assert (state[0].bit_count(), state[1].bit_count()) == (18, 1)


def test_flips_stop_at_gaps_and_edges() -> None:
    game = Reversi()
    state = position(
        """
        XOOO.OO.
        ....O...
        ....O...
        ...OXO..
        ...XO...
        ........
        ........
        ........
        """
    )
    # West of e1: three White discs then a Black one (flipped); east: White discs
    # then an empty square (kept); south: White e2, e3, then Black e4 (flipped).
    state = game.play(state, game.parse_move("e1"))
    board = game.encode_state(state)["board"]
    assert board[:4] == ["XXXXXOO.", "....X...", "....X...", "...OXO.."]


@pytest.mark.parametrize(
    ("rows", "winner", "points", "scores"),
    [
        (["XXXXXXXX"] * 4 + ["OOOOOOOO"] * 4, None, (0.0, 0.0), (0.5, 0.5)),
        (["XXXXXXXX"] * 3 + ["OOOOOOOO"] * 5, 1, (-16.0, 16.0), (0.0, 1.0)),
        (["XOXOXOXO"] * 7 + ["XXXXXXXX"], 0, (8.0, -8.0), (1.0, 0.0)),
    ],
)
def test_full_board_results(
    rows: list[str], winner: int | None, points: tuple[float, float], scores: tuple[float, float]
) -> None:
    game = Reversi()
    state = game.decode_state({"board": rows, "to_move": 0})
    assert game.legal_moves(state) == []
    outcome = game.outcome(state)
    assert outcome is not None
    assert outcome.winner == winner and outcome.points == points and outcome.scores == scores
    assert outcome.termination is Termination.NO_MOVES
    assert game.playout(state, random.Random(0)) == state


def test_illegal_and_invalid_moves() -> None:
    game = Reversi()
    state = game.initial_state()
    for text in ["a1", "d4", "e5", "d6", "pass"]:
        with pytest.raises(IllegalMoveError, match=text):
            game.play(state, game.parse_move(text))
    for bad in ["i1", "a9", "a0", "", "d", "33", "passes", "d3x"]:
        with pytest.raises(InvalidMoveError):
            game.parse_move(bad)
    for wire in [64, -2, "d3", True, 3.0, None]:
        with pytest.raises(InvalidMoveError):
            game.decode_move(wire)
    assert game.decode_move(PASS) == PASS and game.encode_move(PASS) == PASS


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("board", "map"),
        ({"board": ["........"] * 7, "to_move": 0}, "8 strings"),
        ({"board": ["........"] * 3 + ["...OX...", "...XO..Z"] + ["........"] * 3}, "'Z'"),
        ({"board": ["........"] * 8, "to_move": 0}, "centre"),
        ({"board": ["........"] * 3 + ["...OX...", "...XO..."] + ["........"] * 3}, "to_move"),
        (
            {"board": ["........"] * 3 + ["...OX...", "...XO..."] + ["........"] * 3, "to_move": 2},
            "to_move",
        ),
        (
            {
                "board": ["........"] * 3 + ["...OX...", "...XO..."] + ["........"] * 3,
                "to_move": True,
            },
            "to_move",
        ),
        (
            {
                "board": ["........"] * 3 + ["...OX...", "...XO..."] + ["........"] * 3,
                "to_move": 0,
                "passed": 1,
            },
            "passed",
        ),
        (
            {
                "board": ["........"] * 3 + ["...OX...", "...XO..."] + ["........"] * 3,
                "to_move": 0,
                "passed": True,
            },
            "passed",
        ),
    ],
)
def test_decode_state_errors(data: object, message: str) -> None:
    with pytest.raises(InvalidStateError, match=message):
        Reversi().decode_state(data)


def test_decode_round_trip_after_a_pass() -> None:
    game = Reversi()
    state = game.apply(position(PASS_POSITION), PASS)
    assert game.decode_state(game.encode_state(state)) == state
    rows = PASS_POSITION.split()
    with pytest.raises(InvalidStateError, match="passed"):  # Black to move: White had a5
        game.decode_state({"board": rows, "to_move": 0, "passed": True})


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"size": 7}, "even"),
        ({"size": 2}, ">= 4"),
        ({"size": 18}, "<= 16"),
        ({"size": "big"}, "'size'"),
        ({"width": 8}, "unknown option 'width'"),
    ],
)
def test_bad_options(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_game("reversi", options)


# --- cross-check against a plain 2-D reference implementation -------------------

DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]


def reference_flips(grid: list[list[int]], row: int, col: int, me: int) -> list[tuple[int, int]]:
    n = len(grid)
    if grid[row][col] != -1:
        return []
    flips: list[tuple[int, int]] = []
    for dr, dc in DIRECTIONS:
        line: list[tuple[int, int]] = []
        r, c = row + dr, col + dc
        while 0 <= r < n and 0 <= c < n and grid[r][c] == 1 - me:
            line.append((r, c))
            r, c = r + dr, c + dc
        if line and 0 <= r < n and 0 <= c < n and grid[r][c] == me:
            flips.extend(line)
    return flips


def to_grid(game: Reversi, state: ReversiState) -> list[list[int]]:
    rows = game.encode_state(state)["board"]
    return [[{"X": 0, "O": 1, ".": -1}[ch] for ch in row] for row in rows]


@pytest.mark.parametrize("size", [4, 6, 8, 10, 16])
def test_matches_reference_implementation(size: int) -> None:
    game = Reversi(size=size)
    rng = random.Random(size)
    for _ in range(3 if size > 8 else 10):
        state = game.initial_state()
        while not game.is_terminal(state):
            grid = to_grid(game, state)
            me = game.to_move(state)
            expected = [
                r * size + c
                for r in range(size)
                for c in range(size)
                if reference_flips(grid, r, c, me)
            ]
            moves = game.legal_moves(state)
            if expected:
                assert moves == expected
            else:
                assert moves == [PASS]
                assert any(
                    reference_flips(grid, r, c, 1 - me) for r in range(size) for c in range(size)
                )
            move = moves[rng.randrange(len(moves))]
            after = game.apply(state, move)
            if move != PASS:
                row, col = divmod(move, size)
                grid_after = [line[:] for line in grid]
                for r, c in [*reference_flips(grid, row, col, me), (row, col)]:
                    grid_after[r][c] = me
                assert to_grid(game, after) == grid_after
            state = after
        grid = to_grid(game, state)
        assert not any(
            reference_flips(grid, r, c, seat)
            for seat in (0, 1)
            for r in range(size)
            for c in range(size)
        )


# --- the fast playout ----------------------------------------------------------


def test_playout_single_steps_are_legal_moves() -> None:
    game = Reversi()
    rng = random.Random(7)
    for _ in range(5):
        state = game.initial_state()
        while not game.is_terminal(state):
            successors = {game.apply(state, m) for m in game.legal_moves(state)}
            stepped = game.playout(state, rng, max_moves=1)
            assert stepped in successors
            state = stepped
        assert game.playout(state, rng, max_moves=1) == state


def test_playout_passes_and_ends() -> None:
    game = Reversi()
    state = position(PASS_POSITION, to_move=0)
    after_pass = game.playout(state, random.Random(1), max_moves=1)
    assert after_pass == game.apply(state, PASS)
    end = game.playout(state, random.Random(1))
    assert end == game.apply(after_pass, game.parse_move("a5"))
    assert game.playout(state, random.Random(1), max_moves=0) == state


def test_playout_is_uniform_over_legal_moves() -> None:
    # From d3 (White to move: c3, e3, c5), each reply should come up about 1/3 of the time.
    game = Reversi()
    state = play(game, "d3")
    replies = {game.apply(state, m): game.format_move(m) for m in game.legal_moves(state)}
    rng = random.Random(11)
    counts = Counter(replies[game.playout(state, rng, max_moves=1)] for _ in range(3000))
    assert set(counts) == {"c3", "e3", "c5"}
    assert all(900 < n < 1100 for n in counts.values()), counts


def test_playout_reaches_a_consistent_end() -> None:
    game = Reversi(size=6)
    rng = random.Random(3)
    for _ in range(20):
        end = game.playout(game.initial_state(), rng)
        outcome = game.outcome(end)
        assert outcome is not None and game.legal_moves(end) == []
        grid = to_grid(game, end)
        assert not any(
            reference_flips(grid, r, c, seat) for seat in (0, 1) for r in range(6) for c in range(6)
        )
        black, white = end[0].bit_count(), end[1].bit_count()
        assert outcome.points == (float(black - white), float(white - black))
