"""`arena play ... --vs SPEC`: the opponent started for you, and what a waiting player is told.

The opponent is a child process running `arena play` (exactly what a user
would start by hand), so it plays over TCP like any other player. Without
--host/--port it plays on an embedded server on a free local port, which
stops with the command; its log goes to a file named if it fails.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from arena_cli.children import ender
from arena_cli.errors import OpponentFailed as OpponentFailed
from player.client import ClientError, MatchResult, PlayerClient
from player.spec import parse_agent_spec, spec_name
from protocol.messages import OpenSeek, Seeking

if TYPE_CHECKING:
    from arena_cli.play_settings import PlaySettings
    from player.agent import Agent

#: seconds the opponent may take to exit after SIGTERM before it is killed
STOP_GRACE = 1.5


def check_db(db: str | None) -> None:
    """--db must be a file we can create or open (ValueError with one line if not)."""
    if db is None:
        return
    path = Path(db)
    if path.is_dir():
        raise ValueError(f"--db {db!r} is a directory, not a records file")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise ValueError(f"--db {db!r}: no directory {str(parent)!r}")
    if not os.access(parent, os.W_OK):
        raise ValueError(f"--db {db!r}: the directory {str(parent)!r} is not writable")


def _time_words(move_time: float, clock_label: str | None, any_time: bool) -> str:
    if any_time:
        return "any time control"
    return f"a {clock_label} clock" if clock_label else f"{move_time:g} s a move"


def _seek_words(seek: OpenSeek) -> str:
    if seek.move_time == 0 and seek.clock is None:
        words = "any time control"
    else:
        words = _time_words(
            seek.move_time, None if seek.clock is None else seek.clock.label(), False
        )
    options = ",".join(f"{k}={v}" for k, v in seek.options.items())
    people = "1 player" if seek.players == 1 else f"{seek.players} players"
    return f"{seek.game}{f' ({options})' if options else ''} at {words}: {people}"


def seeking_text(settings: PlaySettings, message: Seeking, host: str, port: int) -> str:
    """What a player waiting in the lobby is told: what it seeks, who else waits, what to do.

    `host`:`port` is the server really played on (with --vs, the embedded one's).
    A seek that paired at once gets the first line only: it waits for nobody.
    """
    clock = None if message.clock is None else message.clock.label()
    lines = [
        f"waiting for an opponent: {message.game} at"
        f" {_time_words(message.move_time, clock, message.any_time)}"
        f" on {host}:{port}"
    ]
    if message.paired:
        return lines[0]
    for seek in message.others:
        lines.append(f"  also waiting here, not paired with you: {_seek_words(seek)}")
        if seek.options == message.options and not (seek.move_time == 0 and seek.clock is None):
            flag = (
                f"--tc {seek.clock.label()}"
                if seek.clock is not None
                else f"--move-time {seek.move_time:g}"
            )
            lines.append(f"    (to play them, start again with {flag})")
    if settings.vs is None and settings.human:
        tc = "--tc any"
        options = "".join(f" -o {k}={v}" for k, v in settings.options.items())
        lines.append(
            f"  to get an opponent, run in another terminal:"
            f" arena play {message.game}{options} mcts {tc} --host {host}"
            f" --port {port}"
            f"\n  (or start this command again with --vs mcts:time=1)"
        )
    return "\n".join(lines)


def opponent_command(settings: PlaySettings, host: str, port: int) -> list[str]:
    """The `arena play` command line of the --vs opponent, with the same time control."""
    assert settings.vs is not None
    config = settings.config
    name = (spec_name(settings.vs) or settings.vs)[:64]
    command = [
        sys.executable,
        "-m",
        "arena_cli.main",
        "play",
        settings.game,
        settings.vs,
        "--host",
        host,
        "--port",
        str(port),
        "--games",
        str(config.games),
        "--name",
        name,
        "--connect-wait",
        "10",
        "--log-level",
        "warning",  # its log file: what went wrong, not every move
    ]
    for key, value in settings.options.items():
        command += ["-o", f"{key}={value}"]
    if config.clock is not None:
        command += ["--tc", f"{config.clock.initial / 60:g}+{config.clock.increment:g}"]
    elif config.move_time is not None:
        command += ["--move-time", str(config.move_time)]
    return command


async def vs_session(
    settings: PlaySettings,
    agent: Agent,
    db: str | None,
    on_result: Callable[[MatchResult], None],
    on_seeking: Callable[[Seeking, str, int], None],
) -> list[MatchResult]:
    """Start the server (if embedded) and the opponent, then play; everything stops after.

    `on_seeking` gets the server's address too: the embedded one's port is
    `settings.serve_port`, or a free one chosen when it starts.
    """
    from dataclasses import replace

    config = settings.config
    failure: ClientError | None = None
    results: list[MatchResult] = []
    async with trio.open_nursery() as nursery:
        host, port = config.host, config.port
        if settings.embedded:
            from server.app import ArenaServer
            from server.config import ServerConfig
            from store.open import open_database

            store = None if db is None else open_database(db, check=True, make_directory=True)
            server_config = ServerConfig(host="127.0.0.1", port=settings.serve_port, db=db)
            server = ArenaServer(server_config, store=store)
            host, port = "127.0.0.1", await nursery.start(server.serve)
            if store is not None:
                nursery.start_soon(_close_at_exit, store)
            print(
                f"server on {host}:{port} until the games end"
                f" (to watch from another terminal: arena watch --all --port {port})",
                flush=True,
            )
            kept = f"records: {db}" if db else "records: none (add --db FILE to keep these games)"
            print(kept, flush=True)
        opponent = _Opponent(settings)
        client = PlayerClient(
            agent,
            settings.game,
            settings.options,
            replace(config, host=host, port=port),
            on_result=on_result,
            on_seeking=lambda message: opponent.seeking(client, message, host, port, on_seeking),
            on_retry=_progress,
        )
        log_path = Path(tempfile.mkdtemp(prefix="arena-vs-")) / "opponent.log"
        nursery.start_soon(opponent.run, host, port, log_path, client)
        name = parse_agent_spec(settings.vs or "")[0]
        print(f"starting the opponent: {settings.vs} ({name}, log: {log_path})", flush=True)
        try:
            results = await client.run()
        except ClientError as exc:  # raised below, not wrapped in the nursery's group
            failure = exc
        nursery.cancel_scope.cancel()
    if failure is not None:
        raise failure
    return results


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


async def _close_at_exit(store: object) -> None:
    try:
        await trio.sleep_forever()
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            close()


class _Opponent:
    """The --vs opponent's process, and what its end means for our games.

    Exit code 0: it played all its games. Ours end with them (the server tells
    us, maybe a moment later: a lost-on-time human is still at the prompt), so
    that is no failure; only a client left seeking would wait in vain (on a
    shared server it may have played someone else). Any other exit before our
    games are over is a failure, with the last line of its log.
    """

    def __init__(self, settings: PlaySettings) -> None:
        self.settings = settings
        self.finished = False  # exited 0: its games are over

    def seeking(
        self,
        client: PlayerClient,
        message: Seeking,
        host: str,
        port: int,
        report: Callable[[Seeking, str, int], None],
    ) -> None:
        if self.finished and not message.paired:
            client.fail(self._left())
            return
        report(message, host, port)

    def _left(self) -> OpponentFailed:
        return OpponentFailed(
            f"the opponent {self.settings.vs} has played its games and left;"
            " nobody else answers this seek"
        )

    async def run(self, host: str, port: int, log_path: Path, client: PlayerClient) -> None:
        with log_path.open("ab") as log_file:
            process = await trio.run_process(
                opponent_command(self.settings, host, port),
                check=False,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                deliver_cancel=ender(STOP_GRACE),
            )
        if client.done:
            return
        if process.returncode == 0:
            self.finished = True
            if not client.playing:
                client.fail(self._left())
            return
        text = await trio.Path(log_path).read_text(errors="replace")
        lines = text.strip().splitlines()
        last = lines[-1] if lines else "no output"
        client.fail(
            OpponentFailed(
                f"the opponent {self.settings.vs} exited (code {process.returncode}) before the"
                f" games were played: {last} (log: {log_path})"
            )
        )
