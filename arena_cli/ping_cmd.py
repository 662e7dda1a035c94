"""`arena ping`: is a server up and answering? (the docker healthcheck)

Connects, shakes hands as a spectator, sends ``ping`` and waits for the
``pong``, all within ``--timeout`` seconds. Exit status 0 if it came, 1 if not.
"""

from __future__ import annotations

import argparse
import sys

import trio

from arena_cli.options import add_address_options, address, env_setting
from player.client import ClientError, PingResult, ServerUnreachable, ping_server


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "ping",
        help="check that a server answers (exit 0 or 1)",
        description="Check that a server answers: connect, say hello as a spectator and wait"
        " for the pong, all within --timeout. Exit 0 if it came, 1 if not (the Docker"
        " health check).",
    )
    add_address_options(parser)
    parser.add_argument(
        "--timeout",
        type=float,
        default=None,
        help="seconds to wait for the pong [$ARENA_PING_TIMEOUT, 3]",
    )
    parser.set_defaults(func=run)


async def ping_within(seconds: float, host: str, port: int) -> PingResult:
    """`ping_server`, failing with `ServerUnreachable` after `seconds`."""
    with trio.move_on_after(seconds):
        return await ping_server(host, port)
    raise ServerUnreachable(f"no pong from the server at {host}:{port} within {seconds:g} s")


def run(args: argparse.Namespace) -> int:
    try:
        host, port = address(args)
        timeout = env_setting(args.timeout, "ARENA_PING_TIMEOUT", float, 3.0)
        if not timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds, not {timeout!r}")
    except ValueError as exc:
        print(f"arena ping: {exc}", file=sys.stderr)
        return 2
    try:
        result = trio.run(ping_within, timeout, host, port)
    except ClientError as exc:
        print(f"arena ping: {exc}", file=sys.stderr)
        return 1
    print(f"pong from {result.server} at {host}:{port} in {result.round_trip * 1000:.1f} ms")
    return 0
