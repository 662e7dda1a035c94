"""Entry point of the `arena` command.

Each subcommand lives in its own module exposing `add_parser(subparsers)`,
which registers the parser and sets `func` to a `run(args) -> int` function.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

SUBCOMMAND_MODULES = (
    "arena_cli.games_cmd",
    "arena_cli.demo_cmd",
    "arena_cli.serve_cmd",
    "arena_cli.records_cmd",
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
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    from arena_cli.logs import configure_logging

    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        configure_logging(
            args.log_level,
            json=None if args.log_format is None else args.log_format == "json",
            stream=sys.stderr,
        )
    except ValueError as exc:
        parser.error(str(exc))
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
