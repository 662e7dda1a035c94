"""A real `arena serve --web` in a child process, and the system Chromium to look at it.

The browser tests use Debian's `chromium` (installed by `.ci/run` and
`make chromium`), driven by Playwright without any browser download. When it
is missing they skip and say how to install it.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

ARENA = [sys.executable, "-m", "arena_cli.main"]
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(__file__).resolve().parent / "artifacts"


def chromium_path() -> str:
    """The system Chromium, or skip the test saying how to get it.

    With ARENA_REQUIRE_BROWSER=1 (set by .ci/run) a missing browser fails instead.
    """
    for candidate in (os.environ.get("ARENA_CHROMIUM"), "chromium", "chromium-browser"):
        if candidate and (found := shutil.which(candidate)):
            return found
    message = "no system Chromium: install it with `make chromium` (apt-get install chromium)"
    if os.environ.get("ARENA_REQUIRE_BROWSER"):
        pytest.fail(message)
    pytest.skip(message)


@dataclass
class WebServer:
    process: subprocess.Popen[bytes]
    url: str
    tcp_port: int
    log: Path
    db: Path

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=10) as response:
            return json.loads(response.read())


@contextlib.contextmanager
def web_server(tmp: Path, *extra: str, env: dict[str, str] | None = None) -> Iterator[WebServer]:
    """`arena serve --web 127.0.0.1:0` on the database `tmp`/arena.sqlite (new, or as a test
    left it), `env` added to the environment; stopped with SIGINT."""
    log = tmp / "serve.log"
    env = {**os.environ, **(env or {}), "ARENA_LOG_FORMAT": "json", "PYTHONUNBUFFERED": "1"}
    argv = [*ARENA, "serve", "--port", "0", "--db", str(tmp / "arena.sqlite")]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [*argv, "--web", "127.0.0.1:0", *extra],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            cwd=ROOT,
        )
    try:
        url, port = _wait_for_web(process, log)
        yield WebServer(process, url, port, log, tmp / "arena.sqlite")
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_for_web(process: subprocess.Popen[bytes], log: Path) -> tuple[str, int]:
    deadline = time.monotonic() + 30
    url, port = None, None
    while time.monotonic() < deadline:
        for line in log.read_text(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                entry = json.loads(line)
                if entry.get("event") == "listening":
                    port = int(entry["port"])
                elif entry.get("event") == "web_listening":
                    url = str(entry["url"])
        if url and port:
            return url, port
        if process.poll() is not None:
            raise AssertionError(f"arena serve exited with {process.returncode}: {log.read_text()}")
        time.sleep(0.05)
    raise AssertionError(f"arena serve --web did not start: {log.read_text()}")


def start_player(server: WebServer, game: str, agent: str, *args: str) -> subprocess.Popen[bytes]:
    """`arena play` against the server's TCP port (a separate process, over TCP)."""
    return subprocess.Popen(
        [*ARENA, "play", game, agent, "--port", str(server.tcp_port), "--games", "1", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "ARENA_LOG_LEVEL": "warning"},
        cwd=ROOT,
    )


def screenshot(page: Any, name: str) -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path), full_page=True)
    return path
