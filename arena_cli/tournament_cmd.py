"""`arena tournament`: round-robin, gauntlet or SPRT among agent specs and remote players.

Parsing, calling and printing only: the tournament itself is `tournament`
(configuration, schedule, openings, adjudication, statistics, the director),
the flags become its configuration in `arena_cli.tournament_config`, the
local run (embedded server, player processes, signals) is
`arena_cli.tournament_run`, and the output is `arena_cli.tournament_view`.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import os
import secrets
import shlex
import signal
import sys
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import trio
from rich.console import Console

from arena_cli import result_files
from arena_cli import tournament_view as view
from arena_cli.console import make_console
from arena_cli.options import DB_HELP, add_engines_option, apply_engines_option
from arena_cli.tournament_config import resolve_config, validate_specs
from arena_cli.tournament_config import server_address as parse_server
from arena_cli.tournament_run import Run, run_tournament
from games import make_game
from store import StoreError
from store.open import is_postgres_url, open_database
from tournament.config import TournamentConfig
from tournament.director import TournamentError
from tournament.openings import OpeningError
from tournament.report import results_document
from tournament.results import TournamentRecords, TournamentRunning

EXAMPLE = """examples:
  arena tournament connect4 -p mcts:time=0.5 -p mcts:time=0.5,c=2.0 -p random --games-per-pair 10
  arena tournament tictactoe -o width=4 -o height=4 -o k=3 -p mcts:time=0.05 -p random \\
      --sprt elo0=0,elo1=100 --random-openings 2 --max-pairs 200
  arena tournament connect4 --gauntlet -p mcts:time=0.2 -p random -p greedy --openings book.txt
"""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "tournament",
        help="run a round-robin, gauntlet or SPRT between agent specs",
        description="Round-robin, gauntlet or SPRT among player specs over TCP;"
        " openings played in seat-swapped pairs; results stored and resumable.",
        epilog=EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_arguments(parser)
    parser.set_defaults(func=run, default_log_level="warning")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The tournament's flags (shared with `arena demo`)."""
    add = parser.add_argument
    add("game", nargs="?", help="game to play (not needed with --resume or --list)")
    add(
        "--player",
        "-p",
        action="append",
        default=[],
        metavar="SPEC",
        help="a local player: an agent spec, optionally NAME=SPEC (repeatable)",
    )
    add_engines_option(parser)
    add(
        "--remote",
        action="append",
        default=[],
        metavar="NAME",
        help="a remote player that connects by itself with this name (repeatable)",
    )
    add("-o", "--option", action="append", default=[], metavar="KEY=VALUE", help="game option")
    form = parser.add_mutually_exclusive_group()
    form.add_argument(
        "--gauntlet",
        action="store_true",
        help="the first player plays each other player (not all pairs)",
    )
    form.add_argument(
        "--sprt",
        default=None,
        metavar="elo0=0,elo1=5,alpha=0.05,beta=0.05",
        help="SPRT between exactly two players, pairs until it decides",
    )
    add(
        "--max-pairs",
        type=int,
        default=None,
        help="SPRT: stop undecided after this many game pairs (default: no limit)",
    )
    add(
        "--games-per-pair",
        type=int,
        default=2,
        help="round-robin/gauntlet: games between two players, even (default 2)",
    )
    add(
        "--random-openings",
        type=int,
        default=None,
        metavar="PLIES",
        help="each pair of games starts from a random opening of PLIES moves (seeded)",
    )
    add(
        "--openings",
        default=None,
        metavar="FILE",
        help="opening file: one move sequence per line in the game's notation",
    )
    add(
        "--openings-order",
        choices=("sequential", "random"),
        default="sequential",
        help="order of the opening file's lines (random: shuffled by --seed)",
    )
    add(
        "--max-plies",
        type=int,
        default=None,
        help="adjudicate a draw when a game reaches this many plies",
    )
    add(
        "--adjudicate-proven",
        type=int,
        default=None,
        metavar="NODES",
        help="end a game whose result a solver proves within NODES positions",
    )
    add(
        "--adjudicate-resign",
        default=None,
        metavar="N:SCORE",
        help="a win once N evaluations in a row give one side >= 1-SCORE (e.g. 6:0.05)",
    )
    add(
        "--adjudicate-draw",
        default=None,
        metavar="N:SCORE",
        help="a draw once N evaluations in a row lie within SCORE of 0.5 (e.g. 12:0.05)",
    )
    add("--move-time", type=float, default=None, help="seconds per move [$ARENA_MOVE_TIME, 0.5]")
    add("--concurrency", type=int, default=1, help="games at once (default 1)")
    add("--instances", type=int, default=1, help="processes per local player (default 1)")
    add("--seed", type=int, default=0, help="tournament seed (default 0)")
    add("--db", default=None, help=DB_HELP)
    add(
        "--server",
        default=None,
        metavar="HOST:PORT",
        help="use this server instead of an embedded one",
    )
    add(
        "--pool",
        default=None,
        help="pool name on the server, owned by the director (and --db) that first uses it"
        " [$ARENA_POOL, the tournament id]",
    )
    add("--secret", default=None, help="join secret of remote players [$ARENA_SECRET, random]")
    add("--resume", default=None, metavar="ID", help="resume a stored tournament")
    add(
        "--max-failures",
        type=int,
        default=3,
        help="failures in a row before a player is withdrawn (crashes, stalls, disconnects,"
        " illegal moves, protocol errors, timeouts before its first move; a time loss after"
        " moving is a plain loss)",
    )
    add(
        "--reconnect-grace",
        type=float,
        default=3.0,
        help="embedded server: seconds a dropped player may take to return",
    )
    add(
        "--out",
        action="append",
        default=[],
        metavar="FILE",
        help="write results to FILE (.json, .csv or .md; repeatable)",
    )
    add("--json", action="store_true", help="print results (or --list) as JSON on stdout")
    add("--list", action="store_true", help="list stored tournaments and exit")
    add("--no-progress", action="store_true",
        help="plain line output instead of a progress bar")  # fmt: skip
    parser.set_defaults(func=run, default_log_level="warning")


@dataclass(frozen=True, slots=True)
class RunFlags:
    """What the command line says about this run beside the tournament's configuration.

    Built once from the parsed flags (`from_args`); from then on the run carries
    this and the `TournamentConfig`, never the argparse namespace.
    """

    #: --db as given (the resume command repeats it), and the database it names
    db: str | None
    db_path: str
    #: --server as given, and parsed; None plays on an embedded server
    server: str | None
    server_address: tuple[str, int] | None
    #: the server the resume command names: not one that stops with this command
    #: (arena demo's), for then the tournament resumes on an embedded server
    resume_server: str | None
    pool: str | None
    secret: str | None
    concurrency: int
    max_failures: int
    reconnect_grace: float
    out: tuple[str, ...]
    json: bool
    no_progress: bool

    @classmethod
    def from_args(cls, args: argparse.Namespace, db_path: str) -> RunFlags:
        """The run's flags, checked (ValueError with one line for the user)."""
        if args.concurrency < 1:
            raise ValueError(f"--concurrency must be >= 1, not {args.concurrency}")
        server_address = parse_server(args.server)
        result_files.check_out_paths(args.out)
        return cls(
            db=args.db,
            db_path=db_path,
            server=args.server,
            server_address=server_address,
            resume_server=None if getattr(args, "server_stops_with_us", False) else args.server,
            pool=args.pool,
            secret=args.secret,
            concurrency=args.concurrency,
            max_failures=args.max_failures,
            reconnect_grace=args.reconnect_grace,
            out=tuple(args.out),
            json=args.json,
            no_progress=args.no_progress,
        )


def resume_command(flags: RunFlags, config: TournamentConfig) -> str:
    """The exact command that continues this tournament."""
    words = ["arena", "tournament", "--resume", config.id]
    for flag, value in (
        ("--db", flags.db),
        ("--server", flags.resume_server),
        ("--pool", flags.pool),
        ("--secret", flags.secret),
    ):
        if value:
            words += [flag, value]
    if flags.concurrency != 1:
        words += ["--concurrency", str(flags.concurrency)]
    for path in flags.out:
        words += ["--out", path]
    if flags.json:
        words.append("--json")
    if flags.no_progress:
        words.append("--no-progress")
    return shlex.join(words)


# --- entry point ------------------------------------------------------------------


def _fail(message: str, code: int = 2) -> int:
    print(f"arena tournament: {message}", file=sys.stderr)
    return code


def run(args: argparse.Namespace) -> int:
    console = make_console(stderr=args.json)  # with --json, stdout holds only the JSON
    db_path = args.db or os.environ.get("ARENA_DB") or "arena.sqlite"
    local = not is_postgres_url(db_path)
    if (args.list or args.resume) and local and not os.path.exists(db_path):
        return _fail(f"no records database at {db_path!r} (use --db or $ARENA_DB)")
    created = local and not os.path.exists(db_path)
    try:
        store = open_database(db_path, check=True, make_directory=True)
        records = TournamentRecords(store)
    except (StoreError, OSError) as exc:
        return _fail(str(exc))
    if args.list:
        listed = records.list()
        if args.json:
            print(json.dumps(view.list_document(listed), indent=2))
        else:
            view.print_list(console, listed)
        return 0
    try:
        apply_engines_option(getattr(args, "engines", None))
        config = resolve_config(args, records)
        validate_specs([p.spec for p in config.players if p.spec])
        flags = RunFlags.from_args(args, db_path)
    except (ValueError, OpeningError) as exc:
        if created:  # refused before any game: leave no empty database behind
            store.close()
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(OSError):
                    os.remove(db_path + suffix)
        return _fail(str(exc))
    try:
        with records.running(config.id):
            return _play(flags, console, records, config)
    except TournamentRunning as exc:
        return _fail(str(exc), 1)


def _pool_owned(
    flags: RunFlags, records: TournamentRecords, config: TournamentConfig, pool: str
) -> int:
    """The server's pool has another owner: say what that means; resume in a pool of our own.

    The pool is named after the tournament unless --pool says otherwise, and its
    owner key lives in the database of the director that first used it: the same
    tournament started again with another --db has another key. The pool
    suggested is named after this database's key, so the command is stable.
    """
    key = records.owner_key(config.id)
    own = f"{config.id}-{hashlib.sha256(key.encode()).hexdigest()[:6]}"
    if own == pool:
        own = f"{pool}-2"
    print(
        f"arena tournament: pool {pool!r} on {flags.server or 'the server'} belongs to another"
        " director: only the holder of its owner key (made by the first director to use the"
        " pool and kept in its --db) may direct it; this may be the same tournament started"
        " with another --db. Play in a pool of your own with --pool NAME",
        file=sys.stderr,
    )
    print(f"resume with: {resume_command(replace(flags, pool=own), config)}", file=sys.stderr)
    return 2


def _play(
    flags: RunFlags, console: Console, records: TournamentRecords, config: TournamentConfig
) -> int:
    remote_secret = flags.secret or os.environ.get("ARENA_SECRET")
    secret_of = {
        p.name: (remote_secret if (p.spec is None and remote_secret) else secrets.token_urlsafe(12))
        for p in config.players
    }
    pool = flags.pool or os.environ.get("ARENA_POOL") or config.id
    local_processes = sum(p.instances for p in config.players if p.spec)
    # the remote players are the stored configuration's (a resume gives no --remote)
    remote_players = sum(1 for p in config.players if p.spec is None)
    cores = os.cpu_count() or 1
    if flags.concurrency > cores:
        console.print(
            f"[yellow]warning: {flags.concurrency} games at once on {cores} cores: searches under a"
            " time limit lose strength when starved of CPU[/]"
        )
    if local_processes and flags.concurrency * 2 > local_processes + remote_players:
        console.print(
            f"[yellow]note: {local_processes} local player processes allow fewer than"
            f" {flags.concurrency} games at once; add --instances[/]"
        )
    records.save(config, "running")
    done_before = len(records.results(config.id))
    console.print(
        f"tournament {config.id}: {config.describe()};"
        + (f" resuming with {done_before} games done" if done_before else " starting"),
        markup=False,
        soft_wrap=True,
    )
    log_dir = Path(tempfile.mkdtemp(prefix=f"arena-{config.id}-"))
    live = view.Live(
        console, config, console.is_terminal and not flags.no_progress and not flags.json
    )
    state = Run(
        config,
        records,
        secret_of,
        flags.concurrency,
        flags.max_failures,
        log_dir,
        note=live.note,
        on_result=live.on_result,
    )
    try:
        live.start(view.planned_total(config), done_before)
        outcome = trio.run(
            run_tournament,
            state,
            flags.server_address,
            flags.db_path,
            pool,
            flags.reconnect_grace,
        )
    except KeyboardInterrupt:  # before the signal handler was in place
        outcome = None
    except TournamentError as exc:
        live.stop()
        records.save(config, "stopped")
        if exc.code == "not_owner":
            return _pool_owned(flags, records, config, pool)
        print(f"arena tournament: {exc}", file=sys.stderr)
        print(f"resume with: {resume_command(flags, config)}", file=sys.stderr)
        return 1
    finally:
        live.stop()
    if outcome is None or outcome.signal is not None:
        records.save(config, "stopped")
        signum = signal.SIGINT if outcome is None else outcome.signal
        done = len(records.results(config.id))
        name = signal.Signals(signum).name if signum else "signal"
        print(
            f"stopped by {name}: {done} games stored; resume with: {resume_command(flags, config)}",
            flush=True,
        )
        return 128 + int(signum or signal.SIGINT)
    records.save(config, "finished")
    game = make_game(config.game, config.options)
    document = results_document(config, outcome.results, status="finished", game=game)
    if flags.json:
        print(json.dumps(document, indent=2))
    else:
        view.print_results(console, document)
    errors = result_files.write_outputs(flags.out, document)
    failed = {error.path for error in errors}
    if not flags.json:
        for path in flags.out:
            if path not in failed:
                console.print(f"results written to {path}", markup=False)
        console.print(f"player logs: {log_dir}", markup=False)
    if errors:  # the games are in the database: say how to write the files again
        for error in errors:
            print(f"arena tournament: {error}", file=sys.stderr)
        print(
            f"arena tournament: the {len(outcome.results)} games are stored in {flags.db_path};"
            f" write the results again with: {resume_command(flags, config)}",
            file=sys.stderr,
            flush=True,
        )
        return 1
    return 0
