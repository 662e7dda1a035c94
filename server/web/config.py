"""Settings of the web front door (`arena serve --web [HOST:]PORT`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

#: engines offered to humans when `--engine` is not given
DEFAULT_ENGINES = ("random", "mcts")

#: what an engine offered on the web may be called
ENGINE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,32}$")


@dataclass(frozen=True, slots=True)
class WebConfig:
    """Where the web app listens and what it allows."""

    host: str = "127.0.0.1"
    port: int = 8080
    #: extra origins (``scheme://host[:port]``) allowed to open the WebSocket; the
    #: page's own origin (the request's Host) is always allowed
    origins: tuple[str, ...] = ()
    #: engine name -> agent spec for `arena play` (e.g. ``"mcts": "mcts:time=1"``)
    engines: dict[str, str] = field(default_factory=dict)
    #: engine processes running at once; more requests get HTTP 429
    engine_limit: int = 4
    #: seconds an engine waits in its room for the human before it is stopped
    engine_wait: float = 60.0
    #: largest WebSocket message accepted (JSON text is larger than its msgpack frame)
    max_message: int = 256 * 1024
    #: seconds between the lobby page's refreshes
    lobby_refresh: float = 2.0

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"web port must be in 0..65535, not {self.port!r}")
        if self.engine_limit < 0:
            raise ValueError(f"engine limit must be >= 0, not {self.engine_limit!r}")
        if not self.engine_wait > 0:
            raise ValueError(f"engine wait must be > 0 seconds, not {self.engine_wait!r}")
        for name in self.engines:
            if not ENGINE_NAME.match(name):
                raise ValueError(
                    f"engine name must be 1-32 letters, digits, '_', '.' or '-', not {name!r}"
                )
        for origin in self.origins:
            if not re.match(r"^https?://[^/\s]+$", origin):
                raise ValueError(
                    f"origin must look like http://host[:port] (no path), not {origin!r}"
                )


def parse_web_address(text: str, default_host: str = "127.0.0.1") -> tuple[str, int]:
    """``PORT``, ``HOST:PORT`` or ``[V6]:PORT`` -> (host, port); ValueError otherwise."""
    text = text.strip()
    host, sep, port_text = text.rpartition(":")
    if not sep:
        host, port_text = default_host, text
    host = host.strip("[]") or default_host
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"--web wants [HOST:]PORT, not {text!r}") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"web port must be in 0..65535, not {port}")
    return host, port


def parse_engine(text: str) -> tuple[str, str]:
    """``NAME=SPEC`` or ``SPEC`` (named after its kind) -> (name, spec)."""
    name, sep, spec = text.partition("=")
    if not sep or ":" in name or "," in name:  # a SPEC alone (engine:cmd=... has '=' inside)
        spec = text
        name = text.partition(":")[0]
    name, spec = name.strip(), spec.strip()
    if not spec:
        raise ValueError(f"--engine wants NAME=SPEC or SPEC, not {text!r}")
    if not ENGINE_NAME.match(name):
        raise ValueError(f"engine name must be 1-32 letters, digits, '_', '.' or '-', not {name!r}")
    return name, spec


def header(scope: Mapping[str, Any], name: bytes) -> str | None:
    """An ASGI scope's header `name` (lower case), decoded, or None."""
    for key, value in scope.get("headers", []):
        if key.lower() == name:
            return str(value.decode("latin-1"))
    return None


def origin_allowed(scope: Mapping[str, Any], allowed: tuple[str, ...]) -> bool:
    """No Origin (not a browser), the page's own origin, or one the operator allowed."""
    origin = header(scope, b"origin")
    if origin is None:
        return True
    if origin.rstrip("/") in allowed:
        return True
    host = header(scope, b"host")
    return host is not None and urlsplit(origin).netloc.lower() == host.lower()
