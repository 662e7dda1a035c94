"""Entry point of the `arena` command.

Each subcommand lives in its own module exposing `add_parser(subparsers)`,
which registers the parser and sets `func` to a `run(args) -> int` function.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence

SUBCOMMAND_MODULES = (
    "arena_cli.games_cmd",
    "arena_cli.demo_cmd",
    "arena_cli.serve_cmd",
    "arena_cli.records_cmd",
    "arena_cli.export_cmd",
    "arena_cli.import_cmd",
    "arena_cli.tournament_cmd",
    "arena_cli.play_cmd",
    "arena_cli.watch_cmd",
    "arena_cli.ping_cmd",
    "arena_cli.status_cmd",
    "arena_cli.backup_cmd",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena",
        description="MCTS Arena: networked board-game matches and tournaments.",
    )
    parser.add_argument("--log-level", default=None, help="debug, info, warning or error")
    parser.add_argument(
        "--log-format", choices=("console", "json"), default=None, help="log line format"
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in SUBCOMMAND_MODULES:
        importlib.import_module(module_name).add_parser(subparsers)
    # the global flags also work after the command (`arena serve --log-level debug`)
    for sub in subparsers.choices.values():
        sub.add_argument("--log-level", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        sub.add_argument(
            "--log-format",
            choices=("console", "json"),
            default=argparse.SUPPRESS,
            help=argparse.SUPPRESS,
        )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from arena_cli.logs import configure_logging

    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        # commands whose logs are their output (serve) log to stdout, the others to stderr
        stream = sys.stdout if getattr(args, "log_stream", "stderr") == "stdout" else sys.stderr
        configure_logging(
            args.log_level or getattr(args, "default_log_level", None),
            json=None if args.log_format is None else args.log_format == "json",
            stream=stream,
        )
    except ValueError as exc:
        parser.error(str(exc))
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    finally:
        _silence_failed_sinks()


def _silence_failed_sinks() -> None:
    """Point a log sink that failed (a closed pipe) at /dev/null, so exiting stays quiet."""
    from arena_cli.logs import FAILED_SINKS

    for sink in FAILED_SINKS:
        stream = getattr(sys, sink.name)
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError):
            pass


if __name__ == "__main__":
    sys.exit(main())
