"""Failures named everywhere a result is shown: a real tournament of misbehaving engines.

`arena tournament` (real server, real player processes, the C test engine
tests/engines/misbehave.c) against a gauntlet of engines that crash, write
garbage, play an illegal move or hang, on SQLite and on PostgreSQL. Each
game's line, the JSON and `arena matches` name the failure and its reason,
and the standings count each player's failures by kind. An old record (a
crash that an earlier arena stored as a resignation) reads as it was stored.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena_cli.main import main
from tests.postgres import PostgresServer

#: each misbehaving engine: its mode, then the termination, failure kind and reason of
#: every game it plays (it misbehaves at its second move of each game: a fresh process
#: each game after a fault)
FAULTY = {
    "crasher": (
        "die-at 2",
        "crash",
        "crash",
        "crasher crashed: engine crasher: engine exited (code 5)",
    ),
    "garbler": (
        "garbage-at 2",
        "protocol_error",
        "protocol",
        "garbler broke its protocol: engine garbler: engine said 'hello there, this is not"
        " a move' where bestmove or info was expected",
    ),
    "cheater": (
        "illegal-at 2",
        "illegal_move",
        "illegal",
        "cheater played an illegal move: engine cheater: engine played an illegal move:",
    ),
    "hanger": ("hang-at 2", "timeout", "time", "hanger did not move within 1s (+0.2s margin)"),
}
NO_FAILURES = {"time": 0, "illegal": 0, "crash": 0, "stall": 0, "protocol": 0}


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "arena.sqlite")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.new_database()


def test_each_failure_is_named_with_its_reason_and_counted(
    db: str, tmp_path: Path, engines: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    program = engines["misbehave"]
    specs = [f"engine:cmd={program},args={mode},name={name}" for name, (mode, *_) in FAULTY.items()]
    out = tmp_path / "results.json"
    code = main(
        [
            "tournament", "tictactoe", "--gauntlet", "--player", "random",
            *[arg for spec in specs for arg in ("--player", spec)],
            "--games-per-pair", "2", "--move-time", "1", "--concurrency", "2",
            "--db", db, "--out", str(out), "--no-progress",
        ]
    )  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    document: dict[str, Any] = json.loads(out.read_text())
    games = document["games"]
    assert len(games) == 2 * len(FAULTY)
    for game in games:
        [name] = [seat for seat in game["seats"] if seat != "random"]
        _, termination, _, reason = FAULTY[name]
        assert game["termination"] == termination, game
        assert game["reason"].startswith(reason), game
        assert game["scores"][game["seats"].index(name)] == 0.0
    # the game lines: the termination, then the reason in braces (as cutechess writes it)
    lines = [line for line in printed.splitlines() if line.startswith("game ")]
    assert len(lines) == len(games)
    for name, (_, termination, _, reason) in FAULTY.items():
        mine = [line for line in lines if f"): {name} vs " in line or f" vs {name}: " in line]
        assert len(mine) == 2, lines
        for line in mine:
            assert re.search(rf": (1-0|0-1) \({termination}, \d+ plies\) \{{", line), line
            assert "{" + reason in line and line.endswith("}"), line
    # the standings count each player's failures by kind, in JSON and in the table
    failures = {row["name"]: row["failures"] for row in document["standings"]}
    assert failures["random"] == NO_FAILURES
    for name, (_, _, kind, _) in FAULTY.items():
        assert failures[name] == {**NO_FAILURES, kind: 2}, failures
    header = next(line for line in printed.splitlines() if "player" in line and "Elo" in line)
    for column in ("time", "illegal", "crash", "protocol"):
        assert column in header
    assert "stall" not in header  # a column only for a kind some player has
    # `arena matches`: the same termination and reason for each game
    assert main(["matches", "--db", db, "--limit", "20"]) == 0
    listed = capsys.readouterr().out
    for _, termination, _, reason in FAULTY.values():
        assert listed.count(f" {termination} {{{reason}") == 2, listed
    assert main(["matches", "--db", db, "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {(r["termination"], r["reason"]) for r in records} == {
        (g["termination"], g["reason"]) for g in games
    }


#: how an earlier arena stored an engine's crash: a resignation, the fault in its reason
_OLD_REASON = "e resigned: engine pg: engine exited (code 3)"


def test_an_old_record_of_a_crash_reads_as_the_resignation_it_was_stored_as(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "arena.sqlite"
    code = main(
        [
            "tournament", "tictactoe", "--player", "random", "--player", "greedy",
            "--games-per-pair", "2", "--move-time", "2", "--db", str(db), "--no-progress",
        ]
    )  # fmt: skip
    assert code == 0
    capsys.readouterr()
    # rewrite the first game as the earlier arena wrote an engine's crash: greedy resigned
    with sqlite3.connect(db) as conn:
        [tournament] = conn.execute("SELECT id FROM tournaments").fetchone()
        match_id, seats = conn.execute(
            "SELECT match_id, seats FROM tournament_games WHERE idx = 0"
        ).fetchone()
        loser = json.loads(seats).index("greedy")
        scores = json.dumps([0.0 if seat == loser else 1.0 for seat in range(2)])
        conn.execute(
            "UPDATE matches SET termination = 'resignation', reason = ?, scores = ?,"
            " winner = ? WHERE id = ?",
            (_OLD_REASON, scores, 1 - loser, match_id),
        )
        conn.execute(
            "UPDATE tournament_games SET termination = 'resignation', scores = ? WHERE idx = 0",
            (scores,),
        )
    assert main(["tournament", "--resume", str(tournament), "--db", str(db), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    [first] = [g for g in document["games"] if g["index"] == 0]
    assert (first["termination"], first["reason"]) == ("resignation", _OLD_REASON)
    assert all(row["failures"] == NO_FAILURES for row in document["standings"])
    assert main(["matches", "--db", str(db)]) == 0
    assert f"resignation {{{_OLD_REASON}}}" in capsys.readouterr().out
