"""Go's rules (games/go.py) held to published counts, a plain referee, OpenSpiel and GNU Go.

- Perft: every board reachable from the empty one, either side to move, is
  exactly the set of legal positions (every chain has a liberty), and their
  number is Tromp and Farnebäck's (OEIS A094777): 57 on 2×2, 12,675 on 3×3.
- A plain referee (tests/games/go_reference.py: lists, breadth-first chains,
  a set of whole boards for superko) agrees move by move on legal moves,
  captures and area counts over random games.
- OpenSpiel's ``go`` (the ``reference`` extra) agrees on legal moves, boards
  and winners. It forbids only a recapture of a simple ko and *ends* a game
  whose position repeats, where we forbid the move: every move it allows and
  we refuse must repeat an earlier position of the game (checked, counted),
  and since we only ever play our moves its game never meets a repetition.
- GNU Go (``--chinese-rules --positional-superko``), over GTP: its
  ``all_legal`` is our legal placements, it accepts every move we play, its
  stones after each move are ours, and at the end of a game played out by
  eye-avoiding playouts its ``final_score`` is our area count.

The default suite runs a few games of each; the ``slow`` tests run thousands.
"""

from __future__ import annotations

import itertools
import random
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

from games import (
    IllegalMoveError,
    InvalidMoveError,
    InvalidStateError,
    Termination,
    make_game,
)
from games.go import NO_MOVE, PASS, Go, GoState, result_text
from tests.games.go_reference import Referee, area, is_legal_position

# --- options, notation and rendering ------------------------------------------------


def go(**options: Any) -> Go:
    """The registered game `go` with `options`."""
    game = make_game("go", options)
    assert isinstance(game, Go)
    return game


def test_options_default_komi_by_board_size_and_bounds() -> None:
    assert make_game("go", {}).options == {"size": 9, "komi": 7.0}
    assert make_game("go", {"size": "13"}).options == {"size": 13, "komi": 7.5}
    assert make_game("go", {"size": 19, "komi": "6.5"}).options["komi"] == 6.5
    assert make_game("go", {"size": 5}).options["komi"] == 7.0
    cases: list[tuple[dict[str, Any], str]] = [
        ({"size": 4}, "option 'size' must be >= 5, not 4"),
        ({"size": 21}, "option 'size' must be <= 19, not 21"),
        ({"komi": 7.25}, "option 'komi' must be a multiple of 0.5, not 7.25"),
        ({"komi": "lots"}, "option 'komi' must be a number, not 'lots'"),
        ({"komi": "nan"}, "option 'komi' must be a finite number, not 'nan'"),
        ({"komi": True}, "option 'komi' must be a number, not True"),
    ]
    for options, message in cases:
        with pytest.raises(ValueError) as caught:
            make_game("go", options)
        assert str(caught.value) == message


def test_vertices_are_gtps_without_i_and_round_trip() -> None:
    game = go(size=19)
    assert game.parse_move("A1") == 18 * 19  # bottom left
    assert game.parse_move("t19") == 18  # top right
    assert game.parse_move("J10") == 9 * 19 + 8  # J is the ninth column: I is skipped
    assert game.parse_move(" Pass ") == PASS
    assert [game.format_move(m) for m in (0, 18, 342, 360, PASS)] == [
        "A19",
        "T19",
        "A1",
        "T1",
        "pass",
    ]
    for move in range(361):
        assert game.parse_move(game.format_move(move)) == move
    small = go(size=9)
    for bad in ("I5", "K1", "A10", "A0", "5A", "", "resign"):
        with pytest.raises(InvalidMoveError):
            small.parse_move(bad)
    for bad_wire in (81, -2, "A1", True, 1.0):
        with pytest.raises(InvalidMoveError):
            small.decode_move(bad_wire)


def play_all(game: Go, *moves: str) -> GoState:
    state = game.initial_state()
    for move in moves:
        state = game.play(state, game.parse_move(move))
    return state


def test_render_has_coordinates_on_every_side_and_marks_the_last_move() -> None:
    game = go(size=9)
    state = play_all(game, "E5", "A1")
    assert game.render(state).splitlines() == [
        "  A B C D E F G H J",
        "9 . . . . . . . . . 9",
        "8 . . . . . . . . . 8",
        "7 . . . . . . . . . 7",
        "6 . . . . . . . . . 6",
        "5 . . . . X . . . . 5",
        "4 . . . . . . . . . 4",
        "3 . . . . . . . . . 3",
        "2 . . . . . . . . . 2",
        "1(O). . . . . . . . 1",
        "  A B C D E F G H J",
        "captures: Black (X) 0, White (O) 0; komi 7; last move A1; Black to move",
    ]
    wide = go(size=19).render(go(size=19).initial_state())
    lines = wide.splitlines()
    assert lines[0] == "   A B C D E F G H J K L M N O P Q R S T" == lines[20]
    assert lines[1].startswith("19 .") and lines[1].endswith(". 19")
    assert lines[19].startswith(" 1 .") and lines[19].endswith(". 1")


# --- rules by hand ---------------------------------------------------------------------


def board(game: Go, state: GoState) -> list[str]:
    return list(game.encode_state(state)["board"])


def test_state_has_named_fields_and_equals_its_plain_tuple() -> None:
    game = Go(size=5)
    state = game.apply(game.apply(game.initial_state(), game.parse_move("C3")), PASS)
    assert isinstance(state, GoState) and state._fields == (
        "black", "white", "ply", "passes", "key", "history", "last",
        "captured_by_black", "captured_by_white",
    )  # fmt: skip
    assert (state.ply, state.passes, state.last) == (2, 1, PASS)
    assert state.black == 1 << game.tables.position[game.parse_move("C3")]
    plain = tuple(state)
    assert plain == state and hash(plain) == hash(state)
    assert game.decode_state(game.encode_state(state)) == state
    assert game.removing(state, frozenset({game.parse_move("C3")})).black == 0


def test_captures_remove_chains_and_are_counted() -> None:
    game = Go.unchecked(5)
    # White's two stones on B1-C1 are surrounded on the edge; D1 takes them both
    state = play_all(game, "B2", "B1", "C2", "C1", "A1", "pass", "D1")
    assert board(game, state)[-2:] == [".XX..", "X..X."]
    assert game.encode_state(state)["captures"] == [2, 0]
    # the stones can come back: the points are empty again
    assert game.parse_move("B1") in game.legal_moves(state)


def test_suicide_is_illegal_but_a_capture_that_makes_liberties_is_not() -> None:
    game = Go.unchecked(5)
    state = play_all(game, "B1", "pass", "A2")  # White to move
    assert game.parse_move("A1") not in game.legal_moves(state)
    with pytest.raises(IllegalMoveError, match="'A1' is illegal"):
        game.play(state, game.parse_move("A1"))
    # Black's B1 and A2 have A1 as their last liberty: White's A1 has none of its
    # own until it takes them both, so it is legal
    state = play_all(game, "B1", "C1", "A2", "B2", "pass", "A3", "pass")
    assert board(game, state)[-3:] == ["O....", "XO...", ".XO.."]
    state = game.play(state, game.parse_move("A1"))
    assert board(game, state)[-3:] == ["O....", ".O...", "O.O.."]
    assert game.encode_state(state)["captures"] == [0, 2]


def test_simple_ko_recapture_waits_for_a_move_elsewhere() -> None:
    game = Go.unchecked(5)
    state = play_all(game, "B3", "C3", "A2", "B2", "B1", "C1", "pass", "D2")
    assert board(game, state)[-3:] == [".XO..", "XO.O.", ".XO.."]
    state = game.play(state, game.parse_move("C2"))  # Black takes the ko
    assert board(game, state)[-3:] == [".XO..", "X.XO.", ".XO.."]
    retake = game.parse_move("B2")
    assert retake not in game.legal_moves(state)
    with pytest.raises(IllegalMoveError, match="'B2' is illegal"):
        game.play(state, retake)
    # a move elsewhere and an answer make the board new: the retake is legal again
    state = play_all(game, "B3", "C3", "A2", "B2", "B1", "C1", "pass", "D2", "C2", "E5", "E4")
    assert retake in game.legal_moves(state)
    state = game.play(state, retake)
    assert board(game, state) == ["....O", "....X", ".XO..", "XO.O.", ".XO.."]


def test_positional_superko_forbids_a_position_from_three_plies_back() -> None:
    game = Go.unchecked(3)
    # B2 C2 B3 B1 A3 C3, then Black's C1 captures C2 and C3 (two stones). White's
    # C2 would take C1 and recreate the board after Black's A3, three plies back:
    # not a simple-ko recapture, but a repeated position.
    state = play_all(game, "B2", "C2", "B3", "B1", "A3", "C3", "C1")
    assert board(game, state) == ["XX.", ".X.", ".OX"]
    assert [game.format_move(m) for m in game.legal_moves(state)] == ["C3", "A2", "A1", "pass"]
    with pytest.raises(IllegalMoveError, match="'C2' is illegal"):
        game.play(state, game.parse_move("C2"))
    referee = Referee(3)
    for move in ("B2", "C2", "B3", "B1", "A3", "C3", "C1"):
        referee.play(game.parse_move(move))
    assert game.legal_moves(state) == referee.legal() and referee.superko_refusals == 1


def test_two_passes_end_the_game_scored_by_area_with_komi() -> None:
    game = go(size=5, komi=0.5)
    # a wall on the C column: Black owns A-B (10 points), White D-E (10), C is stones
    state = play_all(game, "C1", "D1", "C2", "D2", "C3", "D3", "C4", "D4", "C5", "D5")
    assert game.outcome(state) is None
    state = game.play(game.play(state, PASS), PASS)
    outcome = game.outcome(state)
    assert outcome is not None and outcome.termination is Termination.SCORE
    assert game.area(state) == (15, 10)
    assert outcome.winner == 0 and outcome.points == (4.5, -4.5)
    assert result_text(outcome) == "B+4.5"
    assert game.legal_moves(state) == []
    with pytest.raises(IllegalMoveError, match="the game is over"):
        game.play(state, PASS)
    # a pass then a move then a pass does not end it
    state = play_all(game, "C3", "pass", "D4", "pass")
    assert game.outcome(state) is None


def test_a_draw_with_integer_komi_and_the_move_cap_scores_the_board() -> None:
    even = go(size=5, komi=0)
    outcome = even.outcome(play_all(even, "pass", "pass"))
    assert outcome is not None and outcome.winner is None and outcome.scores == (0.5, 0.5)
    assert result_text(outcome) == "0"
    game = go(size=5, komi=5)
    outcome = game.outcome(play_all(game, "C3", "pass", "pass"))
    assert outcome is not None and outcome.points == (20.0, -20.0)
    assert result_text(outcome) == "B+20"
    capped = Go.unchecked(5, komi=0.5, move_cap=3)
    state = play_all(capped, "C3", "D3", "B3")
    outcome = capped.outcome(state)
    assert outcome is not None and outcome.termination is Termination.SCORE
    assert capped.area(state) == (2, 1) and outcome.winner == 0
    assert go(size=5).move_cap == 75
    assert go(size=19).move_cap == 3 * 361


def test_the_playout_never_fills_its_own_eyes_and_ends_the_game() -> None:
    game = go(size=9)
    rng = random.Random(3)
    ended = 0
    for _ in range(30):
        state = game.initial_state()
        while not game.is_terminal(state):
            after = game.playout(state, rng, max_moves=1)
            move = after[6]
            assert move in game.legal_moves(state)
            if move != PASS:
                assert not is_own_eye(game, state, move)
            state = after
        ended += state[3] == 2
        assert game.decode_state(game.encode_state(state)) == state
    assert ended == 30  # by two passes, long before the cap


def is_own_eye(game: Go, state: GoState, move: int) -> bool:
    """The eye test, written from the rule in `Go.playout`'s docstring on the encoded board."""
    rows = board(game, state)
    n = game.size
    mine, theirs = ("X", "O") if game.to_move(state) == 0 else ("O", "X")
    row, col = divmod(move, n)

    def at(r: int, c: int) -> str | None:
        return rows[r][c] if 0 <= r < n and 0 <= c < n else None

    sides = [at(row + dr, col + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))]
    corners = [at(row + dr, col + dc) for dr, dc in itertools.product((-1, 1), repeat=2)]
    if any(side not in (mine, None) for side in sides):
        return False
    enemies = corners.count(theirs)
    return enemies == 0 if None in sides else enemies <= 1


def test_encoded_states_are_checked() -> None:
    game = go(size=5)
    state = play_all(game, "C3", "D3", "pass")
    data = game.encode_state(state)
    assert game.decode_state(data) == state
    assert data["last"] == PASS and data["passes"] == 1 and data["ply"] == 3
    assert game.encode_state(game.initial_state())["last"] is None
    changes: list[tuple[dict[str, Any], str]] = [
        ({"board": ["X....", ".....", ".....", ".....", "....."]}, "lacks"),
        ({"board": ["XO...", "O....", ".....", ".....", "....."]}, "no liberty"),
        ({"board": ["?....", ".....", ".....", ".....", "....."]}, "bad point"),
        ({"ply": -1}, "'ply' must be"),
        ({"passes": 3}, "'passes' must be"),
        ({"passes": 0}, "disagree"),
        ({"captures": [1]}, "'captures'"),
        ({"history": "xyz"}, "'history'"),
        ({"history": "g" * 16}, "hex digits"),
        ({"last": 99}, "'last'"),
    ]
    for change, message in changes:
        with pytest.raises(InvalidStateError, match=message):
            game.decode_state({**data, **change})


# --- perft: the legal positions of tiny boards ----------------------------------------------

#: OEIS A094777, legal positions on n×n boards (Tromp and Farnebäck, "Combinatorics of Go")
LEGAL_POSITIONS = {1: 1, 2: 57, 3: 12_675, 4: 24_318_165}


def reachable_boards(game: Go) -> set[tuple[int, int]]:
    """Every board reachable from the empty one by legal placements of either colour.

    Breadth first, one state kept per board; a pass lets the same colour move
    again (its history is the path that reached the board first, so superko
    hides nothing new). Boards are the (black, white) bitboards of the state.
    """
    root = game.initial_state()
    found = {(root[0], root[1])}
    frontier = [root]
    while frontier:
        following = []
        for state in frontier:
            for base in (state, game.apply(state, PASS)):
                for move in game.legal_moves(base):
                    if move == PASS:
                        continue
                    after = game.apply(base, move)
                    key = (after[0], after[1])
                    if key not in found:
                        found.add(key)
                        following.append(after)
        frontier = following
    return found


def colourings(game: Go, key: tuple[int, int]) -> list[str]:
    black, white = key
    return [
        "X" if (black >> pos) & 1 else "O" if (white >> pos) & 1 else "."
        for pos in game.tables.position
    ]


@pytest.mark.parametrize("size", [2, 3])
def test_every_legal_position_is_reached_from_the_empty_board(size: int) -> None:
    game = Go.unchecked(size, move_cap=10**6)
    reached = {"".join(colourings(game, key)) for key in reachable_boards(game)}
    assert len(reached) == LEGAL_POSITIONS[size]
    # and they are exactly the legal colourings, found by brute force over all 3^(n·n)
    legal = {
        "".join(cells)
        for cells in itertools.product(".XO", repeat=size * size)
        if is_legal_position(list(cells), size)
    }
    assert reached == legal


@pytest.mark.slow
def test_legal_positions_of_4x4() -> None:
    pytest.skip(
        "4x4 has 24,318,165 legal positions: a search over them in Python would take"
        " hours and tens of GB; 2x2 and 3x3 are checked exactly"
    )


# --- a plain referee -----------------------------------------------------------------------


def random_game(game: Go, rng: random.Random, eye_avoiding: bool) -> Iterator[tuple[GoState, int]]:
    """(state, move) along one random game: uniform over legal moves, or the playout's policy."""
    state = game.initial_state()
    while not game.is_terminal(state):
        if eye_avoiding:
            move = game.playout(state, rng, max_moves=1)[6]
        else:
            moves = game.legal_moves(state)
            move = moves[rng.randrange(len(moves))]
        yield state, move
        state = game.apply(state, move)
    yield state, NO_MOVE


def agree_with_referee(game: Go, seed: int, eye_avoiding: bool) -> tuple[int, int]:
    """Play one random game against the referee; (superko refusals, stones captured)."""
    referee = Referee(game.size)
    captured = 0
    for state, move in random_game(game, random.Random(seed), eye_avoiding):
        assert board(game, state) == referee.rows()
        if move == NO_MOVE:
            assert game.legal_moves(state) == []
            black_area, white_area = area(referee.board, game.size)
            assert game.area(state) == (black_area, white_area)
            outcome = game.outcome(state)
            assert outcome is not None
            assert outcome.points is not None
            assert outcome.points[0] == black_area - white_area - game.komi
            break
        assert game.legal_moves(state) == referee.legal(), (seed, game.to_move(state))
        captured += referee.play(move)
    assert captured == sum(game.encode_state(state)["captures"])
    return referee.superko_refusals, captured


def test_random_games_agree_with_a_plain_referee() -> None:
    refusals = captures = 0
    small = go(size=5)
    for seed in range(60):
        found = agree_with_referee(small, seed, eye_avoiding=seed % 2 == 0)
        refusals, captures = refusals + found[0], captures + found[1]
    nine = go(size=9)
    for seed in range(2):
        agree_with_referee(nine, seed, eye_avoiding=True)
    # the games reached ko and superko, and captured a lot
    assert refusals > 10 and captures > 500, (refusals, captures)


# --- OpenSpiel --------------------------------------------------------------------------------


def openspiel_rows(state: Any, size: int) -> list[str]:
    rows = []
    for line in str(state).splitlines():
        words = line.split()
        if len(words) == 2 and words[0].isdigit() and len(words[1]) == size:
            rows.append(words[1].replace("+", "."))
    return rows


def agree_with_openspiel(pyspiel: Any, game: Go, seed: int, eye_avoiding: bool) -> int:
    """One random game through both; the number of moves only OpenSpiel allows (superko)."""
    n = game.size
    theirs = pyspiel.load_game(
        "go", {"board_size": n, "komi": float(game.komi), "max_game_length": game.move_cap}
    ).new_initial_state()

    def action(move: int) -> int:
        if move == PASS:
            return n * n
        row, col = divmod(move, n)
        return (n - 1 - row) * n + col

    superko = 0
    seen = {"".join(board(game, game.initial_state()))}
    for state, move in random_game(game, random.Random(seed), eye_avoiding):
        assert board(game, state) == openspiel_rows(theirs, n), (seed, state[2])
        assert theirs.is_terminal() == (move == NO_MOVE)
        if move == NO_MOVE:
            outcome = game.outcome(state)
            assert outcome is not None
            black = theirs.returns()[0]
            expected = 0.0 if outcome.winner is None else 1.0 if outcome.winner == 0 else -1.0
            assert black == expected, (seed, outcome)
            break
        ours = {action(m) for m in game.legal_moves(state)}
        allowed = set(theirs.legal_actions())
        assert ours <= allowed, (seed, state[2])
        for extra in allowed - ours:  # each must repeat an earlier position
            trial = theirs.clone()
            trial.apply_action(extra)
            assert "".join(openspiel_rows(trial, n)) in seen, (seed, extra)
            superko += 1
        if move != PASS:
            vertex = game.format_move(move).lower()
            assert theirs.action_to_string(action(move)).endswith(" " + vertex)
        theirs.apply_action(action(move))
        seen.add("".join(openspiel_rows(theirs, n)))
    return superko


def openspiel_games(counts: dict[int, int]) -> dict[int, int]:
    pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel: pip install '.[reference]'")
    superko: dict[int, int] = {}
    for size, games in counts.items():
        game = go(size=size)
        superko[size] = sum(
            agree_with_openspiel(pyspiel, game, seed, eye_avoiding=seed % 2 == 1)
            for seed in range(games)
        )
    return superko


def test_captures_ko_and_scores_agree_with_openspiel() -> None:
    superko = openspiel_games({5: 120, 9: 16, 19: 2})
    assert superko[5] > 0  # OpenSpiel allowed moves that we refused, and they were repeats


@pytest.mark.slow
def test_thousands_of_games_agree_with_openspiel() -> None:
    superko = openspiel_games({5: 3000, 9: 1000, 19: 100})
    print(f"moves OpenSpiel allows that repeat a position: {superko}")


# --- GNU Go -------------------------------------------------------------------------------------


class Gtp:
    """A bare GTP client for GNU Go, sharing nothing with player/engines."""

    def __init__(self, program: str, *args: str) -> None:
        self.process = subprocess.Popen(
            [program, "--mode", "gtp", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, command: str) -> tuple[bool, str]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines: list[str] = []
        while True:
            line = self.process.stdout.readline()
            assert line, f"GNU Go ended while answering {command!r}"
            if not line.strip():
                if lines:
                    break
                continue
            lines.append(line.strip())
        text = "\n".join(lines)
        return text[0] == "=", text[1:].strip()

    def close(self) -> None:
        self.ask("quit")
        self.process.wait(timeout=10)


def margin(score: str) -> float:
    """Black's margin from a GTP score: ``B+3.5`` -> 3.5, ``W+7.0`` -> -7.0, ``0`` -> 0."""
    if score == "0":
        return 0.0
    side, _, points = score.partition("+")
    return float(points) * (1 if side == "B" else -1)


def agree_with_gnugo(engine: Gtp, game: Go, seed: int, eye_avoiding: bool) -> bool:
    """One random game checked against GNU Go; True if its score was compared."""
    assert engine.ask(f"boardsize {game.size}")[0] and engine.ask("clear_board")[0]
    assert engine.ask(f"komi {game.komi:g}")[0]
    colours = ("black", "white")
    for state, move in random_game(game, random.Random(seed), eye_avoiding):
        mover = game.to_move(state)
        if move == NO_MOVE:
            outcome = game.outcome(state)
            assert outcome is not None
            if state[3] < 2:
                return False  # ended by the cap, not played out
            ok, dead = engine.ask("final_status_list dead")
            assert ok
            if dead:
                return False  # GNU Go sees dead stones on the board: not comparable
            ok, score = engine.ask("final_score")
            assert ok and outcome.points is not None
            assert margin(score) == outcome.points[0], (seed, score, result_text(outcome))
            return True
        ok, listed = engine.ask(f"all_legal {colours[mover]}")
        assert ok
        ours = {game.format_move(m) for m in game.legal_moves(state) if m != PASS}
        assert set(listed.upper().split()) == ours, (seed, state[2])
        ok, answer = engine.ask(f"play {colours[mover]} {game.format_move(move)}")
        assert ok, (seed, game.format_move(move), answer)
        for colour, symbol in zip(colours, "XO", strict=True):
            ok, stones = engine.ask(f"list_stones {colour}")
            assert ok
            rows = board(game, game.apply(state, move))
            expected = {
                game.format_move(point)
                for point in range(game.cells)
                if rows[point // game.size][point % game.size] == symbol
            }
            assert set(stones.upper().split()) == expected, (seed, state[2], colour)
    raise AssertionError("unreachable: the game ends")


def gnugo_games(program: str, size: int, games: int) -> tuple[int, int]:
    engine = Gtp(program, "--chinese-rules", "--positional-superko", "--level", "0")
    scored = 0
    try:
        game = go(size=size)
        for seed in range(games):
            scored += agree_with_gnugo(engine, game, seed, eye_avoiding=seed % 3 != 0)
    finally:
        engine.close()
    return games, scored


def test_legal_moves_boards_and_final_counts_agree_with_gnu_go(gnugo: str) -> None:
    games, scored = gnugo_games(gnugo, 9, 6)
    assert scored >= 3, (games, scored)


@pytest.mark.slow
@pytest.mark.parametrize(("size", "games"), [(9, 300), (13, 40), (19, 20)])
def test_many_games_agree_with_gnu_go(gnugo: str, size: int, games: int) -> None:
    played, scored = gnugo_games(gnugo, size, games)
    print(f"{size}x{size}: {played} games agree with GNU Go, {scored} final scores compared")
    assert scored >= games // 3


def test_gnu_go_refuses_the_superko_move_we_refuse(gnugo: str) -> None:
    engine = Gtp(gnugo, "--chinese-rules", "--positional-superko")
    try:
        assert engine.ask("boardsize 3")[0]
        for colour, vertex in zip(
            itertools.cycle(("black", "white")), ("B2", "C2", "B3", "B1", "A3", "C3", "C1")
        ):
            assert engine.ask(f"play {colour} {vertex}")[0]
        assert engine.ask("is_legal white C2") == (True, "0")
        assert engine.ask("is_legal white A2") == (True, "1")
    finally:
        engine.close()
