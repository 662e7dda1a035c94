"""`python -m benchmarks.go_patterns` learns 3×3 pattern counts from Go records: from a
JSON Lines export (a scripted game whose counts are known), and from GNU Go's own games
through ``arena tournament`` (slow; needs gnugo)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from benchmarks.go_patterns import main
from games.go import Go
from player.mcts.fast.go import patterns
from records.jsonl import write_jsonl
from records.schema import (
    SCHEMA_VERSION,
    GameEntry,
    MoveEntry,
    OpeningEntry,
    ResultEntry,
    TimeControlEntry,
)
from tests.engines.programs import GNUGO, _missing


def record(notation: list[str], opening: int) -> GameEntry:
    """An aborted 9×9 game of these moves, the first `opening` of them its opening."""
    game = Go(size=9)
    moves = []
    for ply, text in enumerate(notation):
        move = game.parse_move(text)
        moves.append(MoveEntry(ply, ply % 2, move, game.format_move(move), 0.1))
    return GameEntry(
        schema=SCHEMA_VERSION,
        id=f"scripted-{opening}",
        game="go",
        options={},
        players=["a", "b"],
        time_control=TimeControlEntry(1.0, 0.2),
        opening=OpeningEntry(
            [m.move for m in moves[:opening]], [m.notation for m in moves[:opening]]
        ),
        moves=moves,
        status="aborted",
        result=ResultEntry(None, None, None),
        started_at=0.0,
    )


def test_counts_of_a_scripted_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "games.jsonl"
    with source.open("w") as out:
        # E4 answers E5 and D4 answers E4 beside it; F5 is away from D4; then two passes.
        # Seen: 8 points beside E5, 7 beside E4, 6 beside D4, 6 beside F5; none after a pass
        write_jsonl([record(["E5", "E4", "D4", "F5", "pass", "pass"], 0)], out)
        # the same after a 2-move opening: only D4 (7 seen beside E4) and F5 (6) count
        write_jsonl([record(["E5", "E4", "D4", "F5"], 2)], out)
    target = tmp_path / "patterns.npz"
    assert main(["--records", str(source), "--out", str(target)]) == 0
    assert "2 games, 5 moves;" in capsys.readouterr().out
    with np.load(target) as data:
        assert int(data["seen"].sum()) == 27 + 13 and int(data["played"].sum()) == 2 + 1
        assert int(data["games"]) == 2
    table = patterns.weights(target)
    # E4's pattern for White after E5 (Black's stone above it) was played twice of twice
    # seen (once per game): 2 / (2 + PRIOR_SEEN); every rotation of it weighs the same
    above = patterns.THEIRS << 2  # neighbour 1: (-1, 0)
    below = patterns.THEIRS << 12  # neighbour 6: (1, 0)
    assert table[above] == table[below] > 0


def test_a_missing_file_is_no_pattern(tmp_path: Path) -> None:
    assert not patterns.weights(tmp_path / "none.npz").any()


@pytest.mark.slow
def test_learns_from_gnu_go_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not os.access(GNUGO, os.X_OK):
        _missing(f"no {GNUGO}")
    target = tmp_path / "patterns.npz"
    db = tmp_path / "games.sqlite"
    assert main(["--games", "2", "--out", str(target), "--db", str(db)]) == 0
    assert db.exists()
    assert "2 games" in capsys.readouterr().out
    assert patterns.weights(target).any()
