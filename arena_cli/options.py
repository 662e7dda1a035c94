"""Option helpers shared by the commands that talk to a server (light imports only).

Every flag falls back to an environment variable (flags win), so a container
can be configured by its environment alone.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 4242
#: the clock a human plays when neither --tc nor --move-time says otherwise (`arena play`)
HUMAN_TC = "5+3"

KINDS: dict[Any, str] = {int: "integer", float: "number", str: "string"}


def env_setting(value: T | None, var: str, parse: Callable[[str], T], default: T) -> T:
    """`value` if given, else $`var` parsed with `parse`, else `default`."""
    if value is not None:
        return value
    raw = os.environ.get(var, "").strip()
    if not raw:
        return default
    try:
        return parse(raw)
    except ValueError:
        raise ValueError(f"${var}={raw!r} is not a valid {KINDS.get(parse, 'value')}") from None


def add_address_options(parser: argparse.ArgumentParser) -> None:
    """--host and --port, falling back to $ARENA_HOST and $ARENA_PORT."""
    parser.add_argument(
        "--host", default=None, help=f"server address [$ARENA_HOST, {DEFAULT_HOST}]"
    )
    parser.add_argument(
        "--port", type=int, default=None, help=f"server port [$ARENA_PORT, {DEFAULT_PORT}]"
    )


def address(args: argparse.Namespace) -> tuple[str, int]:
    """The server address from the flags or the environment."""
    host = env_setting(args.host, "ARENA_HOST", str, DEFAULT_HOST)
    port = env_setting(args.port, "ARENA_PORT", int, DEFAULT_PORT)
    if not 0 < port <= 65535:
        given = "--port" if args.port is not None else "$ARENA_PORT"
        raise ValueError(f"{given} {port}: a port must be in 1..65535")
    return host, port


def parse_servers(text: str, flag: str = "--server") -> list[tuple[str, int]]:
    """``HOST:PORT[,HOST:PORT...]`` -> [(host, port), ...] (ValueError naming `flag`)."""
    found: list[tuple[str, int]] = []
    for item in text.split(","):
        item = item.strip()
        host, _, port_text = item.rpartition(":")
        host = host.removeprefix("[").removesuffix("]")  # [::1]:4242
        if not host or not port_text.isdigit() or not 0 < int(port_text) <= 65535:
            raise ValueError(
                f"{flag} takes HOST:PORT, or several separated by commas"
                f" (e.g. 10.0.0.1:4242,10.0.0.2:4242), not {item!r}"
            )
        found.append((host, int(port_text)))
    return found


#: the help of every command's ``--db``
DB_HELP = "records database: an SQLite file or a postgresql:// URL [$ARENA_DB, arena.sqlite]"


def db_path(path: str | None) -> str:
    """The records database: `--db`, else $ARENA_DB, else arena.sqlite (a file or a URL)."""
    return path or os.environ.get("ARENA_DB") or "arena.sqlite"


def parse_time_control(text: str) -> tuple[float, float] | None:
    """``5+3`` -> (300.0, 3.0): minutes + seconds a move, as on lichess; ``any`` -> None.

    Raises ValueError with the accepted forms.
    """
    raw = text.strip().lower()
    if raw == "any":
        return None
    minutes, plus, increment = raw.partition("+")
    try:
        initial = float(minutes) * 60
        extra = float(increment) if plus else 0.0
    except ValueError:
        raise ValueError(
            f"time control {text!r} is not MINUTES+SECONDS (e.g. 5+3, 1+0, 0.5+1) or 'any'"
        ) from None
    if not 0 < initial <= 86_400 or not 0 <= extra <= 3600:
        raise ValueError(
            f"time control {text!r}: minutes must be in (0, 1440], increment in [0, 3600] s"
        )
    return initial, extra


def check_port_free(host: str, port: int, flag: str = "--port") -> None:
    """ValueError (one line) if nothing can listen on ``host:port`` now (0: any port is fine)."""
    import errno
    import socket

    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(
            host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as exc:
        raise ValueError(
            f"cannot listen on {host}:{port}: unknown address ({exc.strerror})"
        ) from None
    family, kind, proto, _, sockaddr = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
        try:
            probe.bind(sockaddr)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            if exc.errno == errno.EADDRINUSE:
                reason += f" (another server there? choose another {flag})"
            raise ValueError(f"cannot listen on {host}:{port}: {reason}") from None


def add_engines_option(parser: argparse._ActionsContainer) -> None:
    """``--engines FILE``: the engines file that ``engine:NAME`` specs read (docs/ENGINES.md)."""
    parser.add_argument(
        "--engines",
        default=None,
        metavar="FILE",
        help="engines file (TOML) that engine:NAME specs name [$ARENA_ENGINES, ./engines.toml]",
    )


def apply_engines_option(value: str | None) -> None:
    """Check ``--engines FILE`` and hand it on (``$ARENA_ENGINES``) to this process and its
    children; ValueError (one line, naming the flag) if the file is missing or invalid."""
    from pathlib import Path

    from player.engines.config import ENGINES_ENV, load_engines_file

    if value is None:
        return
    path = Path(value).expanduser()
    try:
        load_engines_file(path)
    except ValueError as exc:
        raise ValueError(f"--engines: {exc}") from None
    os.environ[ENGINES_ENV] = str(path.resolve())
