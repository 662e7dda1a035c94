"""One result, one spelling (issue 45, item 10): `1/2-1/2` in every command.

A perfect player against itself draws tic-tac-toe, so a tournament, a match
`arena play --vs` records, `arena matches` and `arena show` all print a draw;
each is run as a user runs it and must spell it as PGN does. `arena show`'s
last line says the result, the ending and the reason once each.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from games import Outcome, Termination, result_text
from tests.arena_cli.cli import run


def test_the_one_spelling() -> None:
    assert result_text((0.5, 0.5)) == "1/2-1/2" == Outcome.draw(2, Termination.BOARD_FULL).result()
    assert result_text((1.0, 0.0)) == "1-0" and result_text((0.0, 1.0)) == "0-1"
    assert result_text((1.0, 0.0, 0.0)) == "1-0-0"


def test_every_command_spells_a_draw_as_pgn_does(tmp_path: Path) -> None:
    db = str(tmp_path / "r.sqlite")
    tournament = run(
        "tournament", "tictactoe", "-p", "minimax", "-p", "perfect=minimax",
        "--move-time", "0.1", "--db", str(tmp_path / "t.sqlite"), "--no-progress",
    )  # fmt: skip
    assert tournament.returncode == 0, tournament.stderr
    lines = [line for line in tournament.stdout.splitlines() if line.startswith("game ")]
    assert len(lines) == 2 and all(": 1/2-1/2 (board_full, 9 plies)" in line for line in lines)
    assert "½" not in tournament.stdout

    play = run(
        "play", "tictactoe", "minimax", "--vs", "minimax", "--games", "1", "--move-time", "0.1",
        "--db", db,
    )  # fmt: skip
    assert play.returncode == 0, play.stderr
    assert ", 1/2-1/2 by board_full after 9 plies" in play.stdout

    listed = run("matches", "--db", db)
    assert listed.returncode == 0 and " 1/2-1/2 " in listed.stdout and "½" not in listed.stdout
    (match,) = json.loads(run("matches", "--db", db, "--json").stdout)
    assert match["result"] == "1/2-1/2"

    shown = run("show", match["id"], "--db", db)
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[-1] == "result: 1/2-1/2, draw (board_full)"  # once each
    assert len(re.findall(r"board_full", shown.stdout)) == 1
    from dataclasses import replace

    from arena_cli.replay_view import result_line
    from store import SqliteDatabase

    store = SqliteDatabase(db)
    try:
        record = store.get_match(match["id"])
    finally:
        store.close()
    assert record is not None
    won = replace(record, scores=[1.0, 0.0], winner=0, termination="line", reason="X wins (line)")
    assert result_line(won) == "result: 1-0, X wins (line)"  # was "1-0 (line) X wins (line)"
    late = replace(won, scores=[0.0, 1.0], termination="timeout", reason="X ran out of time")
    assert result_line(late) == "result: 0-1 (timeout): X ran out of time"
