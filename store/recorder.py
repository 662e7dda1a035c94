"""The server's single database writer: records kept in memory until they are stored.

Why this shape: the database may be slow or refuse writes for a while (a full
disk, a lock held by another process, an I/O error), and play must go on
meanwhile. So every match's records live here, in memory, from the match's
start until they are committed: the match row, every move, the result. A
writer task takes whatever is unwritten, writes it from a worker thread
(group commit: one transaction for everything waiting, a savepoint per match)
and forgets only what committed. A result is written at once (whatever else
is waiting goes with it); moves of a running match wait up to `MOVE_FLUSH`
seconds, so most short matches are written in one piece with their result. A failed write loses nothing: the records stay queued, are retried
with exponential backoff, and ended matches are also appended to the fallback
`Journal` when the disk allows. The store degrades and recovers by itself;
the log says when.

A finished match waits for its result to commit (at most `record_wait`
seconds, and not at all while the store is degraded) and tells its players
whether it did: ``match_end.recorded``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

import msgspec
import structlog
import trio

from store.errors import StoreError, StoreUnavailable
from store.interface import MatchWriter
from store.journal import Journal
from store.matches import (
    BatchReport,
    MatchRecord,
    MatchWrite,
    MoveInfoFields,
    MoveRow,
    ResultRecord,
    row_of_move,
    with_info,
)
from store.rows import result_of

log = structlog.get_logger("arena.server")

#: how long moves of running matches may wait to be written (a result cuts it short);
#: nothing acknowledged waits: a match's result is written at once
MOVE_FLUSH = 1.0
#: retry delays after a failed write: first, growth factor, cap (seconds)
RETRY_FIRST, RETRY_FACTOR, RETRY_MAX = 0.05, 2.0, 2.0
#: at shutdown, how long to keep trying before journaling what is left
SHUTDOWN_WRITE_TIME = 5.0


@dataclass
class _MatchLog:
    """One match's records, from its start until all of them are committed."""

    record: MatchRecord
    moves: list[MoveRow] = field(default_factory=list)
    inserted: bool = False
    committed: int = 0  # moves committed so far
    result: ResultRecord | None = None
    result_written: bool = False
    journaled: bool = False
    written: trio.Event = field(default_factory=trio.Event)

    @property
    def done(self) -> bool:
        return self.result_written and self.committed == len(self.moves)


@dataclass(frozen=True, slots=True)
class TournamentGame:
    """A tournament game that has already ended, as the recorder knows it."""

    record: MatchRecord
    result: ResultRecord
    recorded: bool


@dataclass(frozen=True, slots=True)
class StoreStatus:
    state: str  # ok | degraded | off
    error: str | None
    degraded_for: float | None
    pending_results: int
    pending_moves: int
    journaled: int
    accepting: bool


#: how many superseded match ids a recorder remembers (`Recorder.superseded`)
SUPERSEDED_KEPT = 1024


class Recorder:
    """Keeps every match's records until the backend has committed them.

    Without a backend (``store=None``) nothing is kept and no result is ever
    reported as recorded: tests and benchmarks can run the server in memory.
    """

    def __init__(
        self,
        store: MatchWriter | None,
        *,
        journal: Journal | None = None,
        max_pending_results: int = 10_000,
        record_wait: float = 2.0,
    ) -> None:
        self.store = store
        self.journal = journal
        self.max_pending_results = max_pending_results
        self.record_wait = record_wait
        self._logs: dict[str, _MatchLog] = {}
        # ended-but-unwritten tournament games by (owner digest, tournament, index)
        self._games: dict[tuple[str, str, int], _MatchLog] = {}
        self._dirty: dict[str, None] = {}  # ordered set of match ids with unwritten records
        self._pending_results = 0
        self._journaled = 0
        self._wake = trio.Event()
        self._urgent = trio.Event()
        self._closing = False
        self._stopped = trio.Event()
        self.degraded_since: float | None = None
        self.last_error: str | None = None
        self._retry = RETRY_FIRST
        #: the node this server is, on a shared database: stamped on every match it opens
        self.node: str | None = None
        #: the latest matches whose result the database refused (another node had ended
        #: them, declaring this one dead), oldest first, at most `SUPERSEDED_KEPT`
        self._superseded: dict[str, None] = {}

    # --- what matches call (on the event loop, never waiting) --------------------

    def open_match(self, record: MatchRecord) -> None:
        if self.store is None:
            return
        if self.node is not None:
            record = dataclasses.replace(
                record, tags=msgspec.structs.replace(record.tags, node=self.node)
            )
        entry = _MatchLog(record)
        self._logs[record.id] = entry
        if record.game_index is not None and record.tournament:
            self._games[_game_key(record)] = entry
        self._mark(record.id)

    def move(
        self,
        match_id: str,
        ply: int,
        seat: int,
        move: Any,
        notation: str,
        think: float,
        at: float,
        info: MoveInfoFields | None = None,
    ) -> None:
        """Queue a move (the fields of a `MoveRecord`), committed with the next group.

        `info` is what the mover said about the move, (eval, depth, visits, pv);
        None when it said nothing (the common case costs nothing more).
        """
        entry = self._logs.get(match_id)
        if entry is None:
            return
        row = row_of_move(match_id, ply, seat, move, notation, think, at)
        entry.moves.append(row if info is None else with_info(row, *info))
        self._mark(match_id)

    async def finish_match(self, result: ResultRecord) -> bool:
        """Queue the result; True once it is committed (waits at most `record_wait`)."""
        entry = self._logs.get(result.match_id)
        if entry is None or self.store is None:
            return False
        if entry.result is None:
            self._pending_results += 1
        entry.result = result
        self._mark(result.match_id)
        self._urgent.set()  # a result is written at once
        if self.degraded_since is None and not self._stopped.is_set():
            with trio.move_on_after(self.record_wait):
                await entry.written.wait()
        return entry.result_written  # False: kept, retried and journaled, but not yet stored

    def superseded(self, match_id: str) -> bool:
        """Whether the database refused this match's result because another node had ended
        it (as aborted: this node had been declared dead); that end stands."""
        return match_id in self._superseded

    @property
    def accepting(self) -> bool:
        """False when unwritten results have filled the queue: start no new matches."""
        return self._pending_results < self.max_pending_results

    def status(self) -> StoreStatus:
        if self.store is None:
            state = "off"
        else:
            state = "ok" if self.degraded_since is None else "degraded"
        return StoreStatus(
            state=state,
            error=self.last_error if self.degraded_since is not None else None,
            degraded_for=None
            if self.degraded_since is None
            else trio.current_time() - self.degraded_since,
            pending_results=self._pending_results,
            pending_moves=sum(len(e.moves) - e.committed for e in self._logs.values()),
            journaled=self._journaled,
            accepting=self.accepting,
        )

    async def find_tournament_game(
        self, tournament: str, index: int, owner: str
    ) -> TournamentGame | None:
        """The ended, finished match of this tournament game, from memory or the database."""
        entry = self._games.get((owner, tournament, index))
        if entry is not None and entry.result is not None and entry.result.status == "finished":
            return TournamentGame(entry.record, entry.result, entry.result_written)
        if self.store is None:
            return None
        store = self.store
        try:
            record = await trio.to_thread.run_sync(
                store.find_tournament_game, tournament, index, owner
            )
        except Exception as exc:  # sqlite3.Error and kin: say so, do not guess
            raise StoreUnavailable(f"cannot read the records database: {exc}") from None
        if record is None or record.scores is None:
            return None
        return TournamentGame(record, result_of(record), True)

    def _mark(self, match_id: str) -> None:
        self._dirty[match_id] = None
        self._wake.set()

    # --- the writer task -----------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Write until `aclose`; shielded, so that results of aborted matches are kept."""
        task_status.started()
        with trio.CancelScope(shield=True):
            try:
                await self._write_until_closed()
            finally:
                self._stopped.set()

    async def aclose(self) -> None:
        """Write what is left (for at most `SHUTDOWN_WRITE_TIME`), journal the rest, stop."""
        self._closing = True
        self._wake.set()
        self._urgent.set()
        await self._stopped.wait()

    async def _write_until_closed(self) -> None:
        give_up_at = math.inf
        while True:
            if not self._dirty:
                if self._closing:
                    return
                self._wake = trio.Event()
                await self._wake.wait()
                continue
            now = trio.current_time()
            if self._closing:
                give_up_at = min(give_up_at, now + SHUTDOWN_WRITE_TIME)
            if self.degraded_since is not None:
                retry_at = now + self._retry
                if self._closing:
                    if now >= give_up_at:
                        await self._journal_left()
                        return
                    await trio.sleep_until(min(retry_at, give_up_at))
                else:
                    with trio.move_on_at(retry_at):
                        while not self._closing:  # closing: try once more at once
                            self._wake = trio.Event()
                            await self._wake.wait()
            elif not self._urgent.is_set() and not self._closing:
                with trio.move_on_after(MOVE_FLUSH):
                    await self._urgent.wait()
            self._urgent = trio.Event()
            await self._write_once()

    async def _write_once(self) -> None:
        assert self.store is not None
        batch = self._take_batch()
        report: BatchReport = await trio.to_thread.run_sync(self.store.write, batch)
        written_results = self._settle(batch, report)
        if report.error is None:
            if self.degraded_since is not None:
                log.warning(
                    "store_recovered",
                    after=round(trio.current_time() - self.degraded_since, 3),
                    results_written=written_results,
                )
                self.degraded_since = None
                self.last_error = None
            self._retry = RETRY_FIRST
            if self._journaled and self._pending_results == 0 and self.journal is not None:
                await self._clear_journal()
            return
        self.last_error = report.error
        if self.degraded_since is None:
            self.degraded_since = trio.current_time()
            for entry in self._logs.values():  # results waiting for a commit: stop waiting
                if entry.result is not None and not entry.result_written:
                    entry.written.set()
            log.warning(
                "store_degraded",
                error=report.error,
                pending_results=self._pending_results,
                detail="records are kept in memory and retried; results are reported as not recorded",
            )
        else:
            self._retry = min(self._retry * RETRY_FACTOR, RETRY_MAX)
        await self._journal_ended()

    def _take_batch(self) -> list[MatchWrite]:
        batch = []
        for match_id in self._dirty:
            entry = self._logs[match_id]
            batch.append(
                MatchWrite(
                    match_id,
                    record=None if entry.inserted else entry.record,
                    moves=entry.moves[entry.committed :],
                    result=None if entry.result_written else entry.result,
                )
            )
        self._dirty = {}
        return batch

    def _settle(self, batch: list[MatchWrite], report: BatchReport) -> int:
        """Forget what committed; queue the rest again. Returns the results written."""
        written = 0
        for item in batch:
            entry = self._logs[item.match_id]
            if item.match_id in report.superseded:
                # another node declared this one dead and ended the match: that end stands
                log.warning("result_superseded", match=item.match_id)
                self._superseded[item.match_id] = None
                if len(self._superseded) > SUPERSEDED_KEPT:
                    del self._superseded[next(iter(self._superseded))]
                if entry.result is not None and not entry.result_written:
                    self._pending_results -= 1
                entry.written.set()  # not recorded: its match_end says so
                self._dirty.pop(item.match_id, None)
                self._forget(entry)
                continue
            if item.match_id not in report.committed:
                self._dirty[item.match_id] = None
                continue
            entry.inserted = True
            entry.committed += len(item.moves)
            if item.result is not None and item.result is entry.result:
                entry.result_written = True
                entry.written.set()
                self._pending_results -= 1
                written += 1
            if entry.done:
                self._forget(entry)
            # anything that arrived during the write has marked the match again itself
        return written

    def _forget(self, entry: _MatchLog) -> None:
        self._logs.pop(entry.record.id, None)
        if entry.record.game_index is not None and entry.record.tournament:
            key = _game_key(entry.record)
            if self._games.get(key) is entry:
                del self._games[key]

    async def _journal_ended(self) -> None:
        """Append ended, unwritten, not yet journaled matches to the journal."""
        fresh = [e for e in self._logs.values() if e.result is not None and not e.journaled]
        await self._append(fresh)

    async def _journal_left(self) -> None:
        """At shutdown: journal everything that is still unwritten."""
        left = [e for e in self._logs.values() if not e.done and not e.journaled]
        await self._append(left)
        lost = [e.record.id for e in self._logs.values() if not e.done and not e.journaled]
        if lost:
            log.error("records_lost_at_shutdown", matches=lost)

    async def _append(self, entries: list[_MatchLog]) -> None:
        if not entries or self.journal is None:
            return
        writes = [MatchWrite(e.record.id, e.record, list(e.moves), e.result) for e in entries]
        try:
            await trio.to_thread.run_sync(self.journal.append, writes)
        except OSError as exc:
            log.warning("journal_write_failed", error=str(exc), matches=len(writes))
            return
        for entry in entries:
            entry.journaled = True
        self._journaled += len(entries)

    async def _clear_journal(self) -> None:
        assert self.journal is not None
        try:
            await trio.to_thread.run_sync(self.journal.clear)
        except OSError as exc:
            log.warning("journal_clear_failed", error=str(exc))
            return
        self._journaled = 0


def _game_key(record: MatchRecord) -> tuple[str, str, int]:
    owner = record.tags.owner
    return (
        owner if isinstance(owner, str) else "",
        record.tournament or "",
        record.game_index or 0,
    )


def import_journal(store: MatchWriter, journal: Journal) -> tuple[int, int]:
    """Write every journaled match into `store` (blocking); returns (imported, torn lines).

    The journal is emptied only once everything in it has committed, or was superseded
    (another node, which declared this one dead, ended that match first).
    """
    writes, torn = journal.read()
    if writes:
        report = store.write(writes)
        if report.error is not None or len(report.committed | report.superseded) != len(writes):
            raise StoreError(f"cannot import the journal {journal.path}: {report.error}")
        for match_id in sorted(report.superseded):
            log.warning("result_superseded", match=match_id, source="journal")
    if writes or torn:
        journal.clear()
    return len(writes), torn
