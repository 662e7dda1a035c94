"""`arena watch`: a terminal spectator.

``arena watch MATCH`` follows one match to its end; ``arena watch --all``
follows every match the server plays (until Ctrl-C); plain ``arena watch``
lists the matches being played.
"""

from __future__ import annotations

import argparse
import sys

import trio

from arena_cli.options import add_address_options, address, env_setting
from player.client import ClientError
from player.watch import format_matches, list_matches, watch_all, watch_match


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "watch",
        help="watch a match (or --all) in the terminal; without arguments, list matches",
        description="Watch matches in the terminal: MATCH follows one match to its end, --all"
        " follows every match (new ones too) until Ctrl-C; with neither, list the matches"
        " being played.",
    )
    parser.add_argument("match", nargs="?", help="id of the match to watch")
    parser.add_argument("--all", action="store_true", help="watch every match, new ones too")
    add_address_options(parser)
    parser.add_argument(
        "--interval",
        type=float,
        default=2.0,
        help="with --all, on a server that cannot follow every match for us:"
        " seconds between looks for new matches [2]",
    )
    parser.add_argument(
        "--connect-wait",
        type=float,
        default=None,
        help="seconds to keep retrying while the server is down [$ARENA_CONNECT_WAIT, 0]",
    )
    parser.set_defaults(func=run, default_log_level="warning")  # its output is the board


def run(args: argparse.Namespace) -> int:
    try:
        host, port = address(args)
        wait = env_setting(args.connect_wait, "ARENA_CONNECT_WAIT", float, 0.0)
        if args.all and args.match:
            raise ValueError("give a MATCH or --all, not both")
        if not args.interval > 0:
            raise ValueError(f"--interval must be > 0 seconds, not {args.interval!r}")
    except ValueError as exc:
        print(f"arena watch: {exc}", file=sys.stderr)
        return 2
    try:
        if args.all:
            trio.run(lambda: watch_all(host, port, interval=args.interval, connect_wait=wait))
        elif args.match:
            trio.run(lambda: watch_match(host, port, args.match, connect_wait=wait))
        else:
            print(format_matches(trio.run(lambda: list_matches(host, port, connect_wait=wait))))
    except ClientError as exc:
        print(f"arena watch: {exc}", file=sys.stderr)
        return 1
    return 0
