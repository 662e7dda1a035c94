"""SGF records: our writer, our reader, and an independent SGF parser (sgfmill) on our files."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sgfmill import sgf_grammar, sgf_properties  # type: ignore[import-untyped]

from games import make_game
from games.reversi import PASS
from records.replay import check_entry
from records.schema import RecordError, entry_from_store, entry_to_store
from records.sgf import entry_from_sgf, entry_to_sgf, parse_sgf, sgf_game_number
from tests.records.fixtures import random_match

SGF_GAMES: dict[str, dict[str, Any]] = {
    "tictactoe": {},
    "gomoku": {"width": 9, "height": 7, "k": 4},  # non-square: SZ[9:7]
    "reversi": {"size": 6},
    "go": {"size": 7, "komi": 4.5},
}


def _reversi_with_a_pass() -> tuple[object, object]:
    for seed in range(500):
        record, moves = random_match("reversi", seed, options={"size": 4})
        if any(m.move == PASS for m in moves):
            return record, moves
    raise AssertionError("no random 4x4 reversi game with a pass")


@pytest.mark.parametrize("name", sorted(SGF_GAMES))
@pytest.mark.parametrize(
    ("opening", "stop", "info"), [(0, None, False), (2, None, True), (0, 3, False), (0, 3, True)]
)
def test_round_trip(name: str, opening: int, stop: int | None, info: bool) -> None:
    record, moves = random_match(
        name, 11, options=SGF_GAMES[name], opening_plies=opening, stop_after=stop, move_info=info
    )
    entry = entry_from_store(record, moves)
    text = entry_to_sgf(entry)
    (nodes,) = parse_sgf(text)
    again = entry_from_sgf(text, nodes)
    check_entry(again)
    assert again == entry
    assert entry_to_store(again) == (record, moves)


def test_reversi_pass_is_an_empty_move() -> None:
    record, moves = _reversi_with_a_pass()
    text = entry_to_sgf(entry_from_store(record, moves))  # type: ignore[arg-type]
    assert ";B[]" in text or ";W[]" in text
    (nodes,) = parse_sgf(text)
    assert entry_to_store(entry_from_sgf(text, nodes)) == (record, moves)


@pytest.mark.parametrize("info", [False, True], ids=["plain", "move-info"])
@pytest.mark.parametrize("name", sorted(SGF_GAMES))
def test_sgfmill_reads_our_files(name: str, info: bool) -> None:
    """An independent FF[4] parser accepts the file and sees the same moves at the same points."""
    record, moves = random_match(name, 4, options=SGF_GAMES[name], move_info=info)
    text = entry_to_sgf(entry_from_store(record, moves))
    game = make_game(name, SGF_GAMES[name])
    (tree,) = sgf_grammar.parse_sgf_collection(text.encode())
    sequence = tree.sequence
    root = sequence[0]
    assert root["GM"] == [str(sgf_game_number(game)).encode()]
    assert sgf_grammar.text_value(root["PB"][0]) == record.players[0].encode()
    assert sgf_grammar.text_value(root["GN"][0]) == record.id.encode()
    assert len(sequence) == 1 + len(moves)
    width: int = game.options.get("width") or game.options["size"]
    height: int = game.options.get("height", width)
    for node, move in zip(sequence[1:], moves, strict=True):
        (color,) = [c for c in ("B", "W") if c in node]
        assert color == ("B" if move.seat == 0 else "W")
        # the move info is a comment for people (and XI for our own import)
        comment = node.get("C")
        assert (comment is not None) == move.has_info
        if comment is not None:
            text = sgf_grammar.text_value(comment[0]).decode()
            assert text.endswith("pv " + " ".join(move.pv)) and ("XI" in node)
        (raw,) = node[color]
        if move.move == PASS:
            assert raw == b""
            continue
        if width == height:  # sgfmill's point reader is Go's: square boards, row 0 at the bottom
            row, col = sgf_properties.interpret_go_point(raw, width)
            assert (height - 1 - row) * width + col == move.move
        else:
            col, row = raw[0] - ord("a"), raw[1] - ord("a")
            assert row * width + col == move.move


@pytest.mark.parametrize("name", ["connect4", "ultimate"])
def test_games_without_sgf_standard(name: str) -> None:
    record, moves = random_match(name, 1)
    with pytest.raises(RecordError, match=f"game {name!r} has no SGF standard"):
        entry_to_sgf(entry_from_store(record, moves))


def test_foreign_file_without_our_metadata() -> None:
    # hand-written: X (Black) takes the left column of a 3x3 board
    text = "(;FF[4]GM[4]SZ[3]PB[ann]PW[bob]RE[B+]\n;B[aa];W[ba];B[ab];W[bb];B[ac])"
    (nodes,) = parse_sgf(text)
    entry = entry_from_sgf(text, nodes)
    check_entry(entry)
    assert (entry.game, entry.players) == ("tictactoe", ["ann", "bob"])
    assert [m.notation for m in entry.moves] == ["a3", "b3", "a2", "b2", "a1"]
    assert entry.result is not None and entry.result.winner == 0
    assert entry.id.startswith("sgf-")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(;FF[4]GM[4]SZ[3];B[aa](;W[bb])(;W[cc]))", "variations are not supported"),
        ("(;FF[4]GM[4]SZ[3];B[aa]", "expected ')', found 'the end'"),
        ("(;FF[4]GM[4]SZ[3];B[aa", "unterminated property value"),
        ("(;FF[4]gm[4])", "property name 'gm' must be upper-case"),
        ("(;FF[4]GM[4]GM[4])", "property GM appears twice"),
        ("(;FF[4]) x", "unexpected 'x' after the last game"),
        ("FF[4]", "expected '(', found 'F'"),
    ],
)
def test_grammar_errors(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=re.escape(message)) as info:
        parse_sgf(text)
    assert str(info.value).startswith("SGF line ") and "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("(;FF[4]GM[3]SZ[8];B[aa])", r"GM\[3\] is not a game we play"),
        ("(;FF[4]GM[1]SZ[9]AB[cc];W[aa])", r"the root places stones \(AB\)"),
        ("(;FF[4]GM[1]SZ[21])", "option 'size' must be <= 19"),
        ("(;FF[4]GM[1]SZ[9];B[ee])", r"its result RE\[\] does not say how it ended"),
        ("(;FF[4]GM[4]SZ[3];B[zz])", r"ply 1: B\[zz\] is not a point"),
        ("(;FF[4]GM[4]SZ[3];B[aa]W[bb])", "exactly one of B or W"),
        ("(;FF[4]GM[4]SZ[3];B[aa])", "is not over after 1 plies"),
        (
            "(;FF[4]GM[4]SZ[3];B[aa]XT[slow])",
            r"think time XT\[slow\] or time XW\[None\] is not a number",
        ),
        ("(;FF[4]GM[4]SZ[x])", "bad GM or SZ"),
    ],
)
def test_content_errors(text: str, message: str) -> None:
    (nodes,) = parse_sgf(text)
    with pytest.raises(RecordError, match=message):
        entry_from_sgf(text, nodes)


def test_move_info_is_a_comment_and_a_private_property() -> None:
    record, moves = random_match("tictactoe", 3, move_info=True)
    moves[0] = dataclasses.replace(moves[0], eval=0.625, depth=14, visits=35_210, pv=("b2", "c]\\"))
    text = entry_to_sgf(entry_from_store(record, moves))
    first = text.splitlines()[1]  # SGF escapes ] and \ in both values
    assert first.endswith(
        r'XI[{"eval":0.625,"depth":14,"visits":35210,"pv":["b2","c\]\\\\"\]}]'
        r"C[eval 0.62, depth 14, 35,210 visits, pv b2 c\]\\]"
    )
    (nodes,) = parse_sgf(text)
    assert entry_to_store(entry_from_sgf(text, nodes)) == (record, moves)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('{"eval":2}', r"ply 1: bad move info .*<= 1.0"),
        ('{"pv":"b2"}', r"ply 1: bad move info .*Expected `array`"),
        ('{"colour":1}', r"ply 1: bad move info .*unknown field"),
        ("nope", r"ply 1: bad move info XI\[nope\]"),
    ],
)
def test_bad_move_info_is_refused(value: str, message: str) -> None:
    record, moves = random_match("tictactoe", 3)
    text = entry_to_sgf(entry_from_store(record, moves)).replace("XT[", f"XI[{value}]XT[", 1)
    (nodes,) = parse_sgf(text)
    with pytest.raises(RecordError, match=message):
        entry_from_sgf(text, nodes)


def test_escapes_and_collections() -> None:
    text = r"(;FF[4]GM[4]SZ[3]PB[a \] b\\c]C[two" + "\nlines])(;FF[4]GM[2]SZ[6])"
    first, second = parse_sgf(text)
    assert first[0]["PB"] == ["a ] b\\c"] and first[0]["C"] == ["two\nlines"]
    assert second[0]["GM"] == ["2"]


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(sorted(SGF_GAMES)), st.integers(0, 10_000))
def test_round_trip_property(name: str, seed: int) -> None:
    record, moves = random_match(name, seed, options=SGF_GAMES[name], move_info=seed % 2 == 0)
    text = entry_to_sgf(entry_from_store(record, moves))
    (nodes,) = parse_sgf(text)
    assert entry_to_store(entry_from_sgf(text, nodes)) == (record, moves)
    sgf_grammar.parse_sgf_collection(text.encode())
