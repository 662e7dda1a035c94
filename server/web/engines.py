"""Engines on request: `arena play` processes launched for a human who wants an opponent.

Why processes: server and player code stay apart (the server never imports
`player/`). An engine is an ordinary protocol client: the launcher starts
``arena play GAME SPEC --room ROOM --seat S --games 1`` against the server's
own TCP port, and the page joins the same fresh room, so the two are paired
with each other and nobody else. Only the specs the operator configured
(``--engine``) can be launched, at most `engine_limit` at a time; an engine
whose human never comes is stopped after `engine_wait` seconds.
"""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog
import trio

from server.errors import EngineError as EngineError

log = structlog.get_logger("arena.web")


@dataclass(frozen=True, slots=True)
class EngineRequest:
    engine: str
    game: str
    options: dict[str, Any]
    move_time: float | None
    seat: int  # the engine's seat in the room


def arena_command() -> list[str]:
    """How to run `arena` from this process: the installed script, else the module."""
    script = os.path.join(os.path.dirname(sys.executable), "arena")
    if os.access(script, os.X_OK):
        return [script]
    found = shutil.which("arena")
    if found:
        return [found]
    return [sys.executable, "-m", "arena_cli.main"]


class EngineLauncher:
    """Runs engine processes in its own nursery (`run`), bounded by `limit`."""

    def __init__(
        self,
        engines: dict[str, str],
        *,
        address: Callable[[], tuple[str, int]],
        room_waiting: Callable[[str], bool],
        limit: int = 4,
        wait: float = 60.0,
        command: list[str] | None = None,
    ) -> None:
        self.engines = dict(engines)
        self._address = address
        self._room_waiting = room_waiting
        self.limit = limit
        self.wait = wait
        self.command = command or arena_command()
        self.running: dict[str, EngineRequest] = {}
        self._nursery: trio.Nursery | None = None

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started()
            await trio.sleep_forever()

    def launch(self, request: EngineRequest) -> str:
        """Start an engine for `request`; returns the room the human must join."""
        spec = self.engines.get(request.engine)
        if spec is None:
            offered = ", ".join(sorted(self.engines)) or "none"
            raise EngineError(400, f"unknown engine {request.engine!r} (offered: {offered})")
        if len(self.running) >= self.limit:
            raise EngineError(429, f"all {self.limit} engines are busy; try again when a game ends")
        if self._nursery is None:
            raise EngineError(503, "engines are not running")
        room = f"web-{secrets.token_hex(6)}"
        self.running[room] = request
        self._nursery.start_soon(self._play, room, spec, request)
        return room

    def argv(self, room: str, spec: str, request: EngineRequest) -> list[str]:
        host, port = self._address()
        argv = [
            *self.command,
            "play", request.game, spec,
            "--host", host,
            "--port", str(port),
            "--room", room,
            "--seat", str(request.seat),
            "--games", "1",
            "--name", request.engine,
            "--connect-wait", "10",
        ]  # fmt: skip
        if request.move_time is not None:
            argv += ["--move-time", repr(request.move_time)]
        for key, value in request.options.items():
            argv += ["--option", f"{key}={value}"]
        return argv

    async def _play(self, room: str, spec: str, request: EngineRequest) -> None:
        argv = self.argv(room, spec, request)
        env = {**os.environ, "ARENA_LOG_LEVEL": "warning"}
        log.info("engine_started", room=room, engine=request.engine, game=request.game)
        try:
            async with trio.open_nursery() as nursery:
                run = functools.partial(
                    trio.run_process,
                    argv,
                    check=False,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    env=env,
                )
                process: trio.Process = await nursery.start(run)
                nursery.start_soon(self._watch_room, room, process)
                assert process.stderr is not None
                tail = await _tail(process.stderr)
                code = await process.wait()
                nursery.cancel_scope.cancel()
            if code != 0:
                log.warning("engine_failed", room=room, code=code, stderr=tail)
            else:
                log.info("engine_done", room=room)
        finally:
            self.running.pop(room, None)

    async def _watch_room(self, room: str, process: trio.Process) -> None:
        """Stop the engine if its human has not joined within `wait` seconds."""
        await trio.sleep(self.wait)
        if self._room_waiting(room):
            log.info("engine_abandoned", room=room)
            process.terminate()


async def _tail(stream: trio.abc.ReceiveStream, keep: int = 2000) -> str:
    """Read a stream to its end; keep its last `keep` characters."""
    data = bytearray()
    while chunk := await stream.receive_some(65536):
        data += chunk
        del data[:-keep]
    return data.decode(errors="replace").strip()
