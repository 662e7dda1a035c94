"""Openings: random per seed, from a file, and in seat-swapped pairs."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games import available_games, make_game
from tournament.openings import (
    EMPTY,
    FileOpenings,
    NoOpenings,
    Opening,
    OpeningError,
    RandomOpenings,
    book_from_dict,
    load_opening_file,
    paired_games,
    parse_openings,
    random_opening,
    replay_opening,
)

GAMES = sorted(available_games())


@pytest.mark.parametrize("name", GAMES)
def test_random_openings_are_legal_and_deterministic(name: str) -> None:
    game = make_game(name)
    book = RandomOpenings(game, 4, seed=7)
    openings = [book.opening(i) for i in range(6)]
    for opening in openings:
        assert len(opening) == 4
        replay_opening(game, opening.moves)  # legal, and the game goes on
        assert opening.notation == tuple(game.format_move(m) for m in opening.moves)
    # opening i depends only on (seed, i): a fresh book, asked in another order, agrees
    again = RandomOpenings(game, 4, seed=7)
    assert [again.opening(i) for i in reversed(range(6))] == openings[::-1]
    assert len(set(openings)) > 1
    assert RandomOpenings(game, 4, seed=8).opening(0) != openings[0]


def test_random_opening_rejects_finished_games() -> None:
    game = make_game("tictactoe")
    # 8 plies of tic-tac-toe: only lines that leave no winner yet are kept
    for seed in range(20):
        opening = random_opening(game, 8, random.Random(seed))
        assert not game.is_terminal(replay_opening(game, opening.moves))
    with pytest.raises(OpeningError, match="no random opening of 9 plies"):
        random_opening(game, 9, random.Random(0))
    with pytest.raises(OpeningError, match="-1"):
        RandomOpenings(game, -1, seed=0)


def test_parse_opening_file(tmp_path: Path) -> None:
    game = make_game("gomoku", {"width": 9, "height": 9})
    text = "# a comment\n\ne5 d4 f6\n  e4, e6   # trailing comment\nE3\n"
    openings = parse_openings(game, text)
    assert [o.notation for o in openings] == [("e5", "d4", "f6"), ("e4", "e6"), ("e3",)]
    path = tmp_path / "book.txt"
    path.write_text(text)
    assert load_opening_file(game, path) == openings


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("e5 d4\ne5 zz", "book.txt:2: move 2 'zz': "),
        ("e5 e5", "book.txt:1: move 2 'e5': move 'e5' is illegal"),
        ("a1 b1 a2 b2 a3 b3 a4 b4 a5 b5", "book.txt:1: move 10 'b5': the game is already over"),
        ("a1 b1 a2 b2 a3 b3 a4 b4 a5", "book.txt:1: the opening ends the game"),
    ],
)
def test_opening_file_errors(tmp_path: Path, text: str, message: str) -> None:
    game = make_game("gomoku", {"width": 9, "height": 9})
    path = tmp_path / "book.txt"
    path.write_text(text)
    with pytest.raises(OpeningError, match=message) as info:
        load_opening_file(game, path)
    assert "\n" not in str(info.value)


def test_empty_or_missing_file(tmp_path: Path) -> None:
    game = make_game("connect4")
    path = tmp_path / "empty.txt"
    path.write_text("# nothing\n\n")
    with pytest.raises(OpeningError, match="holds no opening"):
        load_opening_file(game, path)
    with pytest.raises(OpeningError, match="cannot read opening file"):
        load_opening_file(game, tmp_path / "missing.txt")


def test_reversi_pass_and_connect4_notation() -> None:
    connect4 = make_game("connect4")
    (opening,) = parse_openings(connect4, "4 4 3")
    assert opening.moves == (3, 3, 2) and opening.text() == "4 4 3"
    reversi = make_game("reversi")
    (opening,) = parse_openings(reversi, "d3 c5")
    assert opening.wire(reversi) == [reversi.encode_move(m) for m in opening.moves]
    with pytest.raises(OpeningError, match="move 1 'pass'"):
        parse_openings(reversi, "pass")


def test_file_book_order_and_cycle() -> None:
    game = make_game("connect4")
    openings = parse_openings(game, "\n".join(str(c) for c in range(1, 8)))
    sequential = FileOpenings(openings)
    assert [sequential.opening(i).text() for i in range(9)] == [
        "1", "2", "3", "4", "5", "6", "7", "1", "2"
    ]  # fmt: skip
    shuffled = FileOpenings(openings, order="random", seed=3)
    first_cycle = [shuffled.opening(i) for i in range(7)]
    assert sorted(o.text() for o in first_cycle) == [str(c) for c in range(1, 8)]
    assert first_cycle != openings  # 1 chance in 5040 of a false alarm, fixed by the seed
    assert [FileOpenings(openings, order="random", seed=3).opening(i) for i in range(7)] == (
        first_cycle
    )
    with pytest.raises(OpeningError, match="'backwards'"):
        FileOpenings(openings, order="backwards")


@pytest.mark.parametrize(
    "book_factory",
    [
        lambda game: NoOpenings(),
        lambda game: RandomOpenings(game, 3, seed=11),
        lambda game: FileOpenings(
            parse_openings(game, "4 4\n3 5\n1"), order="random", seed=2, source="b.txt"
        ),
    ],
)
def test_book_survives_resume(book_factory) -> None:
    import json

    game = make_game("connect4")
    book = book_factory(game)
    again = book_from_dict(game, json.loads(json.dumps(book.describe())))
    assert [again.opening(i) for i in range(5)] == [book.opening(i) for i in range(5)]


def test_pairs_swap_seats() -> None:
    game = make_game("tictactoe")
    book = RandomOpenings(game, 2, seed=1)
    games = paired_games(book, "alice", "bob", pairs=3, start=5)
    assert [(g.pair, g.game, g.seats) for g in games[:2]] == [
        (5, 0, ("alice", "bob")),
        (5, 1, ("bob", "alice")),
    ]
    assert len(games) == 6
    for first, second in zip(games[::2], games[1::2], strict=True):
        assert first.opening == second.opening == book.opening(first.pair)
    assert paired_games(NoOpenings(), "a", "b", 1)[0].opening == EMPTY


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(GAMES), st.integers(0, 6), st.integers(0, 2**32))
def test_random_opening_property(name: str, plies: int, seed: int) -> None:
    game = make_game(name)
    opening = RandomOpenings(game, plies, seed).opening(0)
    assert len(opening) == plies
    assert Opening.from_moves(game, opening.moves) == opening
    # written out and read back as a one-line opening file, it is the same opening
    if plies:
        assert parse_openings(game, opening.text()) == [opening]
