"""The engine's process: started in a group of its own, read with bounds, always ended whole.

Why synchronous, with two reader threads, and not Trio's process API: the
`Agent` interface is synchronous (the runtime calls `choose` in a worker
thread) and agents also play in-process (`play_local_game`, `arena engines
check`, benchmarks) where no event loop runs. A reader thread per pipe keeps
the engine's output flowing into a bounded queue, so a deadline is a plain
`queue.get(timeout=...)` and nothing blocks on a pipe without one.

Bounds: a line is at most `MAX_LINE` bytes; one answer (the lines between two
`begin_answer` calls) at most `MAX_ANSWER_BYTES` and `MAX_ANSWER_LINES`; the
queue holds `QUEUE_LINES` lines, so a flooding engine blocks on its own
pipe until the reader gives up on it. Standard error goes to the log, a
line per event, at most `MAX_STDERR_LINES` per game (the rest are counted);
its last `STDERR_TAIL` lines are kept to show beside a fault (`engines check`).

Every exit path ends the whole process group: `close` sends the protocol's
quit line, waits `grace` seconds for the engine to exit, then sends SIGTERM to
the group, waits, then SIGKILL to the group (children left behind included),
and reaps the engine, so no zombie is left.

Why a watcher, and not PR_SET_PDEATHSIG: the player process itself may end
without running `close` (SIGKILL, a SIGTERM it does not catch, an interpreter
exit while a worker thread is still closing an abandoned engine). A parent-death
signal set in the child fires when the *thread* that started it exits (and
engines are started from worker threads that retire), and reaches the engine
alone, not the children it leaves in its group. So each engine gets a watcher:
a `/bin/sh` in the engine's own process group whose standard input is a pipe
only this process writes to. When this process ends, however it ends, the
kernel closes that pipe, the watcher reads end-of-file and sends SIGKILL to its
own group (`kill -KILL 0`): the engine, its children and itself. Being in the
group, it is ended by `close` with everything else, and being our child it is
reaped by us. The engine has its own process group in our session (not a
session of its own: a process can join only a group of its own session); a
terminal's Ctrl-C still reaches only the foreground group, never the engine.
"""

from __future__ import annotations

import collections
import contextlib
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from typing import IO, Any

import structlog

from player.engines.errors import (
    EngineExited,
    EngineFlood,
    EngineInterrupted,
    EngineStartError,
    EngineTimeout,
)

log = structlog.get_logger("player.engines")

MAX_LINE = 64 * 1024
MAX_ANSWER_BYTES = 1024 * 1024
MAX_ANSWER_LINES = 10_000
QUEUE_LINES = 64
MAX_STDERR_LINES = 500
STDERR_LINE = 500
STDERR_TAIL = 5
#: how often a wait checks whether the runtime gave up on the answer
POLL = 0.1

_EOF = object()


class _TooLong:
    """The reader's marker for a line over `MAX_LINE` bytes."""


def describe_status(code: int | None) -> str:
    """``exited (code 3)`` / ``killed by signal 9`` / ``still running`` for a return code."""
    if code is None:
        return "still running"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        return f"killed by {name} ({-code})"
    return f"exited (code {code})"


#: seconds a reader may take to drain a dead engine's pipe at close
READER_DRAIN = 5.0
#: the watcher: at end-of-file on its stdin (this process is gone) it kills its group
WATCHER = "trap '' HUP INT TERM; read -r _; kill -KILL 0"


class EngineProcess:
    """One run of an engine program; `close` it on every path (it is idempotent)."""

    def __init__(self, argv: Sequence[str], *, cwd: str | None = None, label: str = "") -> None:
        if not argv:
            raise EngineStartError("no program to run (cmd is empty)")
        self.argv = list(argv)
        self.cwd = cwd
        self.label = label or os.path.basename(self.argv[0])
        self._log = log.bind(engine=self.label)
        self._lines: queue.Queue[str | object] = queue.Queue(QUEUE_LINES)
        self._answer_bytes = 0
        self._answer_lines = 0
        self._stderr_lines = 0
        self._stderr_dropped = 0
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL)
        self._closed = False
        self._lock = threading.Lock()
        try:
            self._proc: subprocess.Popen[bytes] = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                process_group=0,  # its own process group: ended whole
                close_fds=True,
            )
        except FileNotFoundError:
            where = f" in {cwd!r}" if cwd else ""
            raise EngineStartError(
                f"cannot start {self.argv[0]!r}{where}: no such program"
            ) from None
        except PermissionError:
            raise EngineStartError(f"cannot start {self.argv[0]!r}: not executable") from None
        except OSError as exc:
            raise EngineStartError(f"cannot start {self.argv[0]!r}: {exc.strerror}") from None
        self.pid = self._proc.pid
        self._watcher, self._lifeline = self._start_watcher()
        assert self._proc.stdout is not None and self._proc.stderr is not None
        self._readers = [
            threading.Thread(
                target=self._read_stdout, args=(self._proc.stdout,), daemon=True, name="engine-out"
            ),
            threading.Thread(
                target=self._read_stderr, args=(self._proc.stderr,), daemon=True, name="engine-err"
            ),
        ]
        for reader in self._readers:
            reader.start()
        self._log.info("engine_started", pid=self.pid, argv=self.argv, cwd=cwd)

    def _start_watcher(self) -> tuple[subprocess.Popen[bytes], int]:
        """The watcher in the engine's group, and our end of its pipe (see the docstring)."""
        read_end, write_end = os.pipe()  # not inherited by any other child (O_CLOEXEC)
        try:
            watcher = subprocess.Popen(
                ["/bin/sh", "-c", WATCHER],
                stdin=read_end,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                process_group=self.pid,
                close_fds=True,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            os.close(write_end)
            self._signal_group(signal.SIGKILL)
            self._proc.wait()
            raise EngineStartError(f"cannot watch {self.argv[0]!r}: {exc}") from None
        finally:
            os.close(read_end)
        return watcher, write_end

    # --- the two readers -------------------------------------------------------------

    def _read_stdout(self, pipe: IO[bytes]) -> None:
        try:
            while True:
                raw = pipe.readline(MAX_LINE + 1)
                if not raw:
                    break
                if len(raw) > MAX_LINE and not raw.endswith(b"\n"):
                    self._put(_TooLong())
                    return  # the engine is ended for it; stop reading its flood
                self._put(raw.decode("utf-8", "replace").rstrip("\r\n"))
        except (OSError, ValueError):
            pass  # the pipe was closed under us by `close`
        self._put(_EOF)

    def _put(self, item: str | object) -> None:
        while not self._closed:
            try:
                self._lines.put(item, timeout=POLL)
                return
            except queue.Full:
                continue

    def _read_stderr(self, pipe: IO[bytes]) -> None:
        try:
            while True:
                raw = pipe.readline(STDERR_LINE * 4)
                if not raw:
                    return
                text = raw.decode("utf-8", "replace").rstrip("\r\n")[:STDERR_LINE]
                self._stderr_tail.append(text)
                if self._stderr_lines >= MAX_STDERR_LINES:
                    self._stderr_dropped += 1
                    continue
                self._stderr_lines += 1
                self._log.info("engine_stderr", line=text)
        except (OSError, ValueError):
            return

    def stderr_tail(self) -> tuple[str, ...]:
        """The last lines the engine wrote to its standard error (all of them once closed)."""
        return tuple(self._stderr_tail)

    def new_game(self) -> None:
        """Reset the per-game stderr budget (and say how many lines were not logged)."""
        if self._stderr_dropped:
            self._log.info("engine_stderr_dropped", lines=self._stderr_dropped)
        self._stderr_lines = self._stderr_dropped = 0

    # --- talking -------------------------------------------------------------------

    def send(self, line: str) -> None:
        """Write one line to the engine (EngineExited if it is gone)."""
        stdin = self._proc.stdin
        if stdin is None or self._closed:
            raise EngineExited("engine was already ended")
        try:
            stdin.write(line.encode() + b"\n")
            stdin.flush()
        except (BrokenPipeError, ConnectionResetError, ValueError):
            raise EngineExited(f"engine {self.exit_status(wait=0.5)}") from None

    def begin_answer(self) -> None:
        """Start counting a new answer against the flood limits."""
        self._answer_bytes = self._answer_lines = 0

    def read_line(self, deadline: float, abort: threading.Event | None = None) -> str:
        """The engine's next line, by `deadline` (a `time.monotonic()` value).

        Raises EngineTimeout at the deadline, EngineInterrupted if `abort` is set,
        EngineExited at the end of its output, EngineFlood past the limits.
        """
        while True:
            remaining = deadline - time.monotonic()
            if abort is not None and abort.is_set():
                raise EngineInterrupted("the answer is no longer wanted")
            if remaining <= 0:
                raise EngineTimeout("engine did not answer in time")
            try:
                item = self._lines.get(timeout=min(remaining, POLL) if abort else remaining)
            except queue.Empty:
                continue
            if item is _EOF:
                self._lines.put_nowait(_EOF)  # every later read sees the end too
                raise EngineExited(f"engine {self.exit_status(wait=0.5)}")
            if isinstance(item, _TooLong):
                raise EngineFlood(f"engine flooded its output (a line over {MAX_LINE} bytes)")
            assert isinstance(item, str)
            self._answer_lines += 1
            self._answer_bytes += len(item) + 1
            if self._answer_lines > MAX_ANSWER_LINES or self._answer_bytes > MAX_ANSWER_BYTES:
                raise EngineFlood(
                    f"engine flooded its output (over {MAX_ANSWER_LINES} lines or"
                    f" {MAX_ANSWER_BYTES // 1024} KiB in one answer)"
                )
            return item

    # --- ending ---------------------------------------------------------------------

    @property
    def running(self) -> bool:
        """Whether the engine's own process has not exited."""
        return not self._closed and self._proc.poll() is None

    def exit_status(self, wait: float = 0.0) -> str:
        """``exited (code 3)`` etc., waiting up to `wait` seconds for the process to end."""
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._proc.wait(timeout=wait)
        return describe_status(self._proc.returncode)

    def close(self, quit_line: str | None = None, grace: float = 1.0) -> None:
        """End the engine: `quit_line`, `grace` seconds, SIGTERM, 0.5 s, SIGKILL to the group."""
        with self._lock:
            if self._closed:
                return
            if quit_line is not None and self._proc.poll() is None:
                with contextlib.suppress(Exception):
                    self.send(quit_line)
            self._closed = True
            exited = self._wait(grace)
            if not exited:
                self._signal_group(signal.SIGTERM)
                exited = self._wait(0.5)
            # stragglers and the watcher too, even after a clean exit
            self._signal_group(signal.SIGKILL)
            self._proc.wait()
            self._watcher.wait()
            os.close(self._lifeline)
            self._wait_group_gone(3.0)  # killed stragglers are reaped by init (zombies till then)
            if self._proc.stdin is not None:
                with contextlib.suppress(OSError):
                    self._proc.stdin.close()
            # A reader still inside readline holds its pipe's lock: closing the pipe would
            # wait for it. The group is dead, so its end of the pipe is normally closed
            # and the readers finish; one held open by an escaped grandchild is left to
            # its daemon thread rather than hang the arena. A reader drains what the
            # engine wrote before it died (on a loaded machine that can take seconds).
            for reader, pipe in zip(
                self._readers, (self._proc.stdout, self._proc.stderr), strict=True
            ):
                reader.join(timeout=READER_DRAIN)
                if not reader.is_alive() and pipe is not None:
                    with contextlib.suppress(OSError):
                        pipe.close()
            if self._stderr_dropped:
                self._log.info("engine_stderr_dropped", lines=self._stderr_dropped)
            self._log.info(
                "engine_ended",
                pid=self.pid,
                status=describe_status(self._proc.returncode),
                clean=exited,
            )

    def _wait(self, seconds: float) -> bool:
        try:
            self._proc.wait(timeout=seconds)
            return True
        except subprocess.TimeoutExpired:
            return False

    def group_alive(self) -> bool:
        """Whether any process of the engine's group still exists (a zombie counts)."""
        try:
            os.killpg(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True

    def _wait_group_gone(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        while self.group_alive() and time.monotonic() < end:
            time.sleep(0.01)

    def _signal_group(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signum)

    def __enter__(self) -> EngineProcess:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
