"""Server settings and match policies.

Policies are explicit values, not code paths: what a timeout or an illegal
move costs, how long a dropped seat may take to come back. Every setting has
an environment-variable equivalent (see `from_env`); command-line flags win.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, Protocol

from protocol.codec import DEFAULT_MAX_FRAME
from protocol.messages import Clock
from server.ladder_spec import LadderSpec, check_ladders
from server.proxy_protocol import parse_network


class DeadStonesReferee(Protocol):
    """Who says which stones are dead at the end of a Go game between engines
    (``arena serve --referee``; `player.engines.referee.GtpReferee`)."""

    name: str

    def dead_stones(self, game: Any, moves: Sequence[Any]) -> frozenset[int]:
        """(Blocking: run off the event loop) the points of the dead stones after
        `moves`; any exception means the referee could not say."""
        ...


@dataclass(frozen=True, slots=True)
class MatchPolicy:
    """Rules of arbitration that are not the game's rules.

    `illegal_retries` = 0 means an illegal (or malformed) move forfeits the game;
    n > 0 allows n more attempts within the same move's time, each answered with
    an ``illegal`` message. A timeout always forfeits.
    """

    move_time: float = 1.0
    lag_margin: float = 0.2
    illegal_retries: int = 0
    reconnect_grace: float = 10.0
    #: the default time control as a clock, instead of `move_time` for seeks that ask
    #: for neither (docs/PROTOCOL.md, "Time controls")
    clock: Clock | None = None
    #: asked for the dead stones after a Go game between engines ends by the count;
    #: None: the board is counted as it stands (Tromp–Taylor)
    referee: DeadStonesReferee | None = None

    def __post_init__(self) -> None:
        if not self.move_time > 0:
            raise ValueError(f"move_time must be > 0 seconds, not {self.move_time!r}")
        if self.clock is not None and not (
            0 < self.clock.initial <= 86_400 and 0 <= self.clock.increment <= 3600
        ):
            raise ValueError(
                f"clock must be (0, 86400] seconds + [0, 3600] increment, not {self.clock!r}"
            )
        if self.lag_margin < 0:
            raise ValueError(f"lag_margin must be >= 0 seconds, not {self.lag_margin!r}")
        if self.illegal_retries < 0:
            raise ValueError(f"illegal_retries must be >= 0, not {self.illegal_retries!r}")
        if self.reconnect_grace < 0:
            raise ValueError(f"reconnect_grace must be >= 0 seconds, not {self.reconnect_grace!r}")


#: this host's own addresses, for `ServerConfig.trusted_addresses`
LOOPBACK = ("127.0.0.0/8", "::1")


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything `arena serve` can be told."""

    host: str = "127.0.0.1"
    port: int = 4242
    db: str | None = "arena.sqlite"
    policy: MatchPolicy = field(default_factory=MatchPolicy)
    max_move_time: float = 600.0
    max_frame: int = DEFAULT_MAX_FRAME
    handshake_timeout: float = 5.0
    ping_interval: float = 15.0
    idle_timeout: float = 60.0
    send_queue: int = 256
    name: str = "mcts-arena"
    #: how long a finished match waits for its result to commit before ``match_end``
    record_wait: float = 2.0
    #: ended matches whose records are not yet written; beyond it new matches are refused
    max_pending_results: int = 10_000
    #: who writes the records database: a child ``process`` (the event loop keeps the
    #: GIL: store/writer.py) or a worker ``thread`` of the server process
    store_writer: str = "process"
    # --- limits (docs/PROTOCOL.md "Limits"): what one client may hold or send
    max_connections: int = 10_000
    max_connections_per_address: int = 256
    max_rooms: int = 10_000
    max_rooms_per_connection: int = 8
    max_pools: int = 10_000
    max_pools_per_connection: int = 16
    max_spectating: int = 64
    #: bytes queued for one client before it is disconnected as too slow
    max_buffered_bytes: int = 4 * 1024 * 1024
    #: messages per second (and burst) per connection, then per address
    message_rate: float = 200.0
    message_burst: float = 400.0
    address_message_rate: float = 20_000.0
    address_message_burst: float = 40_000.0
    #: failed credentials (secret, owner key, seat token, password) per second and burst
    auth_failure_rate: float = 0.2
    auth_failure_burst: float = 10.0
    address_auth_failure_rate: float = 1.0
    address_auth_failure_burst: float = 50.0
    #: how long a pool with neither director nor seekers keeps its owner before it is reclaimed
    pool_grace: float = 300.0
    #: "open": anyone may play under an unregistered name; "registered": only registered names
    accounts: str = "open"
    #: a hello with a password for an unregistered name registers it (CGOS-style)
    registration: bool = True
    #: TLS: the server's certificate chain and private key (PEM files); both or neither
    tls_cert: str | None = None
    tls_key: str | None = None
    #: on a shared database (PostgreSQL): seconds a node stays alive without renewing its
    #: lease; a node silent for longer is dead, and a survivor ends its matches
    node_lease: float = 10.0
    #: on a shared database: seconds a plain seek waits for a partner on its own node before
    #: it is offered to every node through the database (0: at once)
    seek_hold: float = 0.2
    #: on a shared database: where clients reach this node ("host:port"; default: the
    #: address it listens on)
    advertise: str | None = None
    #: behind a TCP load balancer: connections from `trusted_proxies` (IP addresses or
    #: networks) begin with a PROXY protocol header naming the client (server/proxy_protocol.py)
    proxy_protocol: bool = False
    trusted_proxies: tuple[str, ...] = ()
    #: client addresses (IP addresses or networks) exempt from the per-address limits
    #: (connections and message rate): the server's own host running many bots
    trusted_addresses: tuple[str, ...] = ()
    #: the ladders this server runs (``--ladder``, docs/LADDER.md)
    ladders: tuple[LadderSpec, ...] = ()
    #: seconds between two fits of a ladder's ratings (refitted only after new games)
    ladder_rating_interval: float = 10.0
    #: seconds two ready bots that have just played each other wait for another
    #: opponent before they play again (when the ladder has others)
    ladder_repeat_wait: float = 30.0

    def __post_init__(self) -> None:
        if not 0 <= self.port <= 65535:
            raise ValueError(f"port must be in 0..65535, not {self.port!r}")
        if self.max_frame < 1024:
            raise ValueError(f"max_frame must be >= 1024 bytes, not {self.max_frame!r}")
        if self.policy.move_time > self.max_move_time:
            raise ValueError(
                f"move_time {self.policy.move_time} exceeds max_move_time {self.max_move_time}"
            )
        if self.max_pending_results < 1:
            raise ValueError(f"max_pending_results must be >= 1, not {self.max_pending_results!r}")
        if self.store_writer not in ("process", "thread"):
            raise ValueError(f"store_writer must be process or thread, not {self.store_writer!r}")
        if not 0 <= self.seek_hold <= 60:
            raise ValueError(f"seek_hold must be in 0..60 seconds, not {self.seek_hold!r}")
        if not self.node_lease >= 1.0:
            raise ValueError(f"node_lease must be >= 1 second, not {self.node_lease!r}")
        if self.record_wait < 0:
            raise ValueError(f"record_wait must be >= 0 seconds, not {self.record_wait!r}")
        for name in ("handshake_timeout", "ping_interval", "idle_timeout"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0 seconds, not {getattr(self, name)!r}")
        for name in LIMIT_FIELDS:
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, not {getattr(self, name)!r}")
        if self.pool_grace < 0:
            raise ValueError(f"pool_grace must be >= 0 seconds, not {self.pool_grace!r}")
        if (self.tls_cert is None) != (self.tls_key is None):
            raise ValueError("TLS needs both a certificate (--tls-cert) and its key (--tls-key)")
        if self.proxy_protocol and not self.trusted_proxies:
            raise ValueError(
                "the PROXY protocol needs the proxies it trusts (--trusted-proxy ADDRESS[/BITS])"
            )
        for network in self.trusted_proxies:
            parse_network(network)  # ValueError naming it
        for network in self.trusted_addresses:
            try:
                parse_network(network)
            except ValueError as exc:
                raise ValueError(f"trusted address: {exc}") from None
        check_ladders(self.ladders)
        if self.tls_cert is not None and any(ladder.residents for ladder in self.ladders):
            raise ValueError(
                "ladder residents do not join a TLS server yet: serve without --tls-cert,"
                " or run the bots with arena play --tls"
            )
        for name in ("ladder_rating_interval", "ladder_repeat_wait"):
            if not 0 <= getattr(self, name) <= 86_400:
                raise ValueError(f"{name} must be in 0..86400 seconds, not {getattr(self, name)!r}")
        if self.accounts not in ("open", "registered"):
            raise ValueError(f"accounts must be 'open' or 'registered', not {self.accounts!r}")


#: the limits, each with an ARENA_<NAME> environment variable (docs/PROTOCOL.md "Limits")
LIMIT_FIELDS: dict[str, type] = {
    "max_connections": int,
    "max_connections_per_address": int,
    "max_rooms": int,
    "max_rooms_per_connection": int,
    "max_pools": int,
    "max_pools_per_connection": int,
    "max_spectating": int,
    "max_buffered_bytes": int,
    "message_rate": float,
    "message_burst": float,
    "address_message_rate": float,
    "address_message_burst": float,
    "auth_failure_rate": float,
    "auth_failure_burst": float,
    "address_auth_failure_rate": float,
    "address_auth_failure_burst": float,
}


# environment variable -> (field, parser); policy fields are nested
def parse_clock(text: str) -> Clock:
    """``5+3`` (minutes + seconds a move) -> Clock(300.0, 3.0); ValueError otherwise."""
    minutes, plus, increment = text.strip().partition("+")
    try:
        return Clock(float(minutes) * 60, float(increment) if plus else 0.0)
    except ValueError:
        raise ValueError(f"{text!r} is not MINUTES+SECONDS (e.g. 5+3)") from None


def parse_flag(text: str) -> bool:
    """``1``/``true``/``yes``/``on`` or ``0``/``false``/``no``/``off`` (any case)."""
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not a yes/no value (1, true, yes, on; 0, false, no, off)")


def parse_list(text: str) -> tuple[str, ...]:
    """``a, b,c`` -> ("a", "b", "c")."""
    return tuple(item.strip() for item in text.split(",") if item.strip())


ENV_VARS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "ARENA_HOST": ("host", str),
    "ARENA_PORT": ("port", int),
    "ARENA_DB": ("db", str),
    "ARENA_MOVE_TIME": ("move_time", float),
    "ARENA_TC": ("clock", parse_clock),
    "ARENA_LAG_MARGIN": ("lag_margin", float),
    "ARENA_ILLEGAL_RETRIES": ("illegal_retries", int),
    "ARENA_RECONNECT_GRACE": ("reconnect_grace", float),
    "ARENA_MAX_FRAME": ("max_frame", int),
    "ARENA_HANDSHAKE_TIMEOUT": ("handshake_timeout", float),
    "ARENA_PING_INTERVAL": ("ping_interval", float),
    "ARENA_IDLE_TIMEOUT": ("idle_timeout", float),
    "ARENA_RECORD_WAIT": ("record_wait", float),
    "ARENA_MAX_PENDING_RESULTS": ("max_pending_results", int),
    "ARENA_STORE_WRITER": ("store_writer", str),
    "ARENA_POOL_GRACE": ("pool_grace", float),
    "ARENA_ACCOUNTS": ("accounts", str),
    "ARENA_TLS_CERT": ("tls_cert", str),
    "ARENA_TLS_KEY": ("tls_key", str),
    "ARENA_NODE_LEASE": ("node_lease", float),
    "ARENA_SEEK_HOLD": ("seek_hold", float),
    "ARENA_ADVERTISE": ("advertise", str),
    "ARENA_PROXY_PROTOCOL": ("proxy_protocol", parse_flag),
    "ARENA_TRUSTED_PROXIES": ("trusted_proxies", parse_list),
    "ARENA_TRUSTED_ADDRESSES": ("trusted_addresses", parse_list),
    "ARENA_LADDER_RATING_INTERVAL": ("ladder_rating_interval", float),
    "ARENA_LADDER_REPEAT_WAIT": ("ladder_repeat_wait", float),
    **{f"ARENA_{name.upper()}": (name, kind) for name, kind in LIMIT_FIELDS.items()},
}

_POLICY_FIELDS = {f.name for f in fields(MatchPolicy)}

#: the settings that `arena serve` also takes as a flag (the rest: environment only)
SERVE_FLAGS = {
    "max_connections": "--max-connections",
    "max_connections_per_address": "--max-connections-per-address",
    "trusted_addresses": "--trusted-address",
}


def how_to_set(name: str) -> str:
    """Where the setting `name` is given: ``--flag or $ARENA_NAME`` (refusals name it)."""
    env = f"$ARENA_{name.upper()}"
    flag = SERVE_FLAGS.get(name)
    return env if flag is None else f"{flag} or {env}"


def build_config(
    overrides: Mapping[str, Any], environ: Mapping[str, str] | None = None
) -> ServerConfig:
    """Defaults, then environment variables, then `overrides` (flags; None = unset)."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for var, (name, parse) in ENV_VARS.items():
        raw = env.get(var)
        if raw is None or raw == "":
            continue
        try:
            values[name] = parse(raw)
        except ValueError:
            what = {
                "parse_clock": "time control (MINUTES+SECONDS, e.g. 5+3)",
                "parse_flag": "yes/no value (1, true, yes, on; 0, false, no, off)",
            }
            kind = what.get(getattr(parse, "__name__", ""), getattr(parse, "__name__", "value"))
            raise ValueError(f"{var}={raw!r} is not a valid {kind}") from None
    values.update({k: v for k, v in overrides.items() if v is not None})
    policy_values = {k: values.pop(k) for k in list(values) if k in _POLICY_FIELDS}
    if values.get("db") in {"", ":none:"}:
        values["db"] = None
    config = ServerConfig(**values)
    return replace(config, policy=replace(config.policy, **policy_values))
