"""`arena matches` / `arena show` on tournament records: openings shown, aborted games as aborted."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import msgspec
import pytest

from arena_cli.main import main
from store import SqliteDatabase
from tests.records.fixtures import random_match


def test_an_aborted_match_is_shown_as_aborted_not_as_a_draw(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "arena.sqlite")
    record, moves = random_match("tictactoe", 7, stop_after=3)
    aborted = dataclasses.replace(
        record,
        status="aborted",
        scores=[0.5, 0.5],  # the server's placeholder for "nobody won"
        winner=None,
        termination="aborted",
        reason="the server shut down",
    )
    store = SqliteDatabase(db)
    assert store.import_match(aborted, moves)
    store.close()
    assert main(["matches", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "aborted" in out and "1/2" not in out
    assert main(["show", aborted.id, "--db", db]) == 0
    out = capsys.readouterr().out
    assert "result: aborted, no result (the server shut down)" in out


def test_show_prints_the_opening_and_marks_its_plies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "arena.sqlite")
    record, moves = random_match("tictactoe", 8, opening_plies=2, tournament="t-demo")
    record = dataclasses.replace(
        record,
        tags=msgspec.structs.replace(record.tags, opening=(moves[0].move, moves[1].move), index=3),
    )
    store = SqliteDatabase(db)
    assert store.import_match(record, moves)
    store.close()
    assert main(["show", record.id, "--db", db]) == 0
    out = capsys.readouterr().out
    opening = f"{moves[0].notation} {moves[1].notation}"
    assert f"  opening: {opening} (2 plies, played by the server before the first turn)" in out
    assert "  tournament: t-demo, game 3" in out
    assert out.count("[opening]") == 2


def test_show_prints_what_the_engine_said_beside_its_moves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = str(tmp_path / "arena.sqlite")
    record, moves = random_match("tictactoe", 8)
    moves[0] = dataclasses.replace(
        moves[0], eval=0.62, depth=14, visits=35_210, pv=(moves[0].notation, "e6", "f4")
    )
    moves[2] = dataclasses.replace(moves[2], visits=1)
    store = SqliteDatabase(db)
    assert store.import_match(record, moves)
    store.close()
    assert main(["show", record.id, "--db", db]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if " plays " in line]
    assert lines[0].endswith(
        f"plays {moves[0].notation}  [{moves[0].think_time * 1000:.0f} ms]"
        f"  (eval 0.62, depth 14, 35,210 visits, pv {moves[0].notation} e6 f4)"
    )
    assert lines[1].endswith(" ms]")  # nothing said: nothing shown
    assert lines[2].endswith("ms]  (1 visit)")
    assert main(["show", record.id, "--db", db, "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)["moves"]
    assert (shown[0]["eval"], shown[0]["visits"], shown[0]["pv"][1:]) == (
        0.62,
        35_210,
        ["e6", "f4"],
    )
    assert (shown[1]["eval"], shown[1]["pv"]) == (None, [])
