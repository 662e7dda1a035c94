"""Rate limits and per-address accounting: what keeps one client from harming the others.

Why token buckets: a client may burst (a tournament director pairing a round,
a human clicking fast) but not sustain more than its rate. Two budgets are
kept for every connection and for every address: one for messages, and a far
tighter one for *failed* credentials (a wrong pool secret, owner key, seat
token or password), so that guessing a secret costs the guesser time, not the
server. A message over budget is refused with ``rate_limited`` (told at most
once a second, never one error per flooded frame); a client that keeps
flooding after that is disconnected.

Why some addresses are trusted: one host may rightly run hundreds of bots (a
ladder's resident players, a big tournament, a benchmark). Raising
``max_connections_per_address`` for everyone weakens what it protects
against (one host taking every connection, or every message the server can
serve); ``trusted_addresses`` exempts only the hosts the operator names from
the per-address connection cap and message rate. Their connections still
count toward ``max_connections`` and keep every per-connection limit and the
failed-credential budgets: trust is about volume, not about guessing secrets.

Every refusal names the limit and where it is set (`how_to_set`), so that a
bot author reading it knows what to ask the operator for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from server.config import ServerConfig, how_to_set
from server.proxy_protocol import TrustedProxies

_EPSILON = 1e-9


@dataclass(slots=True)
class TokenBucket:
    """`burst` tokens, refilled at `rate` per second."""

    rate: float
    burst: float
    tokens: float = -1.0
    updated: float = 0.0

    def __post_init__(self) -> None:
        if self.tokens < 0:
            self.tokens = self.burst

    def _refill(self, now: float) -> None:
        if now > self.updated:
            self.tokens = min(self.burst, self.tokens + (now - self.updated) * self.rate)
            self.updated = now

    def take(self, now: float, cost: float = 1.0) -> bool:
        """Spend `cost` tokens if there are enough; False (nothing spent) otherwise."""
        self._refill(now)
        if self.tokens >= cost - _EPSILON:  # refills are float sums: 0.02 s * 50/s may be 0.999...
            self.tokens = max(self.tokens - cost, 0.0)
            return True
        return False

    def available(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= 1.0 - _EPSILON

    def full(self, now: float) -> bool:
        self._refill(now)
        return self.tokens >= self.burst

    def wait_time(self, now: float) -> float:
        """Seconds until one token is there."""
        self._refill(now)
        return 0.0 if self.tokens >= 1.0 - _EPSILON else (1.0 - self.tokens) / self.rate


@dataclass(slots=True)
class ClientBudget:
    """One connection's (or one address's) message and failed-credential budgets."""

    messages: TokenBucket
    failures: TokenBucket

    @classmethod
    def for_connection(cls, config: ServerConfig) -> ClientBudget:
        return cls(
            TokenBucket(config.message_rate, config.message_burst),
            TokenBucket(config.auth_failure_rate, config.auth_failure_burst),
        )

    @classmethod
    def for_address(cls, config: ServerConfig, *, trusted: bool = False) -> ClientBudget:
        """A trusted address's messages are not limited (its connections' still are)."""
        messages = (
            TokenBucket(math.inf, math.inf)
            if trusted
            else TokenBucket(config.address_message_rate, config.address_message_burst)
        )
        return cls(
            messages,
            TokenBucket(config.address_auth_failure_rate, config.address_auth_failure_burst),
        )


@dataclass(slots=True)
class AddressState:
    connections: int
    budget: ClientBudget
    trusted: bool = False


def too_many_connections(config: ServerConfig) -> str:
    """Why a connection over `max_connections` is refused."""
    return (
        f"more than {config.max_connections} connections to this server"
        f" (max_connections; raise it with {how_to_set('max_connections')})"
    )


@dataclass
class Addresses:
    """Connections and budgets per client address (IP), kept while they matter."""

    config: ServerConfig
    states: dict[str, AddressState] = field(default_factory=dict)
    trusted: TrustedProxies = field(init=False)

    def __post_init__(self) -> None:
        self.trusted = TrustedProxies(self.config.trusted_addresses)

    def _state(self, address: str) -> AddressState:
        state = self.states.get(address)
        if state is None:
            trusted = bool(self.trusted) and self.trusted.trusts(address)
            budget = ClientBudget.for_address(self.config, trusted=trusted)
            state = self.states[address] = AddressState(0, budget, trusted)
        return state

    def admit(self, address: str) -> str | None:
        """Count a new connection from `address`; the refusal reason if it is one too many."""
        state = self._state(address)
        limit = self.config.max_connections_per_address
        if state.connections >= limit and not state.trusted:
            return (
                f"more than {limit} connections from {address}"
                f" (max_connections_per_address; raise it with"
                f" {how_to_set('max_connections_per_address')},"
                f" or exempt the host with {how_to_set('trusted_addresses')})"
            )
        state.connections += 1
        return None

    def release(self, address: str) -> None:
        state = self.states.get(address)
        if state is not None:
            state.connections = max(0, state.connections - 1)

    def budget(self, address: str) -> ClientBudget:
        return self._state(address).budget

    def sweep(self, now: float) -> None:
        """Forget addresses without connections whose budgets have refilled (bounded memory)."""
        for address in [
            a
            for a, s in self.states.items()
            if s.connections == 0 and s.budget.messages.full(now) and s.budget.failures.full(now)
        ]:
            del self.states[address]


def address_of(peer: str) -> str:
    """The address part of a ``host:port`` peer name (IPv6 hosts contain colons)."""
    host, sep, _ = peer.rpartition(":")
    return host if sep else peer
