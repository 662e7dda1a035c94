"""The ladder soak in a tiny configuration: a few bots on two nodes for a few seconds."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import msgspec
import pytest

from benchmarks.ladder import LADDER, check_results, main
from store import SqliteDatabase
from store.matches import MatchRecord
from tests.postgres import postgres_server as postgres_server
from tests.postgres import postgres_url as postgres_url
from tests.records.fixtures import random_match


def test_the_soak_runs_and_its_checks_pass(
    postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        ["--bots", "6", "--minutes", "0.1", "--baseline-minutes", "0", "--db", postgres_url]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    row = next(line for line in out.splitlines() if line.split()[:1] == ["2"])
    games = int(row.split()[1])
    assert games > 0
    assert "lost 0, duplicated 0, ratings equal, pairs repeated 0, colours unbalanced 0" in row


def _ladder_game(seed: int, **changes: Any) -> MatchRecord:
    record, _ = random_match("tictactoe", seed)
    tags = msgspec.structs.replace(record.tags, ladder=LADDER)
    return dataclasses.replace(record, tags=tags, **changes)


def test_the_check_holds_each_record_to_the_end_its_bots_were_told(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.sqlite")
    finished = _ladder_game(1)
    # the pairing node's partner died before its bot took the seat: aborted, and told so
    aborted = _ladder_game(
        2, status="aborted", scores=[0.5, 0.5], winner=None, termination="aborted"
    )
    store = SqliteDatabase(db)
    try:
        assert store.import_match(finished, []) and store.import_match(aborted, [])
    finally:
        store.close()
    told = [
        [finished.id, "a", True, finished.scores, 1, finished.termination],
        [aborted.id, "b", True, [0.5, 0.5], 1, "aborted"],
    ]
    assert check_results({"ends": told}, db)["lost"] == []
    # told a result the record does not hold: lost, whichever way it differs
    wrong = [
        [finished.id, "a", True, [0.5, 0.5], 1, "aborted"],
        [aborted.id, "b", True, [1.0, 0.0], 1, "line"],
        ["m-never-recorded", "c", True, [1.0, 0.0], 1, "line"],
    ]
    checks = check_results({"ends": wrong}, db)
    assert checks["lost"] == sorted([finished.id, aborted.id, "m-never-recorded"])
    # two bots of one game told different ends
    assert check_results({"ends": told + wrong[:1]}, db)["duplicated"] == [finished.id]
