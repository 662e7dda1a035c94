"""`arena matches` / `arena show` on tournament records: openings shown, aborted games as aborted."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from arena_cli.main import main
from server.store import Store
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
    store = Store(db)
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
        record, extra={**record.extra, "opening": [moves[0].move, moves[1].move], "index": 3}
    )
    store = Store(db)
    assert store.import_match(record, moves)
    store.close()
    assert main(["show", record.id, "--db", db]) == 0
    out = capsys.readouterr().out
    opening = f"{moves[0].notation} {moves[1].notation}"
    assert f"  opening: {opening} (2 plies, played by the server before the first turn)" in out
    assert "  tournament: t-demo, game 3" in out
    assert out.count("[opening]") == 2
