"""No engine process outlives its player: each fault, each way a run ends (issue 45, item 2).

Real `arena` processes, real signals. The engine is tests/engines/misbehave.c
behind a wrapper that appends its pid to a file before it execs the engine;
the engine runs in a process group of its own, so that pid is also the group.
When the command is over, /proc must hold no live process (a zombie waiting
for init is dead) of any of those groups: not the engine, not the children it
forked, not the arena's watcher. The faults are read from misbehave.c itself,
so a fault added there is covered here.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.arena_cli.cli import ARENA, ROOT, Arena, clean_env, run

SOURCE = ROOT / "tests" / "engines" / "misbehave.c"
#: the seconds a finished command's engines get to be gone (the watcher acts at once;
#: this only bounds a failing test)
GONE_WITHIN = 10.0


def faults() -> list[str]:
    """Every mode misbehave.c knows, with its argument (N = 2: each game meets the fault)."""
    found = re.search(r"MODES\[\] = \{(.*?)\};", SOURCE.read_text(), re.S)
    assert found is not None, "misbehave.c's MODES list moved"
    modes = re.findall(r'"([a-z-]+)"', found.group(1))
    return [argument(mode) for mode in modes]


def argument(mode: str) -> str:
    if mode.endswith("-at"):
        return f"{mode} 2"
    return "slow 50" if mode == "slow" else mode


class Engines:
    """The wrapped misbehave engine and the groups it ran as (all killed at teardown)."""

    def __init__(self, folder: Path, misbehave: str) -> None:
        self.pids = folder / "engine-pids"
        self.program = folder / "engine.sh"
        self.program.write_text(f'#!/bin/sh\necho $$ >> "{self.pids}"\nexec "{misbehave}" "$@"\n')
        self.program.chmod(0o755)

    def spec(self, args: str) -> str:
        return f"engine:cmd={self.program},args={args},name=misbehave"

    def groups(self) -> set[int]:
        try:
            return {int(line) for line in self.pids.read_text().split()}
        except FileNotFoundError:
            return set()

    def alive(self, groups: set[int] | None = None) -> list[str]:
        """Every live process of the engines' groups: ``PID (parent PPID, state S): ARGV``."""
        groups = self.groups() if groups is None else groups
        found = []
        for entry in os.scandir("/proc"):
            if not entry.name.isdigit():
                continue
            try:
                stat = Path(entry.path, "stat").read_text()
                argv = Path(entry.path, "cmdline").read_bytes().replace(b"\0", b" ").decode()
            except OSError:
                continue  # gone meanwhile
            state, ppid, pgrp = stat.rpartition(")")[2].split()[:3]
            if int(pgrp) in groups and state != "Z":
                found.append(f"{entry.name} (parent {ppid}, state {state}): {argv.strip()}")
        return found

    def left_after(self, groups: set[int] | None = None) -> list[str]:
        """What is still alive of the groups once `GONE_WITHIN` has passed ([] at once if none)."""
        deadline = time.monotonic() + GONE_WITHIN
        while (left := self.alive(groups)) and time.monotonic() < deadline:
            time.sleep(0.05)
        return left

    def kill_all(self) -> None:
        for group in self.groups():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(group, signal.SIGKILL)


@pytest.fixture
def wrapped(tmp_path: Path, engines: dict[str, str]) -> Iterator[Engines]:
    wrapper = Engines(tmp_path, engines["misbehave"])
    try:
        yield wrapper
    finally:
        wrapper.kill_all()  # a failing test leaves nothing running either


def wait_until(what: str, ready: Callable[[], bool], seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        assert time.monotonic() < deadline, f"never {what}"
        time.sleep(0.02)


def tournament_args(folder: Path, spec: str, move_time: str, games: int) -> list[str]:
    return [
        "tournament", "tictactoe", "--player", "random", "--player", f"e={spec}",
        "--games-per-pair", str(games), "--move-time", move_time, "--max-failures", "1",
        "--db", str(folder / "arena.sqlite"), "--no-progress",
    ]  # fmt: skip


# --- each fault, each normal end -----------------------------------------------------------

PLAY = ("play", "tictactoe")
#: `arena play`'s options for a run a signal is to stop: it would play on for hours
PLAY_ON = ("--vs", "random", "--games", "1000", "--move-time", "30", "--log-level", "info")
#: commands run at once (they mostly wait: on sockets, on the faults' timeouts)
AT_ONCE = 6


def run_each_fault(
    tmp_path: Path, misbehave: str, command: Callable[[Path, str], list[str]]
) -> dict[str, tuple[subprocess.CompletedProcess[str], Engines]]:
    """`command(folder, spec)` once per fault, a few at a time: fault -> (its run, its engines)."""
    setups = {}
    for fault in faults():
        folder = tmp_path / fault.replace(" ", "-")
        folder.mkdir()
        setups[fault] = (folder, Engines(folder, misbehave))
    try:
        with ThreadPoolExecutor(AT_ONCE) as pool:
            runs = {
                fault: pool.submit(run, *command(folder, wrapped.spec(fault)), timeout=180)
                for fault, (folder, wrapped) in setups.items()
            }
            return {fault: (runs[fault].result(), setups[fault][1]) for fault in setups}
    finally:
        for _, wrapped in setups.values():
            wrapped.kill_all()  # after the checks below have been made (or failed)


def check_each(
    runs: dict[str, tuple[subprocess.CompletedProcess[str], Engines]], codes: tuple[int, ...]
) -> None:
    failures = []
    for fault, (done, wrapped) in runs.items():
        if done.returncode not in codes:
            failures.append(f"{fault}: exit {done.returncode}: {done.stdout}{done.stderr}")
        elif not wrapped.groups():
            failures.append(f"{fault}: the engine never ran")
        elif left := wrapped.left_after():
            failures.append(f"{fault}: left running: {left}")
    assert failures == []


def test_no_engine_process_outlives_a_tournament_whatever_its_fault(
    tmp_path: Path, engines: dict[str, str]
) -> None:
    """The issue's run: the tournament ends (its players SIGTERMed, then killed) right after
    the last game, which the fault may have ended with the engine still being closed."""
    runs = run_each_fault(
        tmp_path,
        engines["misbehave"],
        lambda folder, spec: tournament_args(folder, spec, "0.3", games=2),
    )
    check_each(runs, (0,))


def test_no_engine_process_outlives_arena_play_whatever_its_fault(
    tmp_path: Path, engines: dict[str, str]
) -> None:
    runs = run_each_fault(
        tmp_path,
        engines["misbehave"],
        lambda folder, spec: [*PLAY, spec, "--vs", "random", "--games", "2", "--move-time", "0.3"],
    )
    check_each(runs, (0, 1))  # 1: an engine that fails at its start stops the player


# --- signals ----------------------------------------------------------------------------------

#: a hung engine (the agent's thread is waiting for its answer), and one whose children
#: ignore SIGTERM (it plays on: the run is long enough for the signal to find it playing)
STUCK = ["hang-at 1", "children"]


def engine_busy(fault: str, wrapped: Engines, log: Callable[[], str]) -> Callable[[], bool]:
    """When the engine is stuck in its fault: hanging on a `go`, or its children forked."""
    if fault.startswith("hang-at"):
        return lambda: "hanging at go 1" in log()
    return lambda: len(wrapped.alive()) >= 3  # the engine, its two children (and the watcher)


def player_logs(folder: Path) -> str:
    return "".join(path.read_text(errors="replace") for path in folder.glob("arena-*/e.*.log"))


@pytest.mark.parametrize("fault", STUCK)
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signalled_arena_play_leaves_no_engine_process(
    wrapped: Engines, fault: str, signum: int
) -> None:
    play = Arena(*PLAY, wrapped.spec(fault), *PLAY_ON)
    try:
        wait_until("busy", engine_busy(fault, wrapped, lambda: play.stdout + play.stderr))
        code, _ = play.stop(signum)
    finally:
        play.kill()
    assert code == 128 + signum, play.stdout + play.stderr
    assert wrapped.left_after() == []


@pytest.mark.parametrize("fault", STUCK)
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signalled_tournament_leaves_no_engine_process(
    tmp_path: Path, wrapped: Engines, fault: str, signum: int
) -> None:
    temp = tmp_path / "tmp"  # the tournament's player logs go there
    temp.mkdir()
    tournament = Arena(
        *tournament_args(tmp_path, wrapped.spec(fault), "30", games=1000),
        env=clean_env(TMPDIR=str(temp)),
    )
    try:
        wait_until("busy", engine_busy(fault, wrapped, lambda: player_logs(temp)))
        code, _ = tournament.stop(signum)
    finally:
        tournament.kill()
    assert code == 128 + signum, tournament.stdout + tournament.stderr
    assert wrapped.left_after() == []


def parent_of(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])


@pytest.mark.parametrize("fault", STUCK)
def test_a_killed_player_process_takes_its_engine_along(
    tmp_path: Path, wrapped: Engines, fault: str
) -> None:
    """SIGKILL gives the player no chance to close anything: the engine's watcher ends it."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    tournament = Arena(
        *tournament_args(tmp_path, wrapped.spec(fault), "30", games=1000),
        env=clean_env(TMPDIR=str(temp)),
    )
    try:
        wait_until("busy", engine_busy(fault, wrapped, lambda: player_logs(temp)))
        (first,) = wrapped.groups()
        player = parent_of(first)
        assert b"play" in Path(f"/proc/{player}/cmdline").read_bytes()
        os.kill(player, signal.SIGKILL)
        assert wrapped.left_after({first}) == []  # while the tournament goes on
        code, _ = tournament.stop(signal.SIGTERM)
    finally:
        tournament.kill()
    assert code == 128 + signal.SIGTERM, tournament.stdout + tournament.stderr
    assert wrapped.left_after() == []


@pytest.mark.parametrize("fault", STUCK)
def test_a_killed_arena_play_takes_its_engine_along(wrapped: Engines, fault: str) -> None:
    play = subprocess.Popen(
        [*ARENA, *PLAY, wrapped.spec(fault), *PLAY_ON],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        env=clean_env(),
        start_new_session=True,  # its group holds its opponent too: ended below
    )
    output = play.stdout
    assert output is not None
    try:
        os.set_blocking(output.fileno(), False)
        seen: list[bytes] = []

        def log() -> str:
            seen.append(output.read() or b"")
            return b"".join(seen).decode(errors="replace")

        wait_until("busy", engine_busy(fault, wrapped, log))
        play.kill()
        play.wait()
        assert wrapped.left_after() == []
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(play.pid, signal.SIGKILL)  # its opponent `arena play` too
        play.wait()
