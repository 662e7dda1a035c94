"""The PostgreSQL backend: one database shared by any number of arena servers.

Selected by a ``postgresql://`` URL (``arena serve --db URL``, ``ARENA_DB``;
`store.open.open_database`). psycopg 3 with its connection pool; every call
blocks and is made from a worker thread, never on the event loop.

Durability is PostgreSQL's: a COMMIT returns once its WAL record is flushed
(``synchronous_commit`` on, the default), so `write` reports a match as
committed only when it is. As with SQLite, a batch is one transaction and
each match inside it a savepoint: a failure in one match's records rolls
back that match only, and a failure of the transaction itself (the server
unreachable, a failover) reports nothing committed, so the recorder keeps,
retries and journals everything.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from store.account_table import AccountRows
from store.errors import MatchRefused, MatchSuperseded, StoreError
from store.interface import AccountTable, LadderTable, NodeTable, PoolTables, TournamentTables
from store.match_table import MatchReads, finish_match, import_into, match_sql, write_one
from store.matches import (
    BatchReport,
    MatchRecord,
    MatchWrite,
    MoveRecord,
    MoveRow,
    own_match,
    to_json,
)
from store.pool_table import PoolRows
from store.postgres.ladders import PostgresLadders
from store.postgres.nodes import PostgresNodes
from store.postgres.schema import migrate
from store.postgres.tables import DIALECT, PostgresTournaments, pg_program
from store.rows import (
    MOVE_COLUMNS,
    match_params,
)
from store.version import SCHEMA_VERSION

try:
    import psycopg
    import psycopg_pool
    from psycopg.conninfo import conninfo_to_dict, make_conninfo
except ImportError:  # pragma: no cover - the extra is not installed
    psycopg = None  # type: ignore[assignment]

T = TypeVar("T")

#: seconds to wait for a connection (the server unreachable counts as a failed write)
CONNECT_TIMEOUT = 5.0
#: connections a server keeps (the recorder writes from one thread; reads take the rest)
POOL_SIZE = 8

_SQL = match_sql(DIALECT)
_INSERT_MOVE = (
    f"INSERT INTO moves ({MOVE_COLUMNS}) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s)"
    " ON CONFLICT (match_id, ply) DO UPDATE SET seat=EXCLUDED.seat, move=EXCLUDED.move,"
    " notation=EXCLUDED.notation, think_time=EXCLUDED.think_time, at=EXCLUDED.at,"
    " eval=EXCLUDED.eval, depth=EXCLUDED.depth, visits=EXCLUDED.visits, pv=EXCLUDED.pv"
)


def display_url(url: str) -> str:
    """`url` without its password, for messages and logs."""
    try:
        params = conninfo_to_dict(url)
    except Exception:
        return url.split("@")[-1]
    params.pop("password", None)
    user = params.get("user")
    host = params.get("host", "localhost")
    port = f":{params['port']}" if params.get("port") else ""
    who = f"{user}@" if user else ""
    return f"postgresql://{who}{host}{port}/{params.get('dbname', '')}"


def describe_error(name: str, exc: BaseException) -> str:
    """One readable line for a PostgreSQL error on the database `name`."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return f"database {name}: {text}"


class PostgresDatabase(MatchReads):
    """A `store.interface.Database` on PostgreSQL. Thread-safe (a connection pool)."""

    dialect = DIALECT

    def __init__(self, url: str, *, pool_size: int = POOL_SIZE) -> None:
        if psycopg is None:
            raise StoreError("PostgreSQL needs psycopg: pip install 'mcts-arena[postgresql]'")
        self.url = url
        self.path = display_url(url)
        try:
            conninfo = make_conninfo(url, connect_timeout=int(CONNECT_TIMEOUT))
            self.conninfo = conninfo
        except psycopg.ProgrammingError as exc:
            raise StoreError(f"bad PostgreSQL URL {self.path}: {exc}") from None
        try:
            with psycopg.connect(conninfo, autocommit=True) as db:
                self.upgraded_from = migrate(db, self.path)
        except ValueError as exc:
            raise StoreError(str(exc)) from None
        except psycopg.Error as exc:
            raise StoreError(f"cannot use {self.path}: {' '.join(str(exc).split())}") from None
        self.pool = psycopg_pool.ConnectionPool(
            conninfo,
            min_size=1,
            max_size=pool_size,
            kwargs={"autocommit": True},
            timeout=CONNECT_TIMEOUT,
            open=False,
            name="arena",
        )
        try:
            self.pool.open(wait=True, timeout=CONNECT_TIMEOUT)
        except psycopg_pool.PoolTimeout:
            raise StoreError(f"cannot connect to {self.path}") from None
        self._tournaments = PostgresTournaments(self)
        self._accounts = AccountRows(self)
        self._nodes = PostgresNodes(self)
        self._pools = PoolRows(self)
        self._ladders = PostgresLadders(self)
        #: several servers may share it (`store.interface.NodeTable`)
        self.shared = True

    @property
    def tournaments(self) -> TournamentTables:
        return self._tournaments

    @property
    def accounts(self) -> AccountTable:
        return self._accounts

    @property
    def nodes(self) -> NodeTable:
        return self._nodes

    @property
    def pools(self) -> PoolTables:
        return self._pools

    @property
    def ladders(self) -> LadderTable:
        return self._ladders

    def close(self) -> None:
        self.pool.close()

    # --- connections -------------------------------------------------------------

    @contextlib.contextmanager
    def connection(self) -> Iterator[Any]:
        """A pooled connection (autocommit); any database error is a `StoreError`."""
        try:
            with self.pool.connection() as db:
                yield db
        except psycopg_pool.PoolTimeout:
            raise StoreError(
                f"cannot connect to {self.path} (no connection within {CONNECT_TIMEOUT:g} s)"
            ) from None
        except psycopg.Error as exc:
            raise StoreError(describe_error(self.path, exc)) from None

    def transact(self, work: Callable[[Any], T]) -> T:
        """Run `work` in one transaction; again on another connection if the server ended
        this one under it before it committed (then nothing of it was written). Any other
        database error is a `StoreError`."""
        return self._retrying(work, transaction=True)

    def query(self, read: Callable[[Any], T]) -> T:
        """Run `read` on a pooled connection; again on another if the server ended this one
        under it (a restart, a failover, an administrator): reads repeat safely. Any other
        database error is a `StoreError`."""
        return self._retrying(read, transaction=False)

    def _retrying(self, work: Callable[[Any], T], *, transaction: bool) -> T:
        """A connection the server ended (a restart, a failover, an administrator's
        pg_terminate_backend) fails at once and leaves the pool; the next one is tried,
        as many times as the pool can hold dead ones. (The pool's own check on checkout
        was tried: after a mass termination it waited out its whole timeout.)"""
        attempts = self.pool.max_size + 1
        for attempt in range(1, attempts + 1):
            try:
                with self.pool.connection() as db:
                    if not transaction:
                        return work(db)
                    with db.transaction():
                        return work(db)
            except psycopg_pool.PoolTimeout:
                raise StoreError(
                    f"cannot connect to {self.path} (no connection within {CONNECT_TIMEOUT:g} s)"
                ) from None
            except psycopg.OperationalError as exc:
                if attempt < attempts and _connection_ended(exc):
                    continue
                raise StoreError(describe_error(self.path, exc)) from None
            except psycopg.Error as exc:
                raise StoreError(describe_error(self.path, exc)) from None
        raise AssertionError("unreachable")

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Any]:
        """One committed transaction on a pooled connection (rolled back on error)."""
        with self.connection() as db, db.transaction():
            yield db

    # --- writes ------------------------------------------------------------------

    def write(self, batch: Sequence[MatchWrite]) -> BatchReport:
        """Write `batch` in one transaction, in a few round trips: every new match row in
        one pipelined statement, every move in another, then each result. If a match of
        it fails, the batch is written again match by match, each in a savepoint of its own,
        so that one match's failure is its own.

        Never raises for a database error: the report names the matches that
        committed (none if the transaction itself failed) and the first error.
        """
        if not batch:
            return BatchReport(frozenset())
        try:
            with self.pool.connection() as db:
                try:
                    with db.transaction():
                        _write_all(db, batch)
                    return BatchReport(frozenset(item.match_id for item in batch))
                except (MatchRefused, MatchSuperseded, psycopg.IntegrityError, psycopg.DataError):
                    pass  # rolled back: find the match that fails, alone
                return _write_each(db, batch)
        except psycopg_pool.PoolTimeout:
            return BatchReport(frozenset(), f"cannot connect to {self.path}")
        except psycopg.Error as exc:
            return BatchReport(frozenset(), describe_error(self.path, exc))

    def import_match(self, record: MatchRecord, moves: Sequence[MoveRecord]) -> bool:
        """Store a whole match in one transaction; False (nothing written) if its id exists."""
        try:
            with self.transaction() as db:
                return import_into(db, _SQL, record, moves, _insert_moves)
        except StoreError as exc:
            raise StoreError(f"cannot store match {record.id!r}: {exc}") from None

    # --- maintenance -------------------------------------------------------------

    def backup(self, destination: str) -> None:
        """``pg_dump`` the database to `destination` (custom format, for ``pg_restore``).

        The dump is a consistent snapshot taken while servers write. It is
        written next to `destination`, checked by ``pg_restore --list``, and
        renamed into place only then.
        """
        dump, restore = pg_program("pg_dump"), pg_program("pg_restore")
        if dump is None or restore is None:
            raise StoreError(
                "backup of a PostgreSQL database needs pg_dump and pg_restore"
                " (Debian: apt-get install postgresql-client)"
            )
        partial = f"{destination}.partial"
        try:
            _run([dump, "--format=custom", "--no-owner", f"--file={partial}", "--dbname", self.url])
            _run([restore, "--list", partial])
            os.replace(partial, destination)
        except (OSError, subprocess.SubprocessError, StoreError) as exc:
            with contextlib.suppress(OSError):
                os.remove(partial)
            raise StoreError(f"backup to {destination} failed: {exc}") from None

    def integrity_check(self) -> list[str]:
        """``["ok"]``, or what is wrong: the schema version, moves without their match."""
        problems = []
        with self.connection() as db:
            version = db.execute("SELECT version FROM arena_schema").fetchone()
            if version is None or int(version[0]) != SCHEMA_VERSION:
                problems.append(f"schema version {version and version[0]} != {SCHEMA_VERSION}")
            orphans = db.execute(
                "SELECT count(*) FROM moves m LEFT JOIN matches x ON x.id = m.match_id"
                " WHERE x.id IS NULL"
            ).fetchone()[0]
            if orphans:
                problems.append(f"{orphans} moves without their match")
        return problems or ["ok"]


def _connection_ended(exc: BaseException) -> bool:
    """Whether `exc` says the connection itself ended (not the statement): worth a retry."""
    state = getattr(exc, "sqlstate", None)
    return state is None or state.startswith(("08", "57P"))


def _run(command: list[str]) -> None:
    result = subprocess.run(command, capture_output=True, text=True, timeout=3600)
    if result.returncode != 0:
        name = os.path.basename(command[0])
        message = (result.stderr.strip().splitlines() or ["failed"])[-1]
        raise StoreError(f"{name}: {message}")


def _write_all(db: Any, batch: Sequence[MatchWrite]) -> None:
    """The whole batch, with no savepoint (the common case: nothing in it fails)."""
    records = [item.record for item in batch if item.record is not None]
    if records:
        with db.cursor() as cursor:
            cursor.executemany(_SQL.insert_match, [match_params(record) for record in records])
    moves = [row for item in batch for row in item.moves]
    if moves:
        _insert_moves(db, moves)
    for item in batch:
        if item.result is not None:
            finish_match(db, _SQL, item.result, running=own_match(item))


def _write_each(db: Any, batch: Sequence[MatchWrite]) -> BatchReport:
    """The batch in one transaction, each match in a savepoint of its own."""
    committed: list[str] = []
    superseded: list[str] = []
    error: str | None = None
    with db.transaction():
        for item in batch:
            try:
                with db.transaction():
                    write_one(db, _SQL, item, _insert_moves)
            except MatchSuperseded:
                superseded.append(item.match_id)
                continue
            except (MatchRefused, psycopg.IntegrityError, psycopg.DataError) as exc:
                error = error or f"match {item.match_id}: {exc}"
                continue
            committed.append(item.match_id)
    return BatchReport(frozenset(committed), error, frozenset(superseded))


def _insert_moves(db: Any, rows: Sequence[MoveRow]) -> None:
    """Moves in one round trip (psycopg's pipelined executemany)."""
    padded = [
        row if len(row) == 7 else (*row[:10], None if row[10] is None else to_json(row[10]))
        for row in rows
    ]
    with db.cursor() as cursor:
        cursor.executemany(
            _INSERT_MOVE,
            [(*row, None, None, None, None) if len(row) == 7 else row for row in padded],
        )


__all__ = ["PostgresDatabase", "describe_error", "display_url"]
