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
from protocol.codec import (
    ConnectionClosed,
    FrameReader,
    ProtocolError,
    encode_message,
    server_message_decoder,
)
from protocol.messages import PROTOCOL_VERSION, Error, Hello, ServerStatus, Status
from protocol.transport import open_stream


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
    """Ask the server at host:port for its ``server_status``."""
    stream = await open_stream(host, port)
    async with stream:
        await stream.send_all(
            encode_message(Hello(version=PROTOCOL_VERSION, name="arena-status", role="spectator"))
            + encode_message(Status())
        )
        reader = FrameReader(stream, 1 << 20)
        decoder = server_message_decoder()
        while True:
            message = decoder.decode(await reader.read_frame())
            if isinstance(message, ServerStatus):
                return message
            if isinstance(message, Error):
                raise ConnectionClosed(f"the server refused: {message.code}: {message.message}")


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
    except OSError as exc:
        from protocol.client import describe_os_error

        reason = describe_os_error(exc)
        print(f"arena status: cannot reach the server at {host}:{port} ({reason})", file=sys.stderr)
        return 1
    except (ConnectionClosed, ProtocolError) as exc:
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
