"""JSON Lines records: round trip through the text, and one-line errors for bad input."""

from __future__ import annotations

import io
import json
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from records.jsonl import dump_line, parse_line, read_jsonl, write_jsonl
from records.replay import check_entry
from records.schema import GameEntry, RecordError, entry_from_store, entry_to_store
from tests.records.fixtures import GAME_SETUPS, random_match


@pytest.mark.parametrize("name", sorted(GAME_SETUPS))
@pytest.mark.parametrize(
    ("opening", "stop", "info"), [(0, None, False), (3, None, True), (2, 5, False), (0, 5, True)]
)
def test_round_trip(name: str, opening: int, stop: int | None, info: bool) -> None:
    record, moves = random_match(name, 7, opening_plies=opening, stop_after=stop, move_info=info)
    assert any(m.has_info for m in moves) == info
    entry = entry_from_store(record, moves)
    line = dump_line(entry)
    assert line.endswith("\n") and "\n" not in line[:-1]
    again = parse_line(line)
    assert again == entry
    assert entry_to_store(again) == (record, moves)
    assert len(again.opening.moves) == opening
    assert again.opening.notation == [m.notation for m in moves[:opening]]


def test_schema_fields_and_order() -> None:
    record, moves = random_match("tictactoe", 1, opening_plies=1)
    data = json.loads(dump_line(entry_from_store(record, moves)))
    assert list(data) == [
        "schema", "id", "game", "options", "players", "time_control", "opening", "moves",
        "status", "result", "started_at", "ended_at", "tournament", "extra",
    ]  # fmt: skip
    assert data["schema"] == 1
    assert data["time_control"] == {"move_time": 0.5, "lag_margin": 0.2}
    assert list(data["moves"][0]) == ["ply", "seat", "move", "notation", "think_time", "at"]
    assert set(data["result"]) == {"scores", "winner", "termination", "reason", "points"}
    assert data["opening"] == {"moves": [moves[0].move], "notation": [moves[0].notation]}


def test_move_info_keys_follow_the_move_and_only_when_the_engine_said_something() -> None:
    record, moves = random_match("tictactoe", 1, move_info=True)
    data = json.loads(dump_line(entry_from_store(record, moves)))
    first, second = data["moves"][0], data["moves"][1]  # seat 0 reported (all of it), seat 1 not
    assert list(first) == [
        "ply", "seat", "move", "notation", "think_time", "at", "eval", "depth", "visits", "pv",
    ]  # fmt: skip
    assert first["pv"] == [moves[0].notation] and first["depth"] == moves[0].depth
    assert list(second) == ["ply", "seat", "move", "notation", "think_time", "at"]


def test_read_and_write_many() -> None:
    entries = [entry_from_store(*random_match(name, 3)) for name in sorted(GAME_SETUPS)]
    out = io.StringIO()
    assert write_jsonl(entries, out) == len(entries)
    text = out.getvalue()
    assert list(read_jsonl(("\n" + text).splitlines(), "x.jsonl")) == entries


def _mutated(change: Any) -> str:
    record, moves = random_match("tictactoe", 5)
    data = json.loads(dump_line(entry_from_store(record, moves)))
    change(data)
    return json.dumps(data)


def _set(path: str, value: Any) -> Any:
    def change(data: Any) -> None:
        *parents, last = path.split(".")
        for key in parents:
            data = data[int(key)] if key.isdigit() else data[key]
        data[int(last) if last.isdigit() else last] = value

    return change


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_set("moves.0.seat", "x"), r"Expected `int`, got `str` - at `\$.moves\[0\].seat`"),
        (_set("colour", 1), "unknown field `colour`"),
        (_set("schema", 2), "schema version 2 is not 1"),
        (_set("game", "chess"), "unknown game 'chess'"),
        (_set("options", {"k": 9}), "game 'tictactoe'"),
        (_set("players", ["solo"]), "needs 2 players"),
        (_set("moves.2.move", 99), r"ply 3 .*out of range"),
        (_set("moves.1.seat", 0), r"ply 2 .*played by seat 0, but seat 1 is to move"),
        (_set("moves.1.ply", 5), r"ply 2 .*numbered ply 6"),
        (_set("moves.0.notation", "zz"), r"ply 1 \('zz'\): the move \d+ is written '\w\d'"),
        (_set("result.scores", [0.5, 0.5]), "is not the final position's"),
        (_set("status", "won"), "status must be one of"),
        (_set("time_control.move_time", -1), "move_time must be a number >= 0"),
        (
            lambda d: d.update(opening={"moves": [d["moves"][1]["move"]], "notation": ["?"]}),
            "is not how the game starts",
        ),
        (_set("opening", {"moves": [1, 2], "notation": ["a1"]}), "2 moves but 1 in notation"),
        (_set("result", None), "a finished game needs a result"),
        (_set("moves.0.eval", 1.5), r"Expected `float` <= 1.0 - at `\$.moves\[0\].eval`"),
        (_set("moves.1.depth", -1), r"Expected `int` >= 0 - at `\$.moves\[1\].depth`"),
        (_set("moves.0.visits", 2**53 + 1), r"at `\$.moves\[0\].visits`"),
        (_set("moves.0.pv", ["a1"] * 65), r"length <= 64 - at `\$.moves\[0\].pv`"),
        (_set("moves.0.pv", ["x" * 33]), r"length <= 32 - at `\$.moves\[0\].pv\[0\]`"),
        (_set("moves.0.pv", "b2 a1"), r"Expected `array`, got `str` - at `\$.moves\[0\].pv`"),
    ],
)
def test_bad_records(change: Any, message: str) -> None:
    line = _mutated(change)
    with pytest.raises(RecordError, match=message) as info:
        list(read_jsonl(["", line], "games.jsonl"))
    text = str(info.value)
    assert text.startswith("games.jsonl:2: ") and "\n" not in text


def test_duplicate_move_is_illegal() -> None:
    def repeat(data: Any) -> None:
        data["moves"][1]["move"] = data["moves"][0]["move"]
        data["moves"][1]["notation"] = data["moves"][0]["notation"]

    with pytest.raises(RecordError, match=r"ply 2 .* is illegal"):
        parse_line(_mutated(repeat))


def test_not_json() -> None:
    with pytest.raises(RecordError, match=r"^f:1: not JSON"):
        list(read_jsonl(["{nope"], "f"))


def test_unfinished_game_with_board_ending() -> None:
    record, moves = random_match("connect4", 2, stop_after=4)
    entry = entry_from_store(record, moves)
    assert entry.result is not None
    bad = msgspec.structs.replace(
        entry, result=msgspec.structs.replace(entry.result, termination="line")
    )
    with pytest.raises(RecordError, match="termination 'line' but the game is not over"):
        check_entry(bad)


def test_running_and_aborted() -> None:
    record, moves = random_match("connect4", 2, stop_after=4)
    entry = entry_from_store(record, moves)
    assert entry.result is not None
    running = msgspec.structs.replace(entry, status="running", result=None)
    check_entry(running)
    aborted = msgspec.structs.replace(
        entry,
        status="aborted",
        result=msgspec.structs.replace(entry.result, scores=None, winner=None),
    )
    check_entry(aborted)
    assert parse_line(dump_line(aborted)) == aborted


@settings(max_examples=25, deadline=None)
@given(
    st.sampled_from(sorted(GAME_SETUPS)), st.integers(0, 10_000), st.integers(0, 4), st.booleans()
)
def test_round_trip_property(name: str, seed: int, opening: int, info: bool) -> None:
    record, moves = random_match(name, seed, opening_plies=opening, move_info=info)
    opening = min(opening, len(moves))
    entry = entry_from_store(record, moves)
    assert isinstance(parse_line(dump_line(entry)), GameEntry)
    assert entry_to_store(parse_line(dump_line(entry))) == (record, moves)
