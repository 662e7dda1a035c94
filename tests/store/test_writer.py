"""The records writer process (store/writer.py) on a real SQLite file."""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import pytest

from protocol.messages import Clock
from store import MatchRecord, MatchWrite, MoveRecord, ResultRecord, SqliteDatabase, move_row
from store.matches import MatchTags
from store.writer import ProcessWriter, _decode_batch, _decode_report, _encode, _Report

T = TypeVar("T")


def _write(match_id: str, plies: int = 9) -> MatchWrite:
    record = MatchRecord(
        id=match_id, game="tictactoe", options={"width": 3}, move_time=1.0, lag_margin=0.2,
        players=["a", "b"], status="running", scores=None, winner=None, termination=None,
        reason=None, points=None, plies=0, started_at=1.5, ended_at=None, tournament=None,
        tags=MatchTags(owner="x"),
    )  # fmt: skip
    moves = [
        MoveRecord(match_id, p, p % 2, [p, "m"], f"n{p}", p / 7, 2.0 + p, **_info(p))
        for p in range(plies)
    ]
    result = ResultRecord(
        match_id, "finished", (0.5, 0.5), None, "draw", "a draw", None, plies, 9.5
    )
    return MatchWrite(match_id, record=record, moves=[move_row(m) for m in moves], result=result)


def _info(ply: int) -> dict[str, Any]:
    """Move info on every third ply (what an engine said), none on the others."""
    if ply % 3:
        return {}
    return {"eval": ply / 100, "depth": ply, "visits": 2**40 + ply, "pv": (f"n{ply}", "x")}


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[ProcessWriter]:
    writer = ProcessWriter(SqliteDatabase(str(tmp_path / "arena.sqlite")))
    yield writer
    writer.close()


def test_a_batch_written_by_the_child_reads_back_exactly(writer: ProcessWriter) -> None:
    batch = [_write("m1"), _write("m2", plies=40)]
    report = writer.write(batch)
    assert report.error is None and report.committed == {"m1", "m2"}
    store = writer.store
    match = store.get_match("m2")
    assert match is not None and match.status == "finished" and match.tags == MatchTags(owner="x")
    assert [move_row(m) for m in store.get_moves("m2")] == batch[1].moves
    assert store.get_moves("m2")[3].pv == ("n3", "x")  # the move info crossed the pipe
    assert writer.pid is not None and writer.pid != os.getpid()


def test_a_killed_child_is_replaced_by_the_next_write(writer: ProcessWriter) -> None:
    writer.start()
    first = writer.pid
    assert first is not None
    os.kill(first, signal.SIGKILL)
    time.sleep(0.2)
    report = writer.write([_write("after")])
    assert report.error is None and report.committed == {"after"}
    assert writer.pid not in (None, first)


def test_a_child_that_dies_during_a_write_fails_that_write_only(
    writer: ProcessWriter,
) -> None:
    # a child that reads the request and dies without answering
    good = writer.command
    writer.command = [sys.executable, "-c", "import sys; sys.stdin.buffer.read(4); sys.exit(3)"]
    report = writer.write([_write("lost")])
    assert report.committed == frozenset()
    assert report.error is not None and "records writer process exited with 3" in report.error
    writer.command = good
    retried = writer.write([_write("lost")])  # what the recorder does next
    assert retried.error is None and retried.committed == {"lost"}


def test_stop_ends_the_child_and_writes_start_it_again(writer: ProcessWriter) -> None:
    writer.start()
    pid = writer.pid
    writer.stop()
    assert writer.pid is None
    assert pid is not None and not Path(f"/proc/{pid}").exists()
    assert writer.write([_write("again")]).committed == {"again"}


def test_the_child_refuses_an_unusable_database_with_one_line(tmp_path: Path) -> None:
    store = SqliteDatabase(str(tmp_path / "arena.sqlite"))
    writer = ProcessWriter(store, command=[sys.executable, "-m", "store.writer", "a", "b"])
    report = writer.write([_write("m")])  # usage error: exits 2 before answering
    assert report.error is not None and "exited with 2" in report.error
    writer.close()


def _defaults(kind: Any) -> dict[str, Any]:
    """Each field of a dataclass or msgspec struct type -> its default (a marker if none)."""
    if dataclasses.is_dataclass(kind):
        return {
            f.name: f.default_factory() if f.default_factory is not dataclasses.MISSING
            else f.default
            for f in dataclasses.fields(kind)
        }  # fmt: skip
    return {
        f.name: f.default_factory() if f.default_factory is not msgspec.NODEFAULT else f.default
        for f in msgspec.structs.fields(kind)
    }


def _every_field_set(kind: type[T], **values: Any) -> T:
    """An instance of the record type `kind` with `values`, which must give every field of
    it a value, none empty and none its default: a new field must be given one here."""
    defaults = _defaults(kind)
    assert set(values) == set(defaults), f"{kind.__name__}: {set(defaults) ^ set(values)}"
    for name, value in values.items():
        assert value and value != defaults[name], f"{kind.__name__}.{name} = {value!r}"
    return kind(**values)


def test_every_record_crosses_the_pipe_unchanged() -> None:
    # what the server sends the child (a batch of MatchWrite: a MatchRecord, move rows of
    # MoveRecords, a ResultRecord) and what the child answers (a report), through the
    # pipe's own encoder and decoders; every field is set, the optional ones too.
    # Sequences are lists: the decoder gives a `Sequence` field back as a list.
    record = _every_field_set(
        MatchRecord, id="m1", game="connect4", options={"width": 9, "height": 7, "k": 4},
        move_time=2.5, lag_margin=0.3, players=["ann", "bob"], status="finished",
        scores=[0.0, 1.0], winner=1, termination="line", reason="bob wins", points=[-3.0, 3.0],
        plies=17, started_at=1_700_000_000.25, ended_at=1_700_000_060.5, tournament="t-1",
        tags=MatchTags(
            index=3, seats=("ann", "bob"), pool="p", owner="0f" * 16, opening=(3, 4),
            clock=Clock(300.0, 3.0), room="r1",
        ),
    )  # fmt: skip
    move = _every_field_set(
        MoveRecord, match_id="m1", ply=16, seat=1, move=6, notation="7", think_time=0.75,
        at=1_700_000_059.5, eval=0.875, depth=12, visits=2**53, pv=("7", "3", "4"),
    )  # fmt: skip
    result = _every_field_set(
        ResultRecord, match_id="m1", status="finished", scores=[0.0, 1.0], winner=1,
        termination="line", reason="bob wins", points=[-3.0, 3.0], plies=17,
        ended_at=1_700_000_060.5,
    )  # fmt: skip
    write = _every_field_set(
        MatchWrite, match_id="m1", record=record, moves=[move_row(move)], result=result
    )
    assert move_row(move)[7:] == (0.875, 12, 2**53, ["7", "3", "4"])  # the move info rides
    assert _decode_batch(_encode([write])) == [write]
    report = _every_field_set(
        _Report, committed=["m1", "m2"], error="disk I/O error", superseded=["m3"]
    )
    assert _decode_report(_encode(report)) == report
