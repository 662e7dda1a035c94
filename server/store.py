"""Game records in an embedded SQLite database.

Why this shape: SQLite calls block, so they never run on the event loop.
`Store` is the synchronous database (also used by the CLI to read records);
`Recorder` is the server's single writer task, fed by a bounded channel, which
commits in batches from a worker thread. Moves are queued without waiting
(they must not add latency to the game); a match result is acknowledged only
after its transaction has committed, and the server sends ``match_end`` only
then — so a finished match is never lost, even if the process is killed right
after. WAL mode keeps readers (the CLI) from blocking the writer.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import msgspec
import structlog
import trio

log = structlog.get_logger("arena.server")

#: how long moves may wait to be committed together (results never wait)
GROUP_COMMIT = 0.005

SCHEMA_VERSION = 1

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id TEXT PRIMARY KEY,
    game TEXT NOT NULL,
    options TEXT NOT NULL,
    move_time REAL NOT NULL,
    lag_margin REAL NOT NULL,
    players TEXT NOT NULL,
    status TEXT NOT NULL,
    scores TEXT,
    winner INTEGER,
    termination TEXT,
    reason TEXT,
    points TEXT,
    plies INTEGER NOT NULL DEFAULT 0,
    started_at REAL NOT NULL,
    ended_at REAL,
    tournament TEXT,
    extra TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS matches_started ON matches(started_at);
CREATE INDEX IF NOT EXISTS matches_tournament ON matches(tournament);
CREATE TABLE IF NOT EXISTS moves (
    match_id TEXT NOT NULL REFERENCES matches(id),
    ply INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    move TEXT NOT NULL,
    notation TEXT NOT NULL,
    think_time REAL NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (match_id, ply)
);
"""

_INSERT_MOVE = (
    "INSERT OR REPLACE INTO moves (match_id, ply, seat, move, notation, think_time, at)"
    " VALUES (?,?,?,?,?,?,?)"
)

_json_encode = msgspec.json.encode
_json_decode = msgspec.json.decode


def to_json(value: Any) -> str:
    return _json_encode(value).decode()


def from_json(text: str | None) -> Any:
    return None if text is None else _json_decode(text)


@dataclass(frozen=True, slots=True)
class MoveRecord:
    match_id: str
    ply: int  # ply of the position the move was played in (0 = first move)
    seat: int
    move: Any  # wire-encoded move
    notation: str
    think_time: float
    at: float


@dataclass(frozen=True, slots=True)
class ResultRecord:
    """How a match ended, written over its `MatchRecord`."""

    match_id: str
    status: str  # finished | aborted
    scores: Sequence[float]
    winner: int | None
    termination: str
    reason: str
    points: Sequence[float] | None
    plies: int
    ended_at: float


@dataclass(frozen=True, slots=True)
class MatchRecord:
    id: str
    game: str
    options: dict[str, Any]
    move_time: float
    lag_margin: float
    players: list[str]
    status: str  # running | finished | aborted
    scores: list[float] | None
    winner: int | None
    termination: str | None
    reason: str | None
    points: list[float] | None
    plies: int
    started_at: float
    ended_at: float | None
    tournament: str | None
    extra: dict[str, Any]


class StoreError(Exception):
    """The database cannot be opened or is not an arena database."""


class Store:
    """Synchronous access to the records database. Thread-safe (one lock)."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(
                    f"{path}: database schema {version} is newer than this program ({SCHEMA_VERSION})"
                )
            self._db.executescript(SCHEMA)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open database {path!r}: {exc}") from None
        self._lock = threading.Lock()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One committed transaction (rolled back on error)."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            yield self._db

    # --- writes ----------------------------------------------------------------

    @staticmethod
    def _insert_match(db: sqlite3.Connection, record: MatchRecord) -> None:
        db.execute(
            "INSERT OR REPLACE INTO matches (id, game, options, move_time, lag_margin, players,"
            " status, plies, started_at, tournament, extra) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                record.id,
                record.game,
                to_json(record.options),
                record.move_time,
                record.lag_margin,
                to_json(record.players),
                record.status,
                record.plies,
                record.started_at,
                record.tournament,
                to_json(record.extra),
            ),
        )

    @staticmethod
    def move_row(move: MoveRecord) -> tuple[Any, ...]:
        """The moves-table row of `move` (built on the event loop, inserted in the thread)."""
        return (
            move.match_id,
            move.ply,
            move.seat,
            to_json(move.move),
            move.notation,
            move.think_time,
            move.at,
        )

    @staticmethod
    def _finish_match(db: sqlite3.Connection, result: ResultRecord) -> None:
        db.execute(
            "UPDATE matches SET status=?, scores=?, winner=?, termination=?, reason=?, points=?,"
            " plies=?, ended_at=? WHERE id=?",
            (
                result.status,
                to_json(list(result.scores)),
                result.winner,
                result.termination,
                result.reason,
                None if result.points is None else to_json(list(result.points)),
                result.plies,
                result.ended_at,
                result.match_id,
            ),
        )

    def apply(self, operations: Sequence[tuple[str, tuple[Any, ...]]]) -> None:
        """Apply queued operations (``("match"|"move"|"finish", args)``) in one transaction.

        New matches first, then all moves in one `executemany`, then results,
        so a batch holds the GIL as briefly as possible (it runs in a worker
        thread beside the event loop).
        """
        matches = [args for kind, args in operations if kind == "match"]
        moves = [args[0] for kind, args in operations if kind == "move"]
        finishes = [args for kind, args in operations if kind == "finish"]
        if len(matches) + len(moves) + len(finishes) != len(operations):
            raise ValueError(f"unknown store operation in {[k for k, _ in operations]}")
        with self.transaction() as db:
            for args in matches:
                self._insert_match(db, *args)
            if moves:
                db.executemany(_INSERT_MOVE, moves)
            for args in finishes:
                self._finish_match(db, *args)

    def import_match(self, record: MatchRecord, moves: Sequence[MoveRecord]) -> bool:
        """Store a whole finished match (e.g. read back by `arena import`) in one transaction.

        Returns False, writing nothing, when a match with this id is already stored.
        """
        with self.transaction() as db:
            if db.execute("SELECT 1 FROM matches WHERE id=?", (record.id,)).fetchone():
                return False
            self._insert_match(db, record)
            db.executemany(_INSERT_MOVE, [self.move_row(move) for move in moves])
            if record.status != "running" and record.scores is not None:
                self._finish_match(
                    db,
                    ResultRecord(
                        match_id=record.id,
                        status=record.status,
                        scores=record.scores,
                        winner=record.winner,
                        termination=record.termination or "",
                        reason=record.reason or "",
                        points=record.points,
                        plies=record.plies,
                        ended_at=record.ended_at
                        if record.ended_at is not None
                        else record.started_at,
                    ),
                )
        return True

    def abort_running(self, reason: str) -> int:
        """Mark matches left 'running' (by a crash or shutdown) as aborted; return how many."""
        with self.transaction() as db:
            cursor = db.execute(
                "UPDATE matches SET status='aborted', termination='aborted', reason=?,"
                " ended_at=? WHERE status='running'",
                (reason, time.time()),
            )
            return cursor.rowcount

    # --- reads -----------------------------------------------------------------

    @staticmethod
    def _match_from_row(row: Sequence[Any]) -> MatchRecord:
        return MatchRecord(
            id=row[0],
            game=row[1],
            options=from_json(row[2]),
            move_time=row[3],
            lag_margin=row[4],
            players=from_json(row[5]),
            status=row[6],
            scores=from_json(row[7]),
            winner=row[8],
            termination=row[9],
            reason=row[10],
            points=from_json(row[11]),
            plies=row[12],
            started_at=row[13],
            ended_at=row[14],
            tournament=row[15],
            extra=from_json(row[16]),
        )

    _MATCH_COLUMNS = (
        "id, game, options, move_time, lag_margin, players, status, scores, winner,"
        " termination, reason, points, plies, started_at, ended_at, tournament, extra"
    )

    def list_matches(
        self, limit: int = 50, *, status: str | None = None, tournament: str | None = None
    ) -> list[MatchRecord]:
        """Most recent matches first."""
        query = f"SELECT {self._MATCH_COLUMNS} FROM matches"
        clauses, params = [], []
        if status is not None:
            clauses.append("status=?")
            params.append(status)
        if tournament is not None:
            clauses.append("tournament=?")
            params.append(tournament)
        if clauses:
            query += " WHERE " + " AND ".join(clauses)
        query += " ORDER BY started_at DESC, id LIMIT ?"
        with self.reading() as db:
            rows = db.execute(query, (*params, limit)).fetchall()
        return [self._match_from_row(row) for row in rows]

    def get_match(self, match_id: str) -> MatchRecord | None:
        """The match with this id, or with this unique id prefix."""
        with self.reading() as db:
            rows = db.execute(
                f"SELECT {self._MATCH_COLUMNS} FROM matches WHERE id=? OR id LIKE ? LIMIT 2",
                (match_id, match_id.replace("%", "").replace("_", r"\_") + "%"),
            ).fetchall()
        exact = [row for row in rows if row[0] == match_id]
        if exact:
            return self._match_from_row(exact[0])
        return self._match_from_row(rows[0]) if len(rows) == 1 else None

    def get_moves(self, match_id: str) -> list[MoveRecord]:
        with self.reading() as db:
            rows = db.execute(
                "SELECT match_id, ply, seat, move, notation, think_time, at FROM moves"
                " WHERE match_id=? ORDER BY ply",
                (match_id,),
            ).fetchall()
        return [
            MoveRecord(row[0], row[1], row[2], from_json(row[3]), row[4], row[5], row[6])
            for row in rows
        ]


_Op = tuple[str, tuple[Any, ...]]


class Recorder:
    """The server's single database writer: a task fed by a bounded channel.

    Without a database (``store=None``) every call is a no-op, so tests and
    benchmarks can run the server purely in memory.
    """

    def __init__(self, store: Store | None, queue_size: int = 4096) -> None:
        self.store = store
        self.queue_size = queue_size
        self._overflow: list[tuple[_Op, trio.Event | None]] = []
        self._urgent = trio.Event()
        self._send, self._receive = trio.open_memory_channel[tuple[_Op, trio.Event | None]](
            queue_size
        )

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Write batches until the channel is closed (see `aclose`).

        Shielded from cancellation: on shutdown the matches record their
        aborted results through this task, which stops only when `aclose` is called.
        """
        task_status.started()
        with trio.CancelScope(shield=True):
            await self._write_until_closed()

    async def _write_until_closed(self) -> None:
        if self.store is None:
            async for _op, done in self._receive:
                if done is not None:
                    done.set()
            return
        store = self.store
        async with self._receive:
            async for first in self._receive:
                batch = [first]
                while len(batch) < 4096:
                    try:
                        batch.append(self._receive.receive_nowait())
                    except (trio.WouldBlock, trio.EndOfChannel):
                        # the channel is drained: older moves that overflowed come next
                        batch.extend(self._overflow)
                        self._overflow.clear()
                        break
                try:
                    await trio.to_thread.run_sync(store.apply, [op for op, _ in batch])
                except sqlite3.Error as exc:  # disk full, locked...: keep serving, say so loudly
                    log.error("record_write_failed", error=str(exc), operations=len(batch))
                for _op, done in batch:
                    if done is not None:
                        done.set()
                # group commit: let moves accumulate for a moment unless a result is waiting
                self._urgent = trio.Event()
                with trio.move_on_after(GROUP_COMMIT):
                    await self._urgent.wait()

    async def aclose(self) -> None:
        """Stop accepting operations; `run` drains what is queued, then returns."""
        await self._send.aclose()

    async def start_match(self, record: MatchRecord) -> None:
        await self._send.send((("match", (record,)), None))

    def move(self, record: MoveRecord) -> None:
        """Queue a move without waiting (the match handles moves synchronously).

        If the writer falls more than the channel's size behind, moves wait in
        an overflow list instead: never lost, never slowing a game down.
        """
        if self.store is None:
            return
        item: tuple[_Op, trio.Event | None] = (("move", (Store.move_row(record),)), None)
        if not self._overflow:
            try:
                self._send.send_nowait(item)
                return
            except trio.WouldBlock:
                log.warning("records_backlog", queued=self.queue_size)
        self._overflow.append(item)

    async def finish_match(self, result: ResultRecord) -> None:
        """Queue the result and wait until it is committed."""
        done = trio.Event()
        self._urgent.set()
        await self._send.send((("finish", (result,)), done))
        await done.wait()
