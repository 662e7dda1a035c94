"""Rate limits and per-address accounting: what keeps one client from harming the others.

Why token buckets: a client may burst (a tournament director pairing a round,
a human clicking fast) but not sustain more than its rate. Two budgets are
kept for every connection and for every address: one for messages, and a far
tighter one for *failed* credentials (a wrong pool secret, owner key, seat
token or password), so that guessing a secret costs the guesser time, not the
server. A message over budget is refused with ``rate_limited`` (told at most
once a second, never one error per flooded frame); a client that keeps
flooding after that is disconnected.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from server.config import ServerConfig

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
    def for_address(cls, config: ServerConfig) -> ClientBudget:
        return cls(
            TokenBucket(config.address_message_rate, config.address_message_burst),
            TokenBucket(config.address_auth_failure_rate, config.address_auth_failure_burst),
        )


@dataclass(slots=True)
class AddressState:
    connections: int
    budget: ClientBudget


@dataclass
class Addresses:
    """Connections and budgets per client address (IP), kept while they matter."""

    config: ServerConfig
    states: dict[str, AddressState] = field(default_factory=dict)

    def admit(self, address: str) -> str | None:
        """Count a new connection from `address`; the refusal reason if it is one too many."""
        state = self.states.get(address)
        if state is None:
            state = AddressState(0, ClientBudget.for_address(self.config))
            self.states[address] = state
        limit = self.config.max_connections_per_address
        if state.connections >= limit:
            return f"{limit} connections from {address} already (max_connections_per_address)"
        state.connections += 1
        return None

    def release(self, address: str) -> None:
        state = self.states.get(address)
        if state is not None:
            state.connections = max(0, state.connections - 1)

    def budget(self, address: str) -> ClientBudget:
        state = self.states.get(address)
        if state is None:
            state = AddressState(0, ClientBudget.for_address(self.config))
            self.states[address] = state
        return state.budget

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
