"""`arena --help`, every `arena COMMAND --help` and docs/CLI.md agree (issue 26, item 8).

The help texts are read as a user reads them (`arena ... --help` in a
subprocess); docs/CLI.md's command table must list the same commands and, for
each, the same options. Every command has a description, every option a help
text, and no help shows a Python value where a person expects words.
"""

from __future__ import annotations

import argparse
import re
from concurrent.futures import ThreadPoolExecutor

from arena_cli.main import COMMANDS, build_parser
from tests.arena_cli.cli import ROOT, run

CLI_DOC = (ROOT / "docs" / "CLI.md").read_text()


def documented_table() -> dict[str, set[str]]:
    """docs/CLI.md's command table: command ("" for `arena` itself) -> its options."""
    section = CLI_DOC.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    table: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        first = re.match(r"`arena(?: ([a-z]+(?: [a-z]+)?))?", cells[0])
        if len(cells) != 3 or first is None:
            continue
        options = set(re.findall(r"`(--?[a-z][\w-]*)`", cells[2]))
        table.setdefault(first.group(1) or "", set()).update(options)
    return table


def listed_options(help_text: str) -> set[str]:
    """The options a help text lists (its option lines, before the help column)."""
    options: set[str] = set()
    for line in help_text.splitlines():
        if re.match(r"  -", line):
            invocation = re.split(r"\s{2,}", line.strip())[0]
            options.update(part.split()[0] for part in invocation.split(", "))
    return options - {"-h", "--help"}


def description(help_text: str) -> str:
    """What a help text says between its usage and its arguments."""
    body = help_text.split("\n\n", 1)[1] if "\n\n" in help_text else ""
    return re.split(r"^(?:positional arguments|options|\S.*:)$", body, flags=re.M)[0].strip()


def actions(command: str) -> list[str]:
    """The actions of a command that has them (``arena engines check``), else none."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    inner = [a for a in sub.choices[command]._actions if isinstance(a, argparse._SubParsersAction)]
    return [f"{command} {action}" for action in inner[0].choices] if inner else []


def test_the_docs_and_every_help_list_the_same_commands_and_options() -> None:
    names = ["", *COMMANDS]
    names += [action for name in COMMANDS for action in actions(name)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        done = list(pool.map(lambda name: run(*name.split(), "--help"), names))
    helps = {}
    for name, shown in zip(names, done, strict=True):
        assert shown.returncode == 0, shown.stderr
        helps[name] = shown.stdout
    top = " ".join(helps[""].split())
    for name, (_, line) in COMMANDS.items():
        assert f" {name} {' '.join(line.split())}" in top, name  # each with its one line
        assert description(helps[name]), f"arena {name} --help has no description"
    table = documented_table()
    with_actions = {name for name in COMMANDS if actions(name)}  # listed by their actions
    assert sorted(table) == sorted(set(names) - with_actions), "docs/CLI.md commands differ"
    for name in set(names) - with_actions:
        assert table[name] == listed_options(helps[name]), f"arena {name}".strip()


def test_every_option_has_help_and_no_python_values_show() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    parsers = {"arena": parser} | {f"arena {n}": p for n, p in sub.choices.items()}
    for name, command in parsers.items():
        for action in command._actions:
            if action.help == argparse.SUPPRESS or isinstance(action, type(sub)):
                continue  # hidden, or the list of commands (each has its help)
            assert action.help and action.help.strip(), (name, action.option_strings)
        text = command.format_help()
        assert not re.search(r"[(\[]'[^']*',\s*'", text), f"{name} --help shows a Python tuple"
    assert "DEST is a file, or a directory" in " ".join(sub.choices["backup"].format_help().split())
