"""`arena demo`: the main job shown by `make demo`.

An embedded server and a small connect-four round-robin between MCTS at two
settings and a random player, each a separate process playing over TCP; the
standings are printed at the end. Records go to a fresh temporary database
unless --db is given.
"""

from __future__ import annotations

import argparse
import os
import tempfile

from arena_cli import tournament_cmd

DEFAULT_PLAYERS = ("mcts:time=0.2", "mcts:time=0.2,c=3.0", "random")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "demo", help="a small round-robin on an embedded server (what `make demo` runs)"
    )
    parser.add_argument("--game", default="connect4", help="game (default connect4)")
    parser.add_argument(
        "--player", action="append", default=None, help=f"player specs (default {DEFAULT_PLAYERS})"
    )
    parser.add_argument("--games-per-pair", type=int, default=2)
    parser.add_argument("--move-time", type=float, default=0.25)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--db", default=None, help="records file (default: a fresh temporary one)")
    parser.set_defaults(func=run, default_log_level="warning")


def run(args: argparse.Namespace) -> int:
    db = args.db or os.path.join(tempfile.mkdtemp(prefix="arena-demo-"), "demo.sqlite")
    argv = [
        args.game,
        *[item for spec in (args.player or DEFAULT_PLAYERS) for item in ("--player", spec)],
        "--games-per-pair", str(args.games_per_pair),
        "--move-time", str(args.move_time),
        "--concurrency", str(args.concurrency),
        "--instances", "2",
        "--db", db,
    ]  # fmt: skip
    parser = argparse.ArgumentParser(prog="arena demo")
    tournament_cmd.add_arguments(parser)
    code = tournament_cmd.run(parser.parse_args(argv))
    if code == 0:
        print(f"\nrecords: {db}  (try: arena matches --db {db})")
    return code
