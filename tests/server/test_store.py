"""The records store on a real SQLite file."""

from __future__ import annotations

from pathlib import Path

from server.store import MatchRecord, MoveRecord, Store


def _record(match_id: str) -> MatchRecord:
    return MatchRecord(
        id=match_id,
        game="tictactoe",
        options={},
        move_time=1.0,
        lag_margin=0.2,
        players=["a", "b"],
        status="finished",
        scores=[1.0, 0.0],
        winner=0,
        termination="line",
        reason="X wins (line)",
        points=None,
        plies=1,
        started_at=1.0,
        ended_at=2.0,
        tournament=None,
        extra={},
    )


def test_import_match_stores_a_whole_match_once(tmp_path: Path) -> None:
    store = Store(str(tmp_path / "arena.sqlite"))
    record = _record("imported-1")
    moves = [MoveRecord("imported-1", 0, 0, 4, "b2", 0.5, 1.5)]
    assert store.import_match(record, moves)
    assert not store.import_match(record, moves)  # already there: nothing written
    assert store.get_match("imported-1") == record
    assert store.get_moves("imported-1") == moves
    store.close()
