"""The records database written from a child process: the server's event loop keeps its GIL.

For both backends. Why a process: SQLite releases Python's GIL only inside each statement, so a
writer *thread* takes the GIL back several times per match and the event loop
waits for it each time; measured at 100 concurrent matches, that cost the
server about a third of its moves per second. A child process writes the
same batches on its own interpreter and only the batch (a few kilobytes of
msgpack a few times a second) crosses a pipe.

Nothing else changes: `ProcessWriter` is a `MatchWriter` whose `write` hands the
batch to the child and returns the child's `BatchReport`; everything else
(reads, tournament lookups, imports) uses the server's own `SqliteDatabase`. The
durability contract holds because the child answers only after its COMMIT
returned (WAL, synchronous=FULL).

Faults: a child that dies or stops answering makes that write fail with a
readable error, which the recorder treats like any failed write (records
kept, retried with backoff, journaled); the next write starts a new child.
The child runs in its own session (a terminal's Ctrl-C is for the server,
which then closes the pipe), and exits when the pipe closes, also when the
server was killed: nothing outlives the server.

    python -m store.writer [DB]   # the child: frames on stdin, reports on stdout
                                  # (DB: an SQLite file or a PostgreSQL URL, else $ARENA_WRITER_DB)
"""

from __future__ import annotations

import contextlib
import os
import select
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import IO, Any

import msgspec

from store.errors import StoreError
from store.matches import BatchReport, MatchRecord, MatchWrite, MoveRecord

_HEADER = struct.Struct(">I")
#: the environment variable naming the child's database
WRITER_DB = "ARENA_WRITER_DB"
#: how long a write may take before the child counts as stuck (a lock waits BUSY_TIMEOUT)
ANSWER_TIMEOUT = 30.0


class _Report(msgspec.Struct):
    committed: list[str]
    error: str | None
    superseded: list[str] = msgspec.field(default_factory=list)


_encode = msgspec.msgpack.Encoder().encode
_decode_batch = msgspec.msgpack.Decoder(list[MatchWrite]).decode
_decode_report = msgspec.msgpack.Decoder(_Report).decode


def _send(stream: IO[bytes], body: bytes) -> None:
    stream.write(_HEADER.pack(len(body)) + body)
    stream.flush()


def _receive(stream: IO[bytes]) -> bytes | None:
    """One frame's body, or None at a clean end of the stream."""
    header = stream.read(_HEADER.size)
    if not header:
        return None
    if len(header) < _HEADER.size:
        raise EOFError("the stream ended inside a frame header")
    (length,) = _HEADER.unpack(header)
    body = stream.read(length)
    if len(body) < length:
        raise EOFError("the stream ended inside a frame")
    return body


class ProcessWriter:
    """A `MatchWriter` that writes through a child process and reads through `store`."""

    def __init__(
        self, store: Any, *, target: str | None = None, command: Sequence[str] | None = None
    ) -> None:
        self.store = store
        self.path: str = store.path
        #: what the child opens: the SQLite file, or the PostgreSQL URL (passed in the
        #: child's environment, not its command line, where `ps` would show a password)
        self.target = target or store.path
        #: the child's command line (tests substitute a failing one)
        self.command = list(command or [sys.executable, "-m", "store.writer"])
        self._child: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    # --- the parent side (blocking: called from a worker thread) -------------------

    @property
    def pid(self) -> int | None:
        """The running child's process id, if there is one."""
        child = self._child
        return None if child is None or child.poll() is not None else child.pid

    def start(self) -> None:
        """Start the child now (else the first write does)."""
        with self._lock:
            self._ensure_child()

    def write(self, batch: Sequence[MatchWrite]) -> BatchReport:
        with self._lock:
            try:
                child = self._ensure_child()
                assert child.stdin is not None and child.stdout is not None
                _send(child.stdin, _encode(list(batch)))
                body = _answer_within(child.stdout.fileno(), ANSWER_TIMEOUT)
            except (OSError, EOFError, TimeoutError, ValueError) as exc:
                return BatchReport(frozenset(), self._child_failed(exc))
            report = _decode_report(body)
            return BatchReport(
                frozenset(report.committed), report.error, frozenset(report.superseded)
            )

    def stop(self) -> None:
        """Let the child finish and exit (it ends when its input closes)."""
        with self._lock:
            child, self._child = self._child, None
        if child is None:
            return
        try:
            if child.stdin is not None:
                child.stdin.close()
            child.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            child.kill()
            child.wait()
        finally:
            if child.stdout is not None:
                child.stdout.close()

    def close(self) -> None:
        self.stop()
        self.store.close()

    def _ensure_child(self) -> subprocess.Popen[bytes]:
        child = self._child
        if child is not None and child.poll() is None:
            return child
        if child is not None:
            self._discard(child)
        try:
            child = subprocess.Popen(
                self.command,
                env={**os.environ, WRITER_DB: self.target},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                bufsize=0,  # answers are read with select and os.read
                start_new_session=True,  # Ctrl-C is the server's: it stops us in order
            )
        except OSError as exc:
            raise OSError(f"cannot start the records writer process: {exc}") from None
        self._child = child
        return child

    def _child_failed(self, exc: BaseException) -> str:
        child, self._child = self._child, None
        code = None
        if child is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = child.wait(timeout=0 if isinstance(exc, TimeoutError) else 1.0)
            self._discard(child)
        how = f"exited with {code}" if code is not None else f"failed: {exc}"
        return f"the records writer process {how}; a new one starts with the next write"

    @staticmethod
    def _discard(child: subprocess.Popen[bytes]) -> None:
        if child.poll() is None:
            child.kill()
        child.wait()
        for stream in (child.stdin, child.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    # --- everything else: the server's own connection ------------------------------

    def find_tournament_game(self, tournament: str, index: int, owner: str) -> MatchRecord | None:
        result: MatchRecord | None = self.store.find_tournament_game(tournament, index, owner)
        return result

    def import_match(self, record: MatchRecord, moves: Sequence[MoveRecord]) -> bool:
        return bool(self.store.import_match(record, moves))

    def abort_running(self, reason: str) -> int:
        return int(self.store.abort_running(reason))


def _answer_within(fd: int, timeout: float) -> bytes:
    """The child's next frame; TimeoutError if none comes in time, EOFError if it died."""
    deadline = time.monotonic() + timeout
    (length,) = _HEADER.unpack(_read_exactly(fd, _HEADER.size, deadline))
    return _read_exactly(fd, length, deadline)


def _read_exactly(fd: int, count: int, deadline: float) -> bytes:
    data = b""
    while len(data) < count:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            raise TimeoutError(f"no answer within {ANSWER_TIMEOUT:g}s")
        chunk = os.read(fd, count - len(data))
        if not chunk:
            raise EOFError("it closed its output")
        data += chunk
    return data


# --- the child ---------------------------------------------------------------------


def main(argv: list[str]) -> int:
    from store.open import open_database  # the child needs its database, not trio

    target = argv[0] if len(argv) == 1 else os.environ.get(WRITER_DB)
    if len(argv) > 1 or not target:
        print(f"usage: python -m store.writer [DB]  (else ${WRITER_DB})", file=sys.stderr)
        return 2
    try:
        store = open_database(target)
    except StoreError as exc:
        print(f"records writer: {exc}", file=sys.stderr)
        return 1
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    try:
        while (body := _receive(stdin)) is not None:
            report = store.write(_decode_batch(body))
            answer = _Report(sorted(report.committed), report.error, sorted(report.superseded))
            _send(stdout, _encode(answer))
    except (EOFError, BrokenPipeError):
        pass  # the server is gone: nothing is waiting for an answer
    finally:
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
