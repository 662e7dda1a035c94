"""A real PostgreSQL for the tests: one throwaway cluster per session (`store.postgres.cluster`).

About a second to start; each test gets a database of its own. Without
PostgreSQL the tests that need it skip and say why, unless
ARENA_REQUIRE_POSTGRES=1 (set by .ci/run, after `make postgres`), where
they fail instead.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from store.postgres.cluster import PostgresServer, available

__all__ = ["PostgresServer", "frozen", "postgres_server", "postgres_url"]


def _missing(what: str) -> None:
    if os.environ.get("ARENA_REQUIRE_POSTGRES"):
        pytest.fail(f"{what} (ARENA_REQUIRE_POSTGRES is set: run `make postgres`)")
    pytest.skip(what)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL server (skips, or fails under ARENA_REQUIRE_POSTGRES, without one)."""
    reason = available()
    if reason is not None:
        _missing(reason)
    server = PostgresServer(durable=False)  # throwaway: stops in a second, not minutes
    try:
        server.start()
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        server.stop()
        _missing(f"cannot start PostgreSQL: {exc}")
    yield server
    server.stop()


@pytest.fixture
def postgres_url(postgres_server: PostgresServer) -> str:
    """The URL of a fresh database on the session's PostgreSQL."""
    return postgres_server.new_database()


def _processes(server: PostgresServer) -> list[int]:
    """The postmaster's pid and its children's (every backend and helper of the cluster)."""
    postmaster = int((server.data / "postmaster.pid").read_text().split()[0])
    found = [postmaster]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[1]) == postmaster:
            found.append(int(stat.parent.name))
    return found


@contextlib.contextmanager
def frozen(server: PostgresServer) -> Iterator[None]:
    """The whole database stalls (SIGSTOP), as on a hung disk or a failover, until the block ends."""
    pids = _processes(server)
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)
    try:
        yield
    finally:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
