"""Storage and logging faults injected into a real `arena serve` on a real SQLite file.

Each test plays many short matches before, during and after the fault and
checks what the issue "records never lie" asks: the server never exits; every
match whose `match_end` said `recorded` is in the database; every match that
ended during a transient fault is there within seconds after it clears; later
matches are stored normally.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import trio

from tests.server.serverproc import (
    Outcomes,
    integrity,
    play_matches,
    server_process,
    start_server,
    stored,
)

RECOVERY = 15.0  # seconds allowed for results kept during a fault to reach the database


async def _all_finished_soon(db: Path, matches: set[str]) -> dict[str, str]:
    deadline = trio.current_time() + RECOVERY
    while True:
        rows = stored(db)
        if all(rows.get(m) == "finished" for m in matches) or trio.current_time() > deadline:
            return rows
        await trio.sleep(0.2)


def _check(db: Path, outcomes: Outcomes, rows: dict[str, str]) -> None:
    assert not outcomes.errors
    claimed = [m for m, (recorded, _) in outcomes.ended.items() if recorded]
    assert all(rows.get(m) == "finished" for m in claimed), "a match said recorded is missing"
    missing = [m for m in outcomes.ended if rows.get(m) != "finished"]
    assert not missing, f"{len(missing)} ended matches never reached the database"
    assert integrity(db) == "ok"


def _children(pid: int) -> list[int]:
    tasks = Path(f"/proc/{pid}/task")
    return [int(c) for task in tasks.iterdir() for c in (task / "children").read_text().split()]


def _hold_lock(db: Path, seconds: float) -> subprocess.Popen[bytes]:
    """Another process holding SQLite's write lock on `db` for `seconds`."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sqlite3, sys, time\n"
            "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
            "c.execute('BEGIN EXCLUSIVE')\n"
            "print('locked', flush=True)\n"
            "time.sleep(float(sys.argv[2]))\n"
            "c.execute('COMMIT')\n",
            str(db),
            str(seconds),
        ],
        stdout=subprocess.PIPE,
    )
    assert holder.stdout is not None
    assert holder.stdout.readline().strip() == b"locked"
    return holder


async def test_a_full_disk_loses_no_result_and_the_store_recovers_by_itself(
    tmp_path: Path,
) -> None:
    db, log = tmp_path / "arena.sqlite", tmp_path / "serve.log"
    with server_process(db, log) as server:
        outcomes = Outcomes()
        await play_matches(server.port, 8, 0, outcomes)
        before = set(outcomes.ended)
        # the server and its records writer process (store/writer.py)
        pids = [server.process.pid, *_children(server.process.pid)]
        assert len(pids) == 2
        _, hard = resource.prlimit(pids[0], resource.RLIMIT_FSIZE)
        # the disk is "full": no write past the first byte of any file (database, log, journal)
        for pid in pids:
            resource.prlimit(pid, resource.RLIMIT_FSIZE, (1, hard))
        try:
            await play_matches(server.port, 8, 1000, outcomes)
        finally:
            for pid in pids:
                resource.prlimit(pid, resource.RLIMIT_FSIZE, (hard, hard))
        during = set(outcomes.ended) - before
        await play_matches(server.port, 8, 2000, outcomes)
        rows = await _all_finished_soon(db, set(outcomes.ended))
        assert server.alive()
    assert len(outcomes.ended) == 24
    assert not any(outcomes.ended[m][0] for m in during), "a result was claimed during the fault"
    _check(db, outcomes, rows)
    text = log.read_text(errors="replace")
    assert "store_recovered" in text


async def test_a_killed_records_writer_process_is_replaced_and_loses_nothing(
    tmp_path: Path,
) -> None:
    db, log = tmp_path / "arena.sqlite", tmp_path / "serve.log"
    with server_process(db, log) as server:
        outcomes = Outcomes()
        await play_matches(server.port, 5, 0, outcomes)
        (writer,) = _children(server.process.pid)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_matches, server.port, 8, 1000, outcomes)
            await trio.sleep(0.3)
            os.kill(writer, signal.SIGKILL)  # mid-play: maybe mid-write
        await play_matches(server.port, 5, 2000, outcomes)
        rows = await _all_finished_soon(db, set(outcomes.ended))
        assert server.alive()
        (replacement,) = _children(server.process.pid)
        assert replacement != writer
    assert len(outcomes.ended) == 18
    _check(db, outcomes, rows)


async def test_a_lock_held_past_the_busy_timeout_does_not_stop_play(tmp_path: Path) -> None:
    db, log = tmp_path / "arena.sqlite", tmp_path / "serve.log"
    with server_process(db, log) as server:
        outcomes = Outcomes()
        await play_matches(server.port, 5, 0, outcomes)
        before = set(outcomes.ended)
        holder = _hold_lock(db, 10.0)
        locked_at = time.time()
        await play_matches(server.port, 8, 1000, outcomes)
        during = set(outcomes.ended) - before
        # live matches kept moving and ending while the lock was held
        assert all(outcomes.ended[m][1] < locked_at + 10.0 for m in during)
        assert holder.wait(timeout=30) == 0
        await play_matches(server.port, 5, 2000, outcomes)
        rows = await _all_finished_soon(db, set(outcomes.ended))
        assert server.alive()
        status = subprocess.run(
            [sys.executable, "-m", "arena_cli.main", "status", "--port", str(server.port)],
            capture_output=True,
            text=True,
        )
        assert status.returncode == 0 and "store: ok" in status.stdout
    assert not any(outcomes.ended[m][0] for m in during)
    _check(db, outcomes, rows)


async def test_status_reports_a_degraded_store(tmp_path: Path) -> None:
    db, log = tmp_path / "arena.sqlite", tmp_path / "serve.log"
    with server_process(db, log) as server:
        holder = _hold_lock(db, 6.0)
        outcomes = Outcomes()
        await play_matches(server.port, 2, 0, outcomes)
        status = await trio.to_thread.run_sync(
            lambda: subprocess.run(
                [sys.executable, "-m", "arena_cli.main", "status", "--port", str(server.port)],
                capture_output=True,
                text=True,
            )
        )
        assert status.returncode == 1
        assert "DEGRADED" in status.stdout and "locked" in status.stdout
        holder.wait(timeout=30)
    warnings = [line for line in log.read_text().splitlines() if "store_degraded" in line]
    assert len(warnings) == 1  # one warning line, not one per retry


async def test_unwritten_results_are_journaled_and_imported_at_the_next_start(
    tmp_path: Path,
) -> None:
    for how in (signal.SIGTERM, signal.SIGKILL):
        db, log = tmp_path / f"{how.name}.sqlite", tmp_path / f"{how.name}.log"
        with server_process(db, log) as server:
            outcomes = Outcomes()
            await play_matches(server.port, 2, 0, outcomes)
            holder = _hold_lock(db, 60.0)
            await play_matches(server.port, 4, 1000, outcomes)
            unrecorded = {m for m, (recorded, _) in outcomes.ended.items() if not recorded}
            assert len(unrecorded) == 4
            await trio.sleep(3.0)  # a retry or two: ended matches are journaled by now
            server.signal(how)
            holder.kill()
            holder.wait()
        journal = Path(f"{db}.unwritten.jsonl")
        assert journal.exists() and journal.stat().st_size > 0
        assert not unrecorded & {m for m, s in stored(db).items() if s == "finished"}
        with server_process(db, log) as server:
            rows = stored(db)
            assert server.alive()
        _check(db, outcomes, rows)
        assert journal.stat().st_size == 0


async def test_a_log_sink_that_fails_does_not_stop_the_server(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    server = start_server(db, stdout=subprocess.PIPE)
    try:
        assert server.process.stdout is not None
        server.process.stdout.close()  # whoever read the log went away: EPIPE from now on
        outcomes = Outcomes()
        await play_matches(server.port, 6, 0, outcomes)
        assert server.alive()
        assert all(recorded for recorded, _ in outcomes.ended.values())
        _check(db, outcomes, stored(db))
    finally:
        server.process.send_signal(signal.SIGTERM)
        code = server.process.wait(timeout=30)
    assert server.process.stderr is not None
    stderr = server.process.stderr.read().decode()
    assert code == 143, stderr  # SIGTERM: a clean stop (docs/CLI.md, exit codes)
    assert stderr.count("cannot write the log") == 1 and "Traceback" not in stderr
