"""The SQLite backend: one database file in WAL mode, written durably.

Durability: WAL with ``synchronous=FULL``: a commit returns only after the
write-ahead log is on stable storage, so a committed result survives kill -9
and power loss. The server commits in groups (one transaction, one fsync, for
everything that arrived during a few milliseconds), and each match inside a
group is a savepoint of its own: a failure in one match's records rolls back
that match only, and one that takes the whole transaction down (a full disk,
a lock held too long) leaves every match's records queued for the next try.

Two connections: the writer (used from the server's single writer thread)
and a reader, so that lookups never wait behind a write that is retrying.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import msgspec

from store.dialect import Dialect
from store.errors import MatchRefused, MatchSuperseded, StoreError
from store.ladder_table import LadderRows
from store.match_table import MatchReads, import_into, match_sql, write_one
from store.matches import (
    BatchReport,
    MatchRecord,
    MatchWrite,
    MoveRecord,
    MoveRow,
)
from store.pool_table import PoolRows
from store.sqlite.accounts import accounts
from store.sqlite.nodes import SqliteNodes
from store.sqlite.schema import check_compatible, migrate
from store.sqlite.tournaments import SqliteTournaments

T = TypeVar("T")

#: how long a write waits for another process's lock before it counts as failed
BUSY_TIMEOUT = 1.0

#: SQLite's spelling of what differs (`store.dialect`): the clock is this host's
#: (``arena_now()``, `time.time`, defined on each connection); a transaction holds the
#: whole database (``BEGIN IMMEDIATE``), so rows need no lock of their own
DIALECT = Dialect(
    name="sqlite",
    mark="?",
    now="arena_now()",
    tag_pattern="json_extract(tags, '$.{key}')",
    for_update="",
    skip_locked="",
)

_SQL = match_sql(DIALECT)

#: a match's moves in one statement: one array of rows (see `_insert_moves`); a row
#: without move info has 7 elements (the missing ones read as NULL), and a `pv` array
#: is stored as its JSON text
_INSERT_MOVES_JSON = (
    "INSERT OR REPLACE INTO moves"
    " (match_id, ply, seat, move, notation, think_time, at, eval, depth, visits, pv)"
    " SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]'),"
    " json_extract(value, '$[2]'), json_extract(value, '$[3]'), json_extract(value, '$[4]'),"
    " json_extract(value, '$[5]'), json_extract(value, '$[6]'), json_extract(value, '$[7]'),"
    " json_extract(value, '$[8]'), json_extract(value, '$[9]'), json_extract(value, '$[10]')"
    " FROM json_each(?)"
)


def describe_error(path: str, exc: BaseException) -> str:
    """One readable line for an SQLite error on the database at `path`."""
    text = str(exc)
    lowered = text.lower()
    if "not a database" in lowered or "malformed" in lowered:
        return f"{path} is not an SQLite database or is corrupt ({text})"
    if "locked" in lowered or "busy" in lowered:
        return f"{path} is locked by another process ({text})"
    if "readonly" in lowered or "read-only" in lowered:
        return f"{path} cannot be written: read-only file or file system ({text})"
    if "unable to open" in lowered:
        return f"cannot open {path}: the file or its directory cannot be created or read ({text})"
    return f"database {path}: {text}"


class SqliteDatabase(MatchReads):
    """The SQLite records database. Thread-safe: one lock per connection.

    `check` runs SQLite's ``quick_check`` on open (the server does; reading
    commands need not). The database is created if missing and upgraded to
    the current schema; anything else that is wrong with it raises
    `StoreError` with one readable line, and nothing is overwritten.
    """

    dialect = DIALECT

    def __init__(self, path: str, *, check: bool = False, busy_timeout: float = BUSY_TIMEOUT):
        self.path = path
        self.busy_timeout = busy_timeout
        if os.path.isdir(path):
            raise StoreError(f"{path} is a directory, not a database file")
        if os.path.exists(path) and not os.access(path, os.R_OK | os.W_OK):
            raise StoreError(f"{path} cannot be read and written by this user")
        try:
            self._db = self._connect(inspect=True)
            try:
                self.upgraded_from = migrate(self._db, path)
                if check:
                    problems = [row[0] for row in self._db.execute("PRAGMA quick_check")]
                    if problems != ["ok"]:
                        raise StoreError(
                            f"{path} is corrupt (quick_check: {'; '.join(problems[:3])});"
                            " restore a backup (arena backup) or move the file away"
                        )
                self._reader = self._connect()
            except BaseException:
                self._db.close()
                raise
        except ValueError as exc:
            raise StoreError(str(exc)) from None
        except sqlite3.Error as exc:
            raise StoreError(describe_error(path, exc)) from None
        self._lock = threading.Lock()
        self._read_lock = threading.Lock()
        self._broken = False
        self.tournaments = SqliteTournaments(self)
        self.accounts = accounts(path, DIALECT)
        self.nodes = SqliteNodes(self)
        self.pools = PoolRows(self)
        self.ladders = LadderRows(self)
        #: one server at a time: it aborts every running match when it starts
        self.shared = False

    def _connect(self, *, inspect: bool = False) -> sqlite3.Connection:
        db = sqlite3.connect(
            self.path, check_same_thread=False, isolation_level=None, timeout=self.busy_timeout
        )
        try:
            if inspect:  # before anything is written to the file
                check_compatible(db, self.path)
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise sqlite3.OperationalError(f"cannot use WAL mode (journal_mode is {mode})")
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            db.execute(f"PRAGMA busy_timeout={int(self.busy_timeout * 1000)}")
            db.create_function("arena_now", 0, _now)
        except BaseException:
            db.close()
            raise
        return db

    def close(self) -> None:
        with self._lock, self._read_lock:
            for db in (self._db, self._reader):
                with contextlib.suppress(sqlite3.Error):
                    db.close()

    # --- transactions ----------------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One committed transaction on the writer connection (rolled back on error)."""
        with self._lock:
            self._reopen_if_broken()
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                self._rollback_quietly()
                raise

    @contextlib.contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        with self._read_lock:
            yield self._reader

    def transact(self, work: Callable[[Any], T]) -> T:
        """`work` in one `transaction` (`store.dialect.Connections`)."""
        with self.transaction() as db:
            return work(db)

    def query(self, read: Callable[[Any], T]) -> T:
        """`read` on the reader connection (`store.dialect.Connections`)."""
        with self.reading() as db:
            return read(db)

    def _rollback_quietly(self) -> None:
        if self._db.in_transaction:
            try:
                self._db.execute("ROLLBACK")
            except sqlite3.Error:
                self._broken = True

    def _reopen_if_broken(self) -> None:
        """After an I/O error, start again on a fresh connection (raises while it cannot)."""
        if not self._broken:
            return
        fresh = self._connect()
        with contextlib.suppress(sqlite3.Error):
            self._db.close()
        self._db = fresh
        self._broken = False

    # --- writes ----------------------------------------------------------------

    def write(self, batch: Sequence[MatchWrite]) -> BatchReport:
        """Write `batch` in one transaction, each match in a savepoint of its own.

        Never raises for an SQLite error: the report names the matches that
        committed (none if the transaction itself failed) and the first error.
        """
        committed: list[str] = []
        superseded: list[str] = []
        error: str | None = None
        with self._lock:
            try:
                self._reopen_if_broken()
                db = self._db
                db.execute("BEGIN IMMEDIATE")
                for item in batch:
                    db.execute("SAVEPOINT one_match")
                    try:
                        write_one(db, _SQL, item, _insert_moves)
                    except MatchSuperseded:
                        db.execute("ROLLBACK TO one_match")
                        db.execute("RELEASE one_match")
                        superseded.append(item.match_id)
                        continue
                    except (sqlite3.Error, MatchRefused) as exc:
                        if not db.in_transaction:
                            raise  # SQLite rolled the whole transaction back
                        db.execute("ROLLBACK TO one_match")
                        db.execute("RELEASE one_match")
                        error = error or f"match {item.match_id}: {exc}"
                        continue
                    db.execute("RELEASE one_match")
                    committed.append(item.match_id)
                db.execute("COMMIT")
            except sqlite3.Error as exc:
                self._rollback_quietly()
                if not isinstance(exc, sqlite3.OperationalError) or "locked" not in str(exc):
                    self._broken = True  # I/O errors: reopen before the next try
                return BatchReport(frozenset(), describe_error(self.path, exc))
        return BatchReport(frozenset(committed), error, frozenset(superseded))

    def import_match(self, record: MatchRecord, moves: Sequence[MoveRecord]) -> bool:
        """Store a whole match (e.g. read back by `arena import`) in one transaction.

        Returns False, writing nothing, when a match with this id is already stored;
        raises `StoreError` (nothing written) when the database refuses it.
        """
        try:
            with self.transaction() as db:
                return import_into(db, _SQL, record, moves, _insert_moves)
        except (sqlite3.Error, MatchRefused) as exc:
            raise StoreError(
                f"cannot store match {record.id!r}: {describe_error(self.path, exc)}"
            ) from None

    def backup(self, destination: str) -> None:
        """Copy the database to `destination` with SQLite's online backup (safe while writing).

        The copy is written next to `destination` and renamed into place only
        once it is complete and passes ``integrity_check``.
        """
        partial = f"{destination}.partial"
        with contextlib.suppress(FileNotFoundError):
            os.remove(partial)
        try:
            source = sqlite3.connect(self.path, timeout=self.busy_timeout)
            try:
                target = sqlite3.connect(partial)
                try:
                    source.backup(target, pages=4096)
                    verdict = target.execute("PRAGMA integrity_check").fetchone()[0]
                finally:
                    target.close()
            finally:
                source.close()
            if verdict != "ok":
                raise StoreError(f"the copy failed its integrity check: {verdict}")
            os.replace(partial, destination)
        except (sqlite3.Error, OSError) as exc:
            with contextlib.suppress(OSError):
                os.remove(partial)
            raise StoreError(f"backup to {destination} failed: {exc}") from None

    def integrity_check(self) -> list[str]:
        """SQLite's full ``integrity_check``: ``["ok"]`` for a sound database."""
        with self.reading() as db:
            return [row[0] for row in db.execute("PRAGMA integrity_check")]


_json_rows = msgspec.json.Encoder().encode


def _now() -> float:
    """``arena_now()`` in SQL: this host's clock (looked up each call, so tests can move it)."""
    return time.time()


def _insert_moves(db: sqlite3.Connection, rows: Sequence[MoveRow]) -> None:
    """Insert move rows in one statement over a JSON array: one call into SQLite, and
    so one release of the GIL, instead of one per row (with the ``thread`` writer the
    event loop shares the GIL with the writing thread)."""
    db.execute(_INSERT_MOVES_JSON, (_json_rows(rows).decode(),))


__all__ = ["SqliteDatabase", "describe_error"]
