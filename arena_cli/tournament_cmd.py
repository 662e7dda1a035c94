"""`arena tournament`: a round-robin among agent specs and remote players.

It starts an embedded server (or uses ``--server host:port``), launches each
local player spec as its own `arena play` process that connects over TCP like
any other client, and directs the games through the server. Players that
crash are restarted; a player that keeps failing is withdrawn.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import secrets
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
import trio
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from games import Termination, make_game, parse_options
from server.app import ArenaServer, open_store
from server.config import MatchPolicy, ServerConfig
from server.ratings import GameResult as RatedGame
from server.ratings import crosstable, los, standings
from server.store import Store, StoreError
from server.tournament import (
    FAILURES,
    GameResult,
    TournamentConfig,
    TournamentDirector,
    TournamentError,
    TournamentPlayer,
    TournamentRecords,
)

log = structlog.get_logger("arena.tournament")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "tournament",
        help="run a round-robin tournament between agent specs",
        description="Round-robin among player specs over TCP; results stored and resumable.",
        epilog="example: arena tournament connect4 --player mcts:time=0.5"
        " --player mcts:time=0.5,c=2.0 --player random --games-per-pair 10 --concurrency 2",
    )
    add_arguments(parser)
    parser.set_defaults(func=run, default_log_level="warning")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The tournament's flags (shared with `arena demo`)."""
    parser.add_argument("game", nargs="?", help="game to play (not needed with --resume)")
    parser.add_argument(
        "--player",
        "-p",
        action="append",
        default=[],
        metavar="SPEC",
        help="a local player: an agent spec, optionally NAME=SPEC (repeatable)",
    )
    parser.add_argument(
        "--remote",
        action="append",
        default=[],
        metavar="NAME",
        help="a remote player that connects by itself with this name (repeatable)",
    )
    parser.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE", help="game option"
    )
    parser.add_argument(
        "--games-per-pair", type=int, default=2, help="games per pair, even (default 2)"
    )
    parser.add_argument(
        "--move-time", type=float, default=None, help="seconds per move [$ARENA_MOVE_TIME, 0.5]"
    )
    parser.add_argument("--concurrency", type=int, default=1, help="games at once (default 1)")
    parser.add_argument(
        "--instances", type=int, default=1, help="processes per local player (default 1)"
    )
    parser.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    parser.add_argument("--db", default=None, help="SQLite records file [$ARENA_DB, arena.sqlite]")
    parser.add_argument(
        "--server",
        default=None,
        metavar="HOST:PORT",
        help="use this server instead of an embedded one",
    )
    parser.add_argument(
        "--pool", default=None, help="pool name on the server [$ARENA_POOL, the tournament id]"
    )
    parser.add_argument(
        "--secret", default=None, help="join secret of remote players [$ARENA_SECRET, random]"
    )
    parser.add_argument("--resume", default=None, metavar="ID", help="resume a stored tournament")
    parser.add_argument(
        "--max-failures",
        type=int,
        default=3,
        help="forfeits/crashes in a row before a player is withdrawn",
    )
    parser.add_argument(
        "--reconnect-grace",
        type=float,
        default=3.0,
        help="embedded server: seconds a dropped player may take to return",
    )
    parser.add_argument(
        "--out",
        action="append",
        default=[],
        metavar="FILE",
        help="write results to FILE (.json or .csv; repeatable)",
    )
    parser.add_argument("--list", action="store_true", help="list stored tournaments and exit")
    parser.add_argument(
        "--no-progress", action="store_true", help="plain line output instead of a progress bar"
    )
    parser.set_defaults(func=run, default_log_level="warning")


# --- configuration --------------------------------------------------------------


def player_names(specs: Sequence[str]) -> list[TournamentPlayer]:
    """Players from ``SPEC`` or ``NAME=SPEC`` items; repeated specs get ``#2``, ``#3``."""
    players: list[TournamentPlayer] = []
    seen: dict[str, int] = {}
    for item in specs:
        name, sep, spec = item.partition("=")
        if not sep or ":" in name or "," in name:
            name, spec = item, item
        name = name.strip()
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name}#{seen[name]}"
        players.append(TournamentPlayer(name[:64], spec.strip()))
    return players


def validate_specs(specs: Sequence[str]) -> None:
    """Fail early, in this process, on an agent spec the player processes would reject."""
    from player.spec import make_agent

    for spec in specs:
        agent = make_agent(spec)
        agent.close()


@dataclass
class Run:
    """Everything the running tournament shares between its tasks."""

    config: TournamentConfig
    records: TournamentRecords
    secrets: dict[str, str]
    concurrency: int
    max_failures: int
    log_dir: Path
    console: Console
    progress: Progress | None = None
    task: TaskID | None = None
    director: TournamentDirector | None = None
    crashes: dict[str, int] = field(default_factory=dict)
    finished: bool = False

    def is_finished(self) -> bool:
        return self.finished


def _resolve_config(args: argparse.Namespace, records: TournamentRecords) -> TournamentConfig:
    if args.resume:
        found = records.load(args.resume)
        if found is None:
            raise ValueError(f"no tournament {args.resume!r} in {records.store.path}")
        return found[0]
    if not args.game:
        raise ValueError("name a game (e.g. connect4) or --resume ID")
    players = player_names(args.player) + [TournamentPlayer(name, None) for name in args.remote]
    if args.instances < 1:
        raise ValueError(f"--instances must be >= 1, not {args.instances}")
    players = [TournamentPlayer(p.name, p.spec, args.instances if p.spec else 1) for p in players]
    options: dict[str, Any] = {}
    for item in args.option:
        options.update(parse_options(item))
    game = make_game(args.game, options)  # validates the game and its options
    move_time = args.move_time or float(os.environ.get("ARENA_MOVE_TIME") or 0.5)
    return TournamentConfig(
        game=game.name,
        options=game.options,
        players=tuple(players),
        games_per_pair=args.games_per_pair,
        move_time=move_time,
        seed=args.seed,
    )


# --- player processes -------------------------------------------------------------


def player_command(
    run: Run, player: TournamentPlayer, host: str, port: int, pool: str
) -> list[str]:
    assert player.spec is not None
    command = [
        sys.executable,
        "-m",
        "arena_cli.main",
        "--log-format",
        "json",
        "play",
        run.config.game,
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
        str(run.config.move_time),
        "--connect-wait",
        "10",
    ]
    for key, value in run.config.options.items():
        command += ["-o", f"{key}={value}"]
    return command


async def supervise(
    run: Run, player: TournamentPlayer, instance: int, host: str, port: int, pool: str
) -> None:
    """Run one player process; restart it when it dies, withdraw the player if it keeps dying."""
    log_path = run.log_dir / f"{player.name.replace('/', '_')}.{instance}.log"
    env = dict(os.environ, ARENA_SECRET=run.secrets[player.name], ARENA_LOG_LEVEL="info")
    command = player_command(run, player, host, port, pool)
    while not run.finished:
        started = trio.current_time()
        log_file = await trio.open_file(log_path, "ab")
        try:
            process = await trio.run_process(
                command, check=False, stdout=log_file.wrapped, stderr=subprocess.STDOUT, env=env
            )
        finally:
            await log_file.aclose()
        if run.is_finished():  # set by another task meanwhile
            return
        director = run.director
        lived = trio.current_time() - started
        run.crashes[player.name] = run.crashes.get(player.name, 0) + 1
        crashes = run.crashes[player.name]
        message = f"{player.name} (instance {instance}) exited with code {process.returncode} after {lived:.1f}s"
        _note(
            run,
            f"[yellow]{message}; restarting[/]"
            if crashes < run.max_failures
            else f"[red]{message}[/]",
        )
        if crashes >= run.max_failures and director is not None:
            tail = _tail(log_path)
            director.withdraw(
                player.name, f"its process died {crashes} times in a row; last output: {tail}"
            )
            return
        await trio.sleep(min(0.5 * crashes, 5.0))


def _tail(path: Path, lines: int = 1) -> str:
    try:
        text = path.read_text(errors="replace").strip().splitlines()
    except OSError:
        return "(no log)"
    return " | ".join(text[-lines:])[:300] if text else "(no output)"


def _note(run: Run, text: str) -> None:
    if run.progress is not None:
        run.progress.console.print(text)
    else:
        run.console.print(text)


# --- running ----------------------------------------------------------------------


async def run_tournament(
    run: Run, server_address: tuple[str, int] | None, db_path: str, pool: str, grace: float
) -> dict[int, GameResult]:
    config = run.config
    done = await trio.to_thread.run_sync(run.records.results, config.id)
    director = TournamentDirector(
        config,
        secrets=run.secrets,
        concurrency=run.concurrency,
        done=done,
        pool=pool,
        max_failures=run.max_failures,
        on_result=lambda result: _on_result(run, result),
        on_withdrawn=lambda name, why: _note(run, f"[red]withdrawn: {name}: {why}[/]"),
    )
    run.director = director
    if run.progress is not None and run.task is not None:
        run.progress.update(run.task, total=director.total, completed=len(done))
    async with trio.open_nursery() as nursery:
        if server_address is None:
            store = Store(db_path)
            policy = MatchPolicy(move_time=config.move_time, reconnect_grace=grace)
            server = ArenaServer(
                ServerConfig(host="127.0.0.1", port=0, db=db_path, policy=policy), store=store
            )
            port = await nursery.start(server.serve)
            host = "127.0.0.1"
        else:
            host, port = server_address
        for player in config.players:
            if player.spec is None:
                _note(
                    run,
                    f"waiting for remote player [bold]{player.name}[/]: arena play {config.game} SPEC"
                    f" --host HOST --port {port} --name '{player.name}' --pool {pool}"
                    f" --secret {run.secrets[player.name]} --games 0",
                )
                continue
            for instance in range(player.instances):
                nursery.start_soon(supervise, run, player, instance, host, port, pool)
        error: TournamentError | None = None
        try:
            results = await director.run(host, port)
        except TournamentError as exc:
            error = exc
        finally:
            run.finished = True
            nursery.cancel_scope.cancel()
    if error is not None:
        raise error
    return results


def _on_result(run: Run, result: GameResult) -> None:
    run.records.add_result(run.config.id, result)  # committed before anything else happens
    if result.termination not in FAILURES | {Termination.WITHDRAWN.value}:
        for name in result.seats:  # a game played to its end: the crash streak is over
            run.crashes[name] = 0
    if run.progress is not None and run.task is not None:
        run.progress.update(run.task, advance=1, description=_leaders(run))
    else:
        seats = " vs ".join(result.seats)
        run.console.print(
            f"game {result.index + 1}: {seats}: {'-'.join(f'{s:g}' for s in result.scores)} ({result.termination})"
        )


def _leaders(run: Run) -> str:
    director = run.director
    if director is None:
        return "starting"
    table = standings(run.config.names, rated(director.results.values()))
    top = ", ".join(f"{s.player} {s.points:g}/{s.games}" for s in table[:3])
    return top or "waiting for players"


def rated(results: Any) -> list[RatedGame]:
    return [RatedGame(r.seats[0], r.seats[1], r.scores[0]) for r in results if len(r.seats) == 2]


# --- output -----------------------------------------------------------------------


def results_document(config: TournamentConfig, results: dict[int, GameResult]) -> dict[str, Any]:
    games = [results[i] for i in sorted(results)]
    table = standings(config.names, rated(games))
    cross = crosstable(config.names, rated(games))
    return {
        "tournament": config.id,
        "game": config.game,
        "options": config.options,
        "move_time": config.move_time,
        "games_per_pair": config.games_per_pair,
        "seed": config.seed,
        "players": [{"name": p.name, "spec": p.spec} for p in config.players],
        "standings": [
            {
                "rank": rank,
                "name": s.player,
                "games": s.games,
                "wins": s.wins,
                "draws": s.draws,
                "losses": s.losses,
                "points": s.points,
                "score": s.score,
                "elo": s.elo,
                "elo_margin": s.elo_margin if math.isfinite(s.elo_margin) else None,
            }
            for rank, s in enumerate(table, 1)
        ],
        "crosstable": {
            row: {col: {"points": pts, "games": n} for col, (pts, n) in cols.items()}
            for row, cols in cross.items()
        },
        "games": [
            {
                "index": g.index,
                "seats": list(g.seats),
                "scores": list(g.scores),
                "termination": g.termination,
                "match": g.match_id,
                "plies": g.plies,
            }
            for g in games
        ],
    }


def print_results(
    console: Console, config: TournamentConfig, results: dict[int, GameResult]
) -> None:
    games = [results[i] for i in sorted(results)]
    table = standings(config.names, rated(games))
    title = f"Tournament {config.id}: {config.game}, {config.move_time:g}s/move, {len(games)} games"
    out = Table(title=title)
    for column in ("#", "player", "games", "W", "D", "L", "points", "score", "Elo", "±95%"):
        out.add_column(column, justify="right" if column not in ("player",) else "left")
    for rank, s in enumerate(table, 1):
        margin = f"{s.elo_margin:.0f}" if math.isfinite(s.elo_margin) else "-"
        score = "-" if s.score is None else f"{100 * s.score:.1f}%"
        out.add_row(
            str(rank),
            s.player,
            str(s.games),
            str(s.wins),
            str(s.draws),
            str(s.losses),
            f"{s.points:g}",
            score,
            f"{s.elo:+.0f}",
            margin,
        )
    console.print(out)
    if len(config.names) == 2 and len(table) == 2:
        a, b = table[0], table[1]
        console.print(
            f"LOS ({a.player} stronger than {b.player}): {100 * los(a.wins, a.losses):.1f}%"
        )
    cross = crosstable(config.names, rated(games))
    grid = Table(title="Crosstable (points of row player against column player)")
    grid.add_column("")
    for name in config.names:
        grid.add_column(name[:16], justify="center")
    for row in config.names:
        cells = []
        for col in config.names:
            if row == col:
                cells.append("-")
            else:
                points, n = cross[row][col]
                cells.append(f"{points:g}/{n}")
        grid.add_row(row, *cells)
    console.print(grid)


def write_outputs(
    paths: Sequence[str], config: TournamentConfig, results: dict[int, GameResult]
) -> None:
    document = results_document(config, results)
    for path in paths:
        if path.lower().endswith(".csv"):
            with open(path, "w", newline="") as handle:
                writer = csv.writer(handle)
                columns = [
                    "rank",
                    "name",
                    "games",
                    "wins",
                    "draws",
                    "losses",
                    "points",
                    "score",
                    "elo",
                    "elo_margin",
                ]
                writer.writerow(columns)
                for row in document["standings"]:
                    writer.writerow([row[c] for c in columns])
        else:
            Path(path).write_text(json.dumps(document, indent=2) + "\n")


# --- entry point ------------------------------------------------------------------


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=False)
    db_path = args.db or os.environ.get("ARENA_DB") or "arena.sqlite"
    try:
        store = open_store(db_path)
        assert store is not None
        records = TournamentRecords(store)
    except (StoreError, OSError) as exc:
        print(f"arena tournament: {exc}", file=sys.stderr)
        return 2
    if args.list:
        for config, status, created in records.list():
            names = ", ".join(config.names)
            console.print(
                f"{config.id}  {time.strftime('%Y-%m-%d %H:%M', time.localtime(created))}  {status:9}  {config.game}: {names}"
            )
        return 0
    try:
        config = _resolve_config(args, records)
        validate_specs([p.spec for p in config.players if p.spec])
        if args.concurrency < 1:
            raise ValueError(f"--concurrency must be >= 1, not {args.concurrency}")
        server_address = None
        if args.server:
            host, _, port_text = args.server.rpartition(":")
            if not host or not port_text.isdigit():
                raise ValueError(f"--server must be HOST:PORT, not {args.server!r}")
            server_address = (host, int(port_text))
    except ValueError as exc:
        print(f"arena tournament: {exc}", file=sys.stderr)
        return 2
    remote_secret = args.secret or os.environ.get("ARENA_SECRET")
    secret_of = {
        p.name: (remote_secret if (p.spec is None and remote_secret) else secrets.token_urlsafe(12))
        for p in config.players
    }
    pool = args.pool or os.environ.get("ARENA_POOL") or config.id
    local_processes = sum(p.instances for p in config.players if p.spec)
    cores = os.cpu_count() or 1
    if args.concurrency > cores:
        console.print(
            f"[yellow]warning: {args.concurrency} games at once on {cores} cores: searches under a"
            " time limit lose strength when starved of CPU[/]"
        )
    if local_processes and args.concurrency * 2 > local_processes + len(args.remote):
        console.print(
            f"[yellow]note: {local_processes} local player processes allow fewer than"
            f" {args.concurrency} games at once; add --instances[/]"
        )
    records.save(config, "running")
    done_before = len(records.results(config.id))
    console.print(
        f"tournament {config.id}: {config.game} ({', '.join(config.names)}),"
        f" {config.games_per_pair} games per pair, {config.move_time:g}s/move;"
        + (f" resuming with {done_before} games done" if done_before else " starting")
    )
    log_dir = Path(tempfile.mkdtemp(prefix=f"arena-{config.id}-"))
    state = Run(
        config,
        records,
        secret_of,
        args.concurrency,
        args.max_failures,
        log_dir,
        console,
    )
    interactive = console.is_terminal and not args.no_progress
    try:
        if interactive:
            with Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TimeRemainingColumn(),
                console=console,
            ) as progress:
                state.progress = progress
                state.task = progress.add_task("starting", total=None)
                results = trio.run(
                    run_tournament, state, server_address, db_path, pool, args.reconnect_grace
                )
        else:
            results = trio.run(
                run_tournament, state, server_address, db_path, pool, args.reconnect_grace
            )
    except KeyboardInterrupt:
        records.save(config, "stopped")
        done = len(records.results(config.id))
        console.print(
            f"\ninterrupted: {done} games stored. Resume with: arena tournament --resume {config.id}"
            + (f" --db {db_path}" if args.db else "")
        )
        return 130
    except TournamentError as exc:
        records.save(config, "stopped")
        print(f"arena tournament: {exc}", file=sys.stderr)
        return 1
    records.save(config, "finished")
    print_results(console, config, results)
    write_outputs(args.out, config, results)
    for path in args.out:
        console.print(f"results written to {path}")
    console.print(f"player logs: {log_dir}")
    return 0
