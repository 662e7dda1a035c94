"""Running a tournament from the command line: embedded server, player processes, signals.

The director (`tournament.director`) only talks to a server. This module
provides the rest of a local run: an embedded server unless ``--server`` is
given, one `arena play` process per local player instance (restarted when it
dies, the player withdrawn when it keeps dying), and a clean stop on SIGINT or
SIGTERM: the games under way are aborted (they are played again on resume),
the player processes are ended, and `run_tournament` returns the signal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import trio

from arena_cli.children import ender
from server.app import ArenaServer
from server.config import LOOPBACK, MatchPolicy, ServerConfig
from store.open import open_database
from tournament.config import TournamentConfig, TournamentPlayer
from tournament.director import FAILURES, TournamentDirector, TournamentError
from tournament.results import GameResult, TournamentRecords

__all__ = ["Outcome", "Run", "player_command", "run_tournament"]

#: seconds a player process gets to exit after SIGTERM before SIGKILL (it has nothing to
#: save: the server records its games, and an interrupted game is played again)
STOP_GRACE = 0.3


@dataclass
class Run:
    """Everything the running tournament shares between its tasks."""

    config: TournamentConfig
    records: TournamentRecords
    secrets: dict[str, str]
    concurrency: int
    max_failures: int
    log_dir: Path
    note: Callable[[str], None]  # a message for the user (rich markup)
    on_result: Callable[[TournamentDirector, GameResult], None]
    director: TournamentDirector | None = None
    crashes: dict[str, int] = field(default_factory=dict)
    finished: bool = False

    def is_finished(self) -> bool:
        return self.finished


@dataclass
class Outcome:
    """How `run_tournament` ended: all games played, or stopped by a signal."""

    results: dict[int, GameResult]
    signal: int | None = None


def player_command(
    config: TournamentConfig, player: TournamentPlayer, host: str, port: int, pool: str
) -> list[str]:
    assert player.spec is not None
    command = [
        sys.executable,
        "-m",
        "arena_cli.main",
        "--log-format",
        "json",
        "play",
        config.game,
        player.spec,
        "--host",
        host,
        "--port",
        str(port),
        "--name",
        player.name,
        "--pool",
        pool,
        "--games",
        "0",
        "--move-time",
        str(config.move_time),
        "--connect-wait",
        "10",
    ]
    for key, value in config.options.items():
        command += ["-o", f"{key}={value}"]
    return command


async def supervise(
    run: Run, player: TournamentPlayer, instance: int, host: str, port: int, pool: str
) -> None:
    """Run one player process; restart it when it dies, withdraw the player if it keeps dying."""
    log_path = run.log_dir / f"{player.name.replace('/', '_')}.{instance}.log"
    env = dict(os.environ, ARENA_SECRET=run.secrets[player.name], ARENA_LOG_LEVEL="info")
    command = player_command(run.config, player, host, port, pool)
    while not run.finished:
        started = trio.current_time()
        log_file = await trio.open_file(log_path, "ab")
        try:
            process = await trio.run_process(
                command,
                check=False,
                stdout=log_file.wrapped,
                stderr=subprocess.STDOUT,
                env=env,
                start_new_session=True,  # a Ctrl-C at the terminal reaches the director only
                deliver_cancel=ender(STOP_GRACE),
            )
        finally:
            await log_file.aclose()
        if run.is_finished():  # set by another task meanwhile
            return
        lived = trio.current_time() - started
        run.crashes[player.name] = run.crashes.get(player.name, 0) + 1
        crashes = run.crashes[player.name]
        message = (
            f"{player.name} (instance {instance}) exited with code {process.returncode}"
            f" after {lived:.1f}s"
        )
        run.note(
            f"[yellow]{message}; restarting[/]"
            if crashes < run.max_failures
            else f"[red]{message}[/]"
        )
        if crashes >= run.max_failures and run.director is not None:
            run.director.withdraw(
                player.name,
                f"its process died {crashes} times in a row; last output: {_tail(log_path)}",
            )
            return
        await trio.sleep(min(0.5 * crashes, 5.0))


def _tail(path: Path, lines: int = 1) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(text[-lines:])[:300] if text else "(no output)"


async def _stop_on_signal(scope: trio.CancelScope, caught: list[int]) -> None:
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async for signum in signals:
            caught.append(signum)
            scope.cancel()
            return


async def run_tournament(
    run: Run, server_address: tuple[str, int] | None, db_path: str, pool: str, grace: float
) -> Outcome:
    """Play the tournament's missing games; stop cleanly on SIGINT/SIGTERM."""
    config = run.config
    done = await trio.to_thread.run_sync(run.records.results, config.id)
    owner = await trio.to_thread.run_sync(run.records.owner_key, config.id)
    director = TournamentDirector(
        config,
        secrets=run.secrets,
        concurrency=run.concurrency,
        done=done,
        pool=pool,
        owner=owner,
        max_failures=run.max_failures,
        on_result=lambda result: _on_result(run, result),
        on_withdrawn=lambda name, why: run.note(f"[red]withdrawn: {name}: {why}[/]"),
    )
    run.director = director
    caught: list[int] = []
    error: TournamentError | None = None
    results = director.results
    async with trio.open_nursery() as outer:
        outer.start_soon(_stop_on_signal, outer.cancel_scope, caught)
        async with trio.open_nursery() as nursery:
            if server_address is None:
                policy = MatchPolicy(move_time=config.move_time, reconnect_grace=grace)
                # its own server on loopback: every client is this tournament's (a player
                # process per instance, the director), however many there are
                server = ArenaServer(
                    ServerConfig(
                        host="127.0.0.1",
                        port=0,
                        db=db_path,
                        policy=policy,
                        trusted_addresses=LOOPBACK,
                    ),
                    store=open_database(db_path),
                )
                port = await nursery.start(server.serve)
                host = "127.0.0.1"
            else:
                host, port = server_address
            for player in config.players:
                if player.spec is None:
                    run.note(
                        f"waiting for remote player [bold]{player.name}[/]: arena play"
                        f" {config.game} SPEC --host HOST --port {port} --name '{player.name}'"
                        f" --pool {pool} --secret {run.secrets[player.name]} --games 0"
                    )
                    continue
                for instance in range(player.instances):
                    nursery.start_soon(supervise, run, player, instance, host, port, pool)
            try:
                results = await director.run(host, port)
            except TournamentError as exc:
                error = exc
            finally:
                run.finished = True
                nursery.cancel_scope.cancel()
        outer.cancel_scope.cancel()
    if caught:
        return Outcome(director.results, caught[0])
    if error is not None:
        raise error
    return Outcome(results)


def _on_result(run: Run, result: GameResult) -> None:
    run.records.add_result(run.config.id, result)  # committed before anything else happens
    if result.termination not in FAILURES | {"withdrawn"}:
        for name in result.seats:  # a game played to its end: the crash streak is over
            run.crashes[name] = 0
    if run.director is not None:
        run.on_result(run.director, result)
