"""Running `arena` as a user does: a child process, its output, real signals."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[2]
ARENA = [sys.executable, "-m", "arena_cli.main"]


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without the caller's ARENA_* settings, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    env.update(PYTHONUNBUFFERED="1", COLUMNS="100", **extra)
    return env


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Arena:
    """One `arena` child process; its output is collected as it comes."""

    def __init__(self, *args: str, cwd: Path = ROOT, env: dict[str, str] | None = None) -> None:
        self.args = args
        self.process = subprocess.Popen(
            [*ARENA, *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            cwd=cwd,
            env=env or clean_env(),
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, args=(self.process.stdout, self.out), daemon=True),
            threading.Thread(target=self._read, args=(self.process.stderr, self.err), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(stream: object, lines: list[str]) -> None:
        for raw in iter(stream.readline, b""):  # type: ignore[attr-defined]
            lines.append(raw.decode(errors="replace"))

    @property
    def stdout(self) -> str:
        return "".join(self.out)

    @property
    def stderr(self) -> str:
        return "".join(self.err)

    def wait_for(self, text: str, timeout: float = 30.0) -> None:
        """Until `text` appears in stdout or stderr (AssertionError after `timeout`)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.stdout or text in self.stderr:
                return
            if self.process.poll() is not None:
                time.sleep(0.1)  # the readers' last lines
                if text in self.stdout or text in self.stderr:
                    return
                break
            time.sleep(0.02)
        raise AssertionError(
            f"{text!r} not seen from arena {' '.join(self.args)}"
            f" (exit {self.process.poll()}):\n{self.stdout}\n{self.stderr}"
        )

    def stop(self, signum: int) -> tuple[int, float]:
        """Send `signum`; the exit code and the seconds it took to exit."""
        sent = time.monotonic()
        self.process.send_signal(signum)
        code = self.process.wait(timeout=30)
        took = time.monotonic() - sent
        for reader in self._readers:
            reader.join(timeout=5)
        return code, took

    def finish(self, timeout: float = 60.0) -> int:
        code = self.process.wait(timeout=timeout)
        for reader in self._readers:
            reader.join(timeout=5)
        return code

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()


@contextmanager
def arena(*args: str, **kwargs: object) -> Iterator[Arena]:
    """`Arena(...)`, killed at the end if still running."""
    proc = Arena(*args, **kwargs)  # type: ignore[arg-type]
    try:
        yield proc
    finally:
        proc.kill()


def run(*args: str, env: dict[str, str] | None = None, cwd: Path = ROOT, timeout: float = 60.0):
    """Run `arena ARGS` to its end; the completed process (text output)."""
    return subprocess.run(
        [*ARENA, *args],
        capture_output=True,
        text=True,
        env=env or clean_env(),
        cwd=cwd,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def terminal(
    *args: str, env: dict[str, str] | None = None, cwd: Path = ROOT, timeout: float = 60.0
) -> pexpect.spawn[str]:
    """`arena ARGS` in a pseudo-terminal (100 columns), as a person runs it."""
    return pexpect.spawn(
        ARENA[0],
        [*ARENA[1:], *args],
        cwd=str(cwd),
        env=env or clean_env(),
        encoding="utf-8",
        timeout=timeout,
        dimensions=(40, 100),
    )


def seen(child: pexpect.spawn[str]) -> str:
    """What `child` printed before its last match."""
    return child.before or ""
