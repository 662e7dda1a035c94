"""Tournaments and their results in the SQLite records database, and the running lock.

Durability: the configuration is stored when the tournament starts and each
game's result is committed as soon as it is known, keyed by its index in the
schedule. Resuming plays only the indices without a result.

Real state: a running director holds an exclusive ``flock`` on a file beside
the database (``<db>.<id>.lock``). The operating system drops it when the
process ends, however it ends (kill -9 included), so `arena tournament
--list` reports "running" only for a tournament whose director is alive, and
a second director cannot run the same tournament on the same records.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import secrets
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from server.store import Store, like_prefix
from tournament.config import TournamentConfig

__all__ = ["GameResult", "TournamentRecords", "TournamentRunning", "lock_path"]


class TournamentRunning(Exception):
    """Another process is directing this tournament on these records."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished tournament game."""

    index: int
    seats: tuple[str, ...]
    scores: tuple[float, ...]
    termination: str
    match_id: str
    plies: int

    def score_of(self, name: str) -> float:
        return self.scores[self.seats.index(name)]


def lock_path(db_path: str | Path, tournament_id: str) -> Path:
    return Path(f"{db_path}.{tournament_id}.lock")


@dataclass(frozen=True, slots=True)
class Listed:
    """A stored tournament as `--list` shows it."""

    config: TournamentConfig
    status: str  # running | stopped | finished
    created_at: float
    done: int


class TournamentRecords:
    """Tournaments and their results in the SQLite records database."""

    def __init__(self, store: Store) -> None:
        self.store = store  # its schema holds the tournament tables

    def save(self, config: TournamentConfig, status: str) -> None:
        now = time.time()
        with self.store.transaction() as db:
            db.execute(
                "INSERT INTO tournaments (id, config, status, created_at, updated_at)"
                " VALUES (?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET status=excluded.status,"
                " updated_at=excluded.updated_at",
                (config.id, config.to_json(), status, now, now),
            )

    def owner_key(self, tournament_id: str) -> str:
        """The key that owns this tournament's pool on a server (made once, kept for resumes)."""
        with self.store.transaction() as db:
            row = db.execute(
                "SELECT owner_key FROM tournaments WHERE id=?", (tournament_id,)
            ).fetchone()
            if row is not None and row[0]:
                return str(row[0])
            key = secrets.token_urlsafe(24)
            db.execute("UPDATE tournaments SET owner_key=? WHERE id=?", (key, tournament_id))
            return key

    def load(self, tournament_id: str) -> tuple[TournamentConfig, str] | None:
        """The tournament with this id (or unique id prefix) and its status."""
        with self.store.reading() as db:
            rows = db.execute(
                "SELECT id, config, status FROM tournaments WHERE id=? OR id LIKE ? ESCAPE '\\'"
                " LIMIT 2",
                (tournament_id, like_prefix(tournament_id)),
            ).fetchall()
        exact = [row for row in rows if row[0] == tournament_id]
        if exact or len(rows) == 1:
            row = (exact or rows)[0]
            return TournamentConfig.from_json(row[1]), row[2]
        return None

    def list(self) -> list[Listed]:
        """Every stored tournament, newest first, with its real state and games done."""
        with self.store.reading() as db:
            rows = db.execute(
                "SELECT t.config, t.status, t.created_at, COUNT(g.idx) FROM tournaments t"
                " LEFT JOIN tournament_games g ON g.tournament = t.id"
                " GROUP BY t.id ORDER BY t.created_at DESC"
            ).fetchall()
        listed = []
        for text, status, created, done in rows:
            config = TournamentConfig.from_json(text)
            if status == "running" and not self.is_running(config.id):
                status = "stopped"  # its director died without saying so (kill -9, power cut)
            listed.append(Listed(config, status, created, done))
        return listed

    def is_running(self, tournament_id: str) -> bool:
        """True if a live process holds this tournament's lock."""
        path = lock_path(self.store.path, tournament_id)
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(fd)
        return False

    @contextlib.contextmanager
    def running(self, tournament_id: str) -> Iterator[None]:
        """Hold the tournament's lock while directing it (TournamentRunning if taken)."""
        path = lock_path(self.store.path, tournament_id)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise TournamentRunning(
                    f"tournament {tournament_id} is being run by another process on"
                    f" {self.store.path}"
                ) from None
            try:
                yield
            finally:
                with contextlib.suppress(OSError):
                    path.unlink()
        finally:
            os.close(fd)

    def add_result(self, tournament_id: str, result: GameResult) -> None:
        with self.store.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO tournament_games (tournament, idx, seats, scores,"
                " termination, match_id, plies, finished_at) VALUES (?,?,?,?,?,?,?,?)",
                (
                    tournament_id,
                    result.index,
                    json.dumps(list(result.seats)),
                    json.dumps(list(result.scores)),
                    result.termination,
                    result.match_id,
                    result.plies,
                    time.time(),
                ),
            )

    def results(self, tournament_id: str) -> dict[int, GameResult]:
        """Finished games by schedule index.

        Also adopts finished match records tagged with this tournament that have
        no result row yet (the process was killed between the server's commit
        and the director's), so no finished game is ever played twice.
        """
        with self.store.reading() as db:
            rows = db.execute(
                "SELECT idx, seats, scores, termination, match_id, plies FROM tournament_games"
                " WHERE tournament=?",
                (tournament_id,),
            ).fetchall()
        results = {
            row[0]: GameResult(
                row[0], tuple(json.loads(row[1])), tuple(json.loads(row[2])), row[3], row[4], row[5]
            )
            for row in rows
        }
        for record in self.store.list_matches(
            1_000_000, status="finished", tournament=tournament_id
        ):
            index = record.tags.index
            seats = record.tags.seats or record.players
            if index is not None and index not in results and record.scores is not None:
                result = GameResult(
                    index,
                    tuple(seats),
                    tuple(record.scores),
                    record.termination or "",
                    record.id,
                    record.plies,
                )
                self.add_result(tournament_id, result)
                results[index] = result
        return results
