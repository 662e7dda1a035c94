"""A real `arena serve` in a child process, and random players to load it (fault tests)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import trio

from protocol.messages import MatchEnd, MatchStart, Seeking
from tests.server.harness import RawClient, play_randomly

ARENA = [sys.executable, "-m", "arena_cli.main"]


@dataclass
class ServerProcess:
    process: subprocess.Popen[bytes]
    port: int
    db: Path | str
    log: Path | None

    def alive(self) -> bool:
        return self.process.poll() is None

    def signal(self, signum: int) -> int:
        self.process.send_signal(signum)
        return self.process.wait(timeout=30)


def start_server(
    db: Path | str,
    *,
    log: Path | None = None,
    extra: list[str] | None = None,
    stdout: Any = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> ServerProcess:
    """Start `arena serve` on a free port and wait for its 'listening' log line.

    `db` is an SQLite file or a PostgreSQL URL. The log goes to `log` (a file),
    or to `stdout` if given (e.g. a pipe the test owns).
    """
    env = {**os.environ, **(env or {}), "ARENA_LOG_FORMAT": "json", "PYTHONUNBUFFERED": "1"}
    out: IO[bytes] | int
    offset = log.stat().st_size if log is not None and log.exists() else 0
    if stdout is not None:
        out = stdout
    else:
        assert log is not None
        out = open(log, "ab")  # noqa: SIM115 - the child owns it
    process = subprocess.Popen(
        [*ARENA, "serve", "--port", "0", "--db", str(db), *(extra or [])],
        stdout=out,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd or Path(__file__).resolve().parents[2],
    )
    port = _wait_for_port(process, log, offset)
    return ServerProcess(process, port, db, log)


def _wait_for_port(process: subprocess.Popen[bytes], log: Path | None, offset: int) -> int:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            stderr = process.stderr.read().decode() if process.stderr else ""
            raise AssertionError(f"arena serve exited with {process.returncode}: {stderr}")
        lines = []
        if log is not None and log.exists():
            lines = log.read_bytes()[offset:].decode(errors="replace").splitlines()
        elif log is None and process.stdout is not None:
            lines = [process.stdout.readline().decode()]
        for line in lines:
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                if entry.get("event") == "listening":
                    return int(entry["port"])
        time.sleep(0.05)
    raise AssertionError("arena serve did not start listening")


@contextlib.contextmanager
def server_process(db: Path | str, log: Path, **kwargs: Any) -> Iterator[ServerProcess]:
    server = start_server(db, log=log, **kwargs)
    try:
        yield server
    finally:
        if server.alive():
            server.process.send_signal(signal.SIGKILL)
            server.process.wait()


@dataclass
class Outcomes:
    """What the players were told: match id -> (match_end.recorded, end time)."""

    ended: dict[str, tuple[bool, float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


async def random_match(port: int, seed: int, outcomes: Outcomes, game: str = "tictactoe") -> None:
    """Two random players play one match of `game`; their match_end goes to `outcomes`."""

    async def one(name: str, player_seed: int) -> MatchEnd | None:
        client = await RawClient.connect(port)
        try:
            await client.hello(name)
            await client.send({"type": "seek", "game": game, "move_time": 10.0})
            message = await client.receive()
            if not isinstance(message, Seeking):
                outcomes.errors.append(repr(message))
                return None
            await client.expect(MatchStart)
            return await play_randomly(client, player_seed)
        finally:
            await client.aclose()

    ends: list[MatchEnd | None] = []

    async def run(name: str, player_seed: int) -> None:
        ends.append(await one(name, player_seed))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run, f"a{seed}", seed)
        nursery.start_soon(run, f"b{seed}", seed + 1)
    for end in ends:
        if end is None:
            continue
        seen = outcomes.ended.get(end.match)
        if seen is not None and seen[0] != end.recorded:
            outcomes.errors.append(f"{end.match}: players were told different 'recorded'")
        outcomes.ended[end.match] = (end.recorded, time.time())


async def play_matches(port: int, count: int, first_seed: int, outcomes: Outcomes) -> None:
    """`count` matches, 5 at a time (each pair seeks a game of its own name-free kind)."""
    limit = trio.CapacityLimiter(5)

    async def limited(seed: int) -> None:
        async with limit:
            await random_match(port, seed, outcomes)

    async with trio.open_nursery() as nursery:
        for i in range(count):
            nursery.start_soon(limited, first_seed + 2 * i)


def stored(db: Path) -> dict[str, str]:
    """Match id -> status, read with a connection of our own."""
    import sqlite3

    connection = sqlite3.connect(db, timeout=30)
    try:
        return dict(connection.execute("SELECT id, status FROM matches").fetchall())
    finally:
        connection.close()


def integrity(db: Path) -> str:
    import sqlite3

    connection = sqlite3.connect(db, timeout=30)
    try:
        return str(connection.execute("PRAGMA integrity_check").fetchone()[0])
    finally:
        connection.close()
