"""The director lock of a tournament on SQLite: a ``flock`` on a file beside the database.

The tables themselves are the shared `store.tournament_table.TournamentRows`.
The kernel drops the lock when the director dies, however it dies.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from store.tournament_table import TournamentRows


class SqliteTournaments(TournamentRows):
    """`TournamentTables` on SQLite: the shared tables, and a lock file per director."""

    @contextlib.contextmanager
    def hold(self, tournament_id: str) -> Iterator[bool]:
        """An exclusive ``flock`` on ``<db>.<id>.lock`` (dropped by the kernel when we die)."""
        path = lock_path(self.db.path, tournament_id)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                yield False
                return
            try:
                yield True
            finally:
                with contextlib.suppress(OSError):
                    path.unlink()
        finally:
            os.close(fd)

    def is_held(self, tournament_id: str) -> bool:
        path = lock_path(self.db.path, tournament_id)
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


def lock_path(db_path: str, tournament_id: str) -> Path:
    """The director's lock file of a tournament, beside the database file."""
    return Path(f"{db_path}.{tournament_id}.lock")


__all__ = ["SqliteTournaments", "lock_path"]
