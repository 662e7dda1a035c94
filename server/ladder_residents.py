"""Resident bots: agents the server runs itself as players of its ladders (docs/LADDER.md).

Why child processes of `arena play`: a resident is an ordinary bot. The
server starts ``arena play GAME AGENTSPEC --ladder NAME --name BOT`` against
its own port, so a resident plays through the same client, engine adapters
and protocol as any bot from elsewhere (the server never imports `player`),
and a resident that misbehaves harms its own process only. Each resident is
supervised by a task of the server's nursery, started once the server
listens:

* restarted whenever its process exits, after a pause that doubles from
  `BACKOFF_FIRST` to `BACKOFF_MAX` seconds and starts again from
  `BACKOFF_FIRST` once a process lived `HEALTHY` seconds; each exit is
  logged (``resident_exited``, with the last lines of its standard error)
  and counted (``restarts`` in the ladder's API). An engine that crashes
  mid-game is not a process exit: the game is lost as a ``crash``, and the
  player restarts its engine for the next game, as any bot's does;
* who it is: its name is reserved on this server for the process the
  server started, which proves it with a random key made at start
  (`keys`, given to the child alone, as ``ARENA_PASSWORD`` in its
  environment), on either ``accounts`` mode (server/accounts.py);
* where it connects from: the loopback address (or the address the server
  listens on, when it is one), which the server adds to its trusted
  addresses, so that many residents are never refused by the per-address
  connection cap or message rate (server/limits.py).

No resident outlives the server. A stop (SIGINT, SIGTERM, a cancelled
nursery) ends each resident's process group: SIGTERM, then SIGKILL after
`STOP_GRACE` seconds, and reaps it. For a server that is killed outright
(SIGKILL), each resident runs under a watcher, a ``/bin/sh`` in the
resident's process group whose standard input is a pipe only the server
writes to: when the server is gone, however it went, the kernel closes the
pipe, the watcher reads end-of-file and sends SIGKILL to its own group. Why
not PR_SET_PDEATHSIG: Trio starts child processes from a worker thread, and
a parent-death signal fires when that *thread* exits (Trio retires idle
worker threads after seconds), and it reaches one process, not its group.
The engines a resident starts die with it (player/engines/process.py: each
engine has a watcher of its own on a pipe from its player). Where
``/bin/sh`` is missing, the resident runs without a watcher; it still gives
up on its own once the server has not answered for `CONNECT_WAIT` seconds.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import structlog
import trio

from server.config import LOOPBACK, ServerConfig
from server.ladder_spec import LadderSpec, ResidentSpec

log = structlog.get_logger("arena.server")

#: seconds before the first restart; doubled after each quick exit, up to `BACKOFF_MAX`
BACKOFF_FIRST = 1.0
BACKOFF_MAX = 30.0
#: a process that lived this long was healthy: the next pause is `BACKOFF_FIRST` again
HEALTHY = 60.0
#: seconds a resident gets to exit after SIGTERM before SIGKILL
STOP_GRACE = 1.0
#: seconds a resident keeps trying to reach a server that does not answer, then exits
CONNECT_WAIT = 10.0
#: characters of a resident's standard error kept for the log line of its exit
TAIL = 2000
#: the caller's settings a resident inherits (an engines file for ``engine:NAME``); the
#: other ARENA_* variables would change what `arena play` does
KEEP_ENV = frozenset({"ARENA_ENGINES"})
SHELL = "/bin/sh"
#: the watcher: standard input (the server's pipe) moves to fd 3, kept by a background
#: reader that kills the whole group at end-of-file; the resident runs without it
WATCHER = 'exec 3<&0 </dev/null; { read _ <&3; kill -KILL 0; } >/dev/null 2>&1 & exec "$@" 3<&-'


def next_pause(pause: float, lived: float) -> tuple[float, float]:
    """(the pause before this restart, the one after the next quick exit), given the pause
    a quick exit would have now and how long the process lived."""
    if lived >= HEALTHY:
        pause = BACKOFF_FIRST
    return pause, min(pause * 2, BACKOFF_MAX)


def connect_host(host: str) -> str:
    """Where a resident reaches a server that listens on `host`: loopback for a wildcard
    or ``localhost``, else that address."""
    if host in ("", "0.0.0.0", "localhost"):
        return "127.0.0.1"
    if host == "::":
        return "::1"
    return host


def resident_sources(host: str) -> tuple[str, ...]:
    """The addresses residents connect from: loopback, and the server's own address when
    it listens on one (an IP address; a host name is left to ``--trusted-address``)."""
    target = connect_host(host)
    try:
        address = ipaddress.ip_address(target)
    except ValueError:
        return LOOPBACK
    return LOOPBACK if address.is_loopback else (*LOOPBACK, str(address))


def exit_text(code: int) -> str:
    """``exit code 1`` or ``signal SIGKILL``."""
    if code >= 0:
        return f"exit code {code}"
    try:
        return f"signal {signal.Signals(-code).name}"
    except ValueError:
        return f"signal {-code}"


@dataclass(eq=False)
class Resident:
    """One resident bot and what its supervisor knows of it."""

    ladder: LadderSpec
    spec: ResidentSpec
    restarts: int = 0
    pid: int | None = None
    last_exit: str | None = None

    @property
    def bot(self) -> str:
        return self.spec.bot

    def as_json(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "running": self.pid is not None,
            "restarts": self.restarts,
            "last_exit": self.last_exit,
        }


class Residents:
    """Every ladder's resident bots; `run` starts and supervises them."""

    def __init__(self, ladders: Sequence[LadderSpec], *, command: Sequence[str] = ()) -> None:
        self.residents = [Resident(ladder, spec) for ladder in ladders for spec in ladder.residents]
        #: each resident's name, with the key its process proves itself with
        self.keys = {resident.bot: secrets.token_urlsafe(24) for resident in self.residents}
        #: how to run `arena` (tests may name another interpreter)
        self.command = list(command) or [sys.executable, "-m", "arena_cli.main"]

    @classmethod
    def of(cls, config: ServerConfig) -> Residents | None:
        """The residents of `config`'s ladders; None when there are none."""
        if not any(ladder.residents for ladder in config.ladders):
            return None
        return cls(config.ladders)

    @staticmethod
    def trusting(config: ServerConfig) -> ServerConfig:
        """`config` with the addresses residents connect from among its trusted addresses."""
        added = [a for a in resident_sources(config.host) if a not in config.trusted_addresses]
        return replace(config, trusted_addresses=(*config.trusted_addresses, *added))

    def view(self, ladder: str) -> list[dict[str, Any]]:
        """The ladder's residents for the API: running or not, restarts, last exit."""
        return [r.as_json() for r in self.residents if r.ladder.name == ladder]

    def argv(self, resident: Resident, host: str, port: int) -> list[str]:
        argv = [
            *self.command,
            "--log-format", "json",
            "play", resident.ladder.game, resident.spec.agent,
            "--host", host,
            "--port", str(port),
            "--name", resident.bot,
            "--ladder", resident.ladder.name,
            "--connect-wait", f"{CONNECT_WAIT:g}",
        ]  # fmt: skip
        for key, value in resident.ladder.options:
            argv += ["--option", f"{key}={value}"]
        if os.path.exists(SHELL):
            argv = [SHELL, "-c", WATCHER, "arena-resident", *argv]
        return argv

    def env(self, resident: Resident) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("ARENA_") or key in KEEP_ENV
        }
        env.update(ARENA_PASSWORD=self.keys[resident.bot], ARENA_LOG_LEVEL="warning")
        return env

    async def run(self, host: str, port: int) -> None:
        """Supervise every resident, connecting to `host:port`, until cancelled."""
        target = connect_host(host)
        async with trio.open_nursery() as nursery:
            for resident in self.residents:
                nursery.start_soon(
                    self._supervise,
                    resident,
                    target,
                    port,
                    name=f"resident {resident.ladder.name}/{resident.bot}",
                )

    async def _supervise(self, resident: Resident, host: str, port: int) -> None:
        pause = BACKOFF_FIRST
        while True:
            started = trio.current_time()
            try:
                code, tail = await self._run_once(resident, host, port)
                resident.last_exit = exit_text(code)
            except OSError as exc:  # e.g. the interpreter is gone: tried again, as an exit
                resident.last_exit, tail = f"cannot start: {exc.strerror or exc}", ""
            lived = trio.current_time() - started
            wait, pause = next_pause(pause, lived)
            resident.restarts += 1
            log.warning(
                "resident_exited",
                ladder=resident.ladder.name,
                bot=resident.bot,
                exit=resident.last_exit,
                lived=round(lived, 1),
                restarts=resident.restarts,
                restart_in=wait,
                stderr=tail[-500:],
            )
            await trio.sleep(wait)

    async def _run_once(self, resident: Resident, host: str, port: int) -> tuple[int, str]:
        """Run the resident's process to its exit: (its return code, its stderr's end)."""
        watch_read, watch_write = os.pipe()  # not inherited: fd 0 of this child only
        try:
            try:
                process = await trio.lowlevel.open_process(
                    self.argv(resident, host, port),
                    stdin=watch_read,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    env=self.env(resident),
                    start_new_session=True,  # its own group: ended whole; no terminal signals
                )
            finally:
                os.close(watch_read)
            resident.pid = process.pid
            log.info(
                "resident_started", ladder=resident.ladder.name, bot=resident.bot, pid=process.pid
            )
            try:
                return await _wait(process)
            finally:
                resident.pid = None
                with trio.CancelScope(shield=True):
                    await _end_group(process)
        finally:
            os.close(watch_write)  # a watcher left behind ends its group


async def _wait(process: trio.Process) -> tuple[int, str]:
    """The process's return code and the end of its standard error."""
    kept = bytearray()
    read_all = trio.Event()

    async def read(stream: trio.abc.ReceiveStream) -> None:
        try:
            while chunk := await stream.receive_some(65536):
                kept.extend(chunk)
                del kept[:-TAIL]
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass
        finally:
            read_all.set()

    assert process.stderr is not None
    async with trio.open_nursery() as nursery:
        nursery.start_soon(read, process.stderr)
        code = await process.wait()
        # the rest of its output, unless a child it left behind still holds the pipe
        with trio.move_on_after(0.5):
            await read_all.wait()
        nursery.cancel_scope.cancel()
    return code, kept.decode(errors="replace").strip()


async def _end_group(process: trio.Process) -> None:
    """SIGTERM to the process's group, SIGKILL after `STOP_GRACE`; reaped (if running)."""
    if process.returncode is None:
        _signal_group(process, signal.SIGTERM)
        with trio.move_on_after(STOP_GRACE):
            await process.wait()
        if process.returncode is None:
            _signal_group(process, signal.SIGKILL)
            await process.wait()
    if process.stderr is not None:
        await process.stderr.aclose()


def _signal_group(process: trio.Process, signum: signal.Signals) -> None:
    killpg = getattr(os, "killpg", None)
    try:
        if killpg is not None:
            killpg(process.pid, signum)  # its own session: the group's id is its pid
        else:
            process.send_signal(signum)
    except (ProcessLookupError, PermissionError):
        pass
