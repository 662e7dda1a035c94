"""`arena status`: the state of a running server and of its records store.

Connects as a spectator, sends ``status`` and prints the ``server_status``
answer: whether the store is writing (ok), failing and retrying (degraded,
with the error and since when) or off, how many results and moves wait to be
written, how many are journaled, and the server's load. Exit status 0 when
the store is ok or off, 1 when it is degraded or the server cannot be reached.
"""

from __future__ import annotations

import argparse
import sys

import msgspec
import trio

from arena_cli.options import add_address_options, address
from protocol.client import open_connection
from protocol.errors import ClientError, ServerRejected, ServerUnreachable
from protocol.messages import Error, ServerStatus, Status


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "status",
        help="show a running server's store health and load (exit 1 if degraded)",
        description="Show a running server's records store (ok, degraded with its error and"
        " since when, or off), the results waiting to be written, and its load. Exit 0 when"
        " the store is ok or off, 1 when it is degraded or the server cannot be reached.",
    )
    add_address_options(parser)
    parser.add_argument("--timeout", type=float, default=3.0, help="seconds to wait [3]")
    parser.add_argument("--json", action="store_true", help="print the answer as JSON")
    parser.set_defaults(func=run)


async def fetch_status(host: str, port: int) -> ServerStatus:
    """Ask the server at host:port for its ``server_status`` (`ClientError` if it cannot).

    A refusal is `ServerRejected` with the server's code, not a lost connection.
    """
    conn = await open_connection(host, port, client="arena-status/1")
    try:
        await conn.handshake("arena-status", "spectator")
        await conn.send(Status())
        while True:
            message = await conn.receive()
            if isinstance(message, ServerStatus):
                return message
            if isinstance(message, Error):
                raise ServerRejected(message.code, message.message)
    finally:
        await conn.aclose()


def describe(status: ServerStatus) -> str:
    if status.store == "degraded":
        store = (
            f"DEGRADED for {status.degraded_for or 0:.0f}s ({status.store_error});"
            f" {status.pending_results} results and {status.pending_moves} moves waiting,"
            f" {status.journaled} journaled" + ("" if status.accepting else "; new matches refused")
        )
    elif status.store == "off":
        store = "off (no records kept)"
    else:
        store = f"ok ({status.pending_moves} moves waiting to be written)"
    return f"store: {store}\nmatches: {status.matches}, connections: {status.connections}"


def run(args: argparse.Namespace) -> int:
    try:
        host, port = address(args)
        if not args.timeout > 0:
            raise ValueError(f"--timeout must be > 0 seconds, not {args.timeout!r}")
    except ValueError as exc:
        print(f"arena status: {exc}", file=sys.stderr)
        return 2

    async def within() -> ServerStatus | None:
        with trio.move_on_after(args.timeout):
            return await fetch_status(host, port)
        return None

    try:
        status = trio.run(within)
    except ServerUnreachable as exc:
        print(f"arena status: {exc}", file=sys.stderr)
        return 1
    except ServerRejected as exc:
        print(f"arena status: the server at {host}:{port} refused: {exc}", file=sys.stderr)
        return 1
    except ClientError as exc:
        print(f"arena status: cannot reach the server at {host}:{port}: {exc}", file=sys.stderr)
        return 1
    if status is None:
        print(
            f"arena status: no answer from {host}:{port} within {args.timeout:g}s", file=sys.stderr
        )
        return 1
    if args.json:
        print(msgspec.json.encode(status).decode())
    else:
        print(describe(status))
    return 1 if status.store == "degraded" else 0
