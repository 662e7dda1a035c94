"""A real PostgreSQL for the tests: Debian's server, started in a temporary directory.

One server per test session (``initdb`` and ``pg_ctl``, about two seconds),
as an unprivileged user when the tests run as root (PostgreSQL refuses to run
as root): the data directory belongs to ``nobody``. It listens on 127.0.0.1
on a free port, trusts local connections, and keeps PostgreSQL's durable
defaults (fsync, synchronous commit). Each test gets a database of its own.

Without PostgreSQL the tests that need it skip and say why, unless
ARENA_REQUIRE_POSTGRES=1 (set by .ci/run, after `make postgres`), where
they fail instead.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from store.postgres_tables import pg_program


def _missing(what: str) -> None:
    if os.environ.get("ARENA_REQUIRE_POSTGRES"):
        pytest.fail(f"{what} (ARENA_REQUIRE_POSTGRES is set: run `make postgres`)")
    pytest.skip(what)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """A throwaway PostgreSQL cluster: `start`, then `url(database)`, then `stop`."""

    def __init__(self, initdb: str, pg_ctl: str) -> None:
        self.initdb = initdb
        self.pg_ctl = pg_ctl
        self.home = Path(tempfile.mkdtemp(prefix="arena-pg-"))
        self.data = self.home / "data"
        self.port = _free_port()
        self._as: dict[str, Any] = {}
        if os.geteuid() == 0:  # PostgreSQL will not run as root
            self._as = {"user": "nobody", "group": "nogroup"}
            shutil.chown(self.home, "nobody", "nogroup")
        self._names = itertools.count(1)

    def _run(self, *args: str) -> None:
        result = subprocess.run(
            args, capture_output=True, text=True, timeout=120, cwd=self.home, **self._as
        )
        if result.returncode != 0:
            raise RuntimeError(f"{args[0]} failed: {result.stderr.strip() or result.stdout}")

    def start(self) -> None:
        """Create the cluster (the first time) and start the server."""
        if not self.data.exists():
            self._run(
                self.initdb, "-D", str(self.data), "-U", "arena", "--auth=trust", "-E", "UTF8",
                "--no-locale", "--no-sync",
            )  # fmt: skip
        options = (
            f"-p {self.port} -k {self.home} -c listen_addresses=127.0.0.1 -c max_connections=200"
        )
        self._run(
            self.pg_ctl, "-D", str(self.data), "-o", options, "-l", str(self.home / "log"),
            "-w", "-t", "60", "start",
        )  # fmt: skip

    def stop_only(self, mode: str = "fast") -> None:
        """Stop the server, keeping its data (`start` brings it back on the same port)."""
        self._run(self.pg_ctl, "-D", str(self.data), "-m", mode, "-w", "stop")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server and remove everything it had."""
        with contextlib.suppress(Exception):
            self.stop_only(mode)
        shutil.rmtree(self.home, ignore_errors=True)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://arena@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """A fresh, empty database; its URL."""
        import psycopg

        name = f"t{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as admin:
            admin.execute(f"CREATE DATABASE {name}")
        return self.url(name)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """The session's PostgreSQL server (skips, or fails under ARENA_REQUIRE_POSTGRES, without one)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        _missing("psycopg is not installed (pip install -e '.[dev]')")
    initdb, pg_ctl = pg_program("initdb"), pg_program("pg_ctl")
    if initdb is None or pg_ctl is None:
        _missing("PostgreSQL is not installed (`make postgres`: Debian's postgresql)")
    assert initdb is not None and pg_ctl is not None
    server = PostgresServer(initdb, pg_ctl)
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
