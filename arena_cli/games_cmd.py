"""`arena games`: list every registered game with its options and notation."""

from __future__ import annotations

import argparse

from rich.table import Table

from arena_cli.console import make_console
from games import available_games


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "games",
        help="list the available games and their options",
        description="List every game (built-in and plug-in) with its options, their defaults,"
        " and the notation of its moves.",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    console = make_console()
    table = Table(title="Games", show_lines=True)
    table.add_column("name", style="bold")
    table.add_column("description")
    table.add_column("options (default)")
    table.add_column("move notation")
    for name, cls in available_games().items():
        options = "\n".join(
            f"{spec.name}={spec.default!r}: {spec.help}" for spec in cls.option_specs
        )
        table.add_row(name, cls.description, options or "-", cls.notation_help)
    console.print(table)
    return 0
