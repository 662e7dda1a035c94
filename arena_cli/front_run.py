"""What `arena gtp`, `arena gomocup` and `arena text` share: the agent, the game options,
and a front answering stdin on stdout, with every refusal in one line on stderr."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import Any, Protocol, TextIO

from player.agent import Agent


class Front(Protocol):
    def run(self, lines: Any, out: TextIO) -> int: ...


def add_option_argument(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"a game option (repeatable); {what}",
    )


def run_front(
    command: str, args: argparse.Namespace, build: Callable[[Agent, dict[str, str]], Front]
) -> int:
    """Make the agent of ``args.spec`` and `build` its front, then answer stdin on stdout
    until the front is done; exit 2 with one line for a bad spec, game or option."""
    from games import parse_options
    from player.spec import make_agent

    agent: Agent | None = None
    try:
        options: dict[str, str] = {}
        for item in args.option:
            options.update(parse_options(item))
        agent = make_agent(args.spec)
        front = build(agent, options)
    except ValueError as exc:
        if agent is not None:
            agent.close()
        print(f"arena {command}: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
    try:
        status = front.run(sys.stdin, sys.stdout)
        refused = getattr(front, "refused", None)
        if refused:
            print(f"arena {command}: {refused}", file=sys.stderr)
        return status
    except (BrokenPipeError, KeyboardInterrupt):
        return 0
    finally:
        agent.close()
