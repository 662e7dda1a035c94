"""A throwaway PostgreSQL cluster in a temporary directory, for the tests and the benchmarks.

Debian's server programs (``initdb``, ``pg_ctl``; `make postgres` installs
them), run as ``nobody`` when we are root (PostgreSQL refuses to run as
root). The cluster listens on 127.0.0.1 on a free port, trusts local
connections, and keeps PostgreSQL's durable defaults (fsync, synchronous
commit), so what it measures and what it proves hold for a real deployment.
Not for production: an operator runs PostgreSQL as a service.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from store.postgres.tables import pg_program


def available() -> str | None:
    """None if a cluster can be started here, else why not (one line)."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'mcts-arena[postgresql]')"
    if pg_program("initdb") is None or pg_program("pg_ctl") is None:
        return "PostgreSQL is not installed (`make postgres`: Debian's postgresql)"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """A throwaway PostgreSQL cluster: `start`, then `url(database)`, then `stop`.

    `durable=False` (the tests') turns off what only a crash of the machine
    needs (``fsync``, full-page writes, synchronous commit): nothing changes
    for the arena's clients, but a cluster with hundreds of test databases
    stops in a second instead of minutes of flushing. The benchmarks keep the
    default, durable, so that their figures are a real server's.
    """

    def __init__(
        self, initdb: str | None = None, pg_ctl: str | None = None, *, durable: bool = True
    ) -> None:
        self.durable = durable
        self.initdb = initdb or pg_program("initdb") or "initdb"
        self.pg_ctl = pg_ctl or pg_program("pg_ctl") or "pg_ctl"
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
        if not self.durable:
            options += " -c fsync=off -c full_page_writes=off -c synchronous_commit=off"
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
