"""`arena serve`: run the match server until interrupted (Ctrl-C or SIGTERM)."""

from __future__ import annotations

import argparse
import signal
import sys

import structlog
import trio

from server.app import ArenaServer, open_store
from server.config import build_config
from server.store import StoreError

log = structlog.get_logger("arena.server")


def add_server_options(parser: argparse.ArgumentParser) -> None:
    """Flags shared by commands that run a server (serve, tournament). None = not given."""
    parser.add_argument(
        "--host", default=None, help="address to listen on [$ARENA_HOST, 127.0.0.1]"
    )
    parser.add_argument("--port", type=int, default=None, help="TCP port [$ARENA_PORT, 4242]")
    parser.add_argument("--db", default=None, help="SQLite records file [$ARENA_DB, arena.sqlite]")
    parser.add_argument("--no-db", action="store_true", help="keep no records")
    parser.add_argument(
        "--move-time", type=float, default=None, help="seconds per move [$ARENA_MOVE_TIME, 1.0]"
    )
    parser.add_argument(
        "--lag-margin",
        type=float,
        default=None,
        help="network slack before a timeout [$ARENA_LAG_MARGIN, 0.2]",
    )
    parser.add_argument(
        "--illegal-retries",
        type=int,
        default=None,
        help="extra tries after an illegal move; 0 = forfeit [$ARENA_ILLEGAL_RETRIES, 0]",
    )
    parser.add_argument(
        "--reconnect-grace",
        type=float,
        default=None,
        help="seconds a dropped seat may take to come back [$ARENA_RECONNECT_GRACE, 10]",
    )
    parser.add_argument(
        "--max-frame",
        type=int,
        default=None,
        help="largest accepted frame in bytes [$ARENA_MAX_FRAME, 65536]",
    )


def config_overrides(args: argparse.Namespace) -> dict[str, object]:
    overrides: dict[str, object] = {
        "host": args.host,
        "port": args.port,
        "db": args.db,
        "move_time": args.move_time,
        "lag_margin": args.lag_margin,
        "illegal_retries": args.illegal_retries,
        "reconnect_grace": args.reconnect_grace,
        "max_frame": args.max_frame,
    }
    if args.no_db:
        overrides["db"] = ""
    return overrides


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("serve", help="run the match server")
    add_server_options(parser)
    parser.set_defaults(func=run, log_stream="stdout")


async def serve_until_signalled(server: ArenaServer) -> None:
    """Run `server` until SIGINT or SIGTERM, then shut down cleanly."""
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.serve)
            async for signum in signals:
                log.info("shutting_down", signal=signal.Signals(signum).name)
                nursery.cancel_scope.cancel()
                break


def run(args: argparse.Namespace) -> int:
    try:
        config = build_config(config_overrides(args))
        store = open_store(config.db)
    except (ValueError, StoreError, OSError) as exc:
        print(f"arena serve: {exc}", file=sys.stderr)
        return 2
    server = ArenaServer(config, store=store)
    try:
        trio.run(serve_until_signalled, server)
    except StoreError as exc:  # e.g. the journal of unwritten results cannot be imported
        print(f"arena serve: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # e.g. address already in use
        print(
            f"arena serve: cannot listen on {config.host}:{config.port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 1
    finally:
        if store is not None:
            store.close()
    return 0
