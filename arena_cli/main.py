"""Entry point of the `arena` command.

Each subcommand lives in its own module exposing `add_parser(subparsers)`,
which registers the parser and sets `func` to a `run(args) -> int` function.

Start-up is lazy: `COMMANDS` names each command's module and one-line help,
so `arena --help` imports no command module at all and `arena X` imports only
X's module (benchmarks/startup.py measures it). Command modules keep their
heavy imports (trio, the server, the player) inside their `run` functions
where that matters for start-up.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from typing import NoReturn

#: command -> (module registering it, one-line help shown by `arena --help`)
COMMANDS: dict[str, tuple[str, str]] = {
    "games": ("arena_cli.games_cmd", "list the available games and their options"),
    "play": (
        "arena_cli.play_cmd",
        "play matches on a server with an agent (mcts, random, human, ...)",
    ),
    "watch": (
        "arena_cli.watch_cmd",
        "watch a match (or --all) in the terminal; without arguments, list matches",
    ),
    "serve": ("arena_cli.serve_cmd", "run the match server"),
    "tournament": (
        "arena_cli.tournament_cmd",
        "run a round-robin, gauntlet or SPRT between agent specs",
    ),
    "demo": (
        "arena_cli.demo_cmd",
        "a small round-robin on an embedded server (what `make demo` runs)",
    ),
    "engines": (
        "arena_cli.engines_cmd",
        "check an engine program (GTP, Gomocup, text protocol) or list the engines file",
    ),
    "gtp": ("arena_cli.gtp_cmd", "run an agent (mcts, ...) as a GTP engine on stdin/stdout"),
    "gomocup": (
        "arena_cli.gomocup_cmd",
        "run an agent (mcts, ...) as a Gomocup brain on stdin/stdout",
    ),
    "text": (
        "arena_cli.text_cmd",
        "run an agent (mcts, ...) as a text-protocol engine on stdin/stdout",
    ),
    "matches": ("arena_cli.records_cmd", "list recorded matches"),
    "show": ("arena_cli.records_cmd", "replay a recorded match, board after each move"),
    "export": ("arena_cli.export_cmd", "write recorded games as JSON Lines or SGF"),
    "import": (
        "arena_cli.import_cmd",
        "read JSON Lines or SGF game records, or a whole SQLite arena, into the database",
    ),
    "backup": (
        "arena_cli.backup_cmd",
        "copy the records database safely, even while a server writes to it",
    ),
    "accounts": (
        "arena_cli.accounts_cmd",
        "list, add, reset or delete registered player names (no SQL needed)",
    ),
    "ping": ("arena_cli.ping_cmd", "check that a server answers (exit 0 or 1)"),
    "status": (
        "arena_cli.status_cmd",
        "show a running server's store health and load (exit 1 if degraded)",
    ),
}

EPILOG = """examples:
  arena play connect4 human --vs mcts:time=1      play an engine yourself, in one command
  arena serve                                     run a server on 127.0.0.1:4242
  arena play tictactoe mcts:time=0.1 --games 2    connect an engine to that server
  arena play tictactoe random --tc any --games 2  and its opponent
  arena matches                                   list the recorded matches

`arena COMMAND --help` describes each command."""


def version() -> str:
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as package_version

    try:
        return package_version("mcts-arena")
    except PackageNotFoundError:  # run from a source tree without installing
        return "unknown"


class ArenaParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line: what was wrong, and where the help is.

    The subcommands' parsers are of this class too (argparse makes them with
    the class of their parent).
    """

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see `{self.prog} --help`)\n")


class _VersionAction(argparse.Action):
    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object, **kwargs: object) -> None:
        print(f"arena (mcts-arena) {version()}")
        parser.exit()


def build_parser(command: str | None = "*") -> argparse.ArgumentParser:
    """The `arena` parser; with `command` given, only that command's module is imported.

    ``"*"`` (the default) registers every command in full (tests, docs);
    None registers none in full (enough for `arena --help`).
    """
    parser = ArenaParser(
        prog="arena",
        description="MCTS Arena: networked board-game matches and tournaments.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction)
    parser.add_argument(
        "--log-level", default=None, help="debug, info, warning or error [$ARENA_LOG_LEVEL, info]"
    )
    parser.add_argument(
        "--log-format",
        choices=("console", "json"),
        default=None,
        help="log line format [$ARENA_LOG_FORMAT; console on a terminal, else json]",
    )
    parser.add_argument(
        "--tls", action="store_true", help="connect to servers over TLS [$ARENA_TLS]"
    )
    parser.add_argument(
        "--ca",
        default=None,
        metavar="FILE",
        help="trust the server certificates this PEM authority signed (implies --tls) [$ARENA_CA]",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    if command == "*":
        full = {module for module, _ in COMMANDS.values()}
    else:
        full = {COMMANDS[command][0]} if command in COMMANDS else set()
    loaded: set[str] = set()
    for name, (module_name, help_text) in COMMANDS.items():
        if name in loaded:
            continue
        if module_name in full:
            before = set(subparsers.choices)
            importlib.import_module(module_name).add_parser(subparsers)
            loaded |= set(subparsers.choices) - before
        else:
            subparsers.add_parser(name, help=help_text)
            loaded.add(name)
    # the global flags also work after the command (`arena serve --log-level debug`)
    for sub in subparsers.choices.values():
        sub.add_argument("--log-level", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
        sub.add_argument(
            "--log-format",
            choices=("console", "json"),
            default=argparse.SUPPRESS,
            help=argparse.SUPPRESS,
        )
        sub.add_argument(
            "--tls", action="store_true", default=argparse.SUPPRESS, help=argparse.SUPPRESS
        )
        sub.add_argument("--ca", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The command word in `argv` (skipping the global options and their values)."""
    skip = False
    for item in argv:
        if skip:
            skip = False
        elif item in ("--log-level", "--log-format", "--ca"):
            skip = True
        elif not item.startswith("-"):
            return item
    return None


def main(argv: Sequence[str] | None = None) -> int:
    from arena_cli import stops

    args_list = list(sys.argv[1:] if argv is None else argv)
    restore = stops.install()
    try:
        return _main(args_list)
    except BrokenPipeError:  # `arena show X | head`: the reader left; nothing to say
        _drop_stdout()
        return 141
    except BaseException as exc:
        if stops.is_broken_pipe(exc):  # a reader that left while a nursery ran (a tournament)
            _drop_stdout()
            return 141
        if not stops.is_interrupt(exc):
            raise
        code, line = stops.stop_status()
        # a task the interrupt left unstarted is collected at exit, and its coroutine's "never
        # awaited" warning would follow the one line
        warnings.filterwarnings(
            "ignore", message="coroutine .* was never awaited", category=RuntimeWarning
        )
        print(line, file=sys.stderr, flush=True)
        return code
    finally:
        restore()
        _silence_failed_sinks()


def _main(argv: list[str]) -> int:
    parser = build_parser(_command_of(argv))
    args = parser.parse_args(argv)
    from arena_cli.logs import check_level, configure_logging

    if getattr(args, "func", None) is None:
        if args.command is not None:  # a command registered without its module: a bug
            parser.error(f"command {args.command!r} is not available")
        try:
            check_level(args.log_level)
        except ValueError as exc:
            parser.error(str(exc))
        parser.print_help()
        return 2
    if args.tls or args.ca:  # every client connection (and child process) uses TLS
        if args.ca and not os.access(args.ca, os.R_OK):
            parser.error(f"--ca {args.ca}: cannot read that file")
        os.environ["ARENA_TLS"] = "1"
        if args.ca:
            os.environ["ARENA_CA"] = os.path.abspath(args.ca)
    try:
        if not getattr(args, "logs", True):  # a command that never logs (start-up time)
            check_level(args.log_level)
        else:
            _configure(args, configure_logging)
    except ValueError as exc:
        parser.error(str(exc))
    return int(args.func(args))


def _configure(args: argparse.Namespace, configure_logging: Callable[..., None]) -> None:
    # commands whose logs are their output (serve) log to stdout, the others to stderr
    stream = sys.stdout if getattr(args, "log_stream", "stderr") == "stdout" else sys.stderr
    configure_logging(
        args.log_level or getattr(args, "default_log_level", None),
        json=None if args.log_format is None else args.log_format == "json",
        stream=stream,
    )


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's final flush stays quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _silence_failed_sinks() -> None:
    """Point a log sink that failed (a closed pipe) at /dev/null, so exiting stays quiet."""
    logs = sys.modules.get("arena_cli.logs")
    if logs is None:
        return
    for sink in logs.FAILED_SINKS:
        stream = getattr(sys, sink.name)
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError):
            pass


if __name__ == "__main__":
    sys.exit(main())
