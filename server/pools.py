"""Pools: named groups of seekers that a director (a tournament) pairs, and who owns them.

Why owners: a pool is a tournament's room. Whoever first directs it becomes
its owner by presenting (or being given) an owner key; from then on only that
key may direct it, pair in it or take it over, whether or not its director is
connected, so a running tournament cannot lose its pool and nobody else can
pair games in its name. The server keeps only a digest of the key. A pool
with neither director nor seekers is forgotten after `pool_grace` seconds,
so names do not pile up; everything is found by name in O(1).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from games import Game
    from protocol.messages import Seek
    from server.connection import Connection


def owner_digest(key: str) -> str:
    """What the server keeps of an owner key (and stores with tournament games)."""
    return hashlib.sha256(b"arena-pool-owner\0" + key.encode()).hexdigest()[:32]


def new_owner_key() -> str:
    return secrets.token_urlsafe(24)


def secret_digest(secret: str) -> str:
    """What a shared database keeps of a seeker's join secret (server/cluster_pools.py)."""
    return hashlib.sha256(b"arena-pool-secret\0" + secret.encode()).hexdigest()[:32]


@dataclass(eq=False)
class PooledSeek:
    """A seek in a named pool: the pool's director assigns matches."""

    conn: Connection
    seek: Seek
    game: Game[Any, Any]
    #: its name beyond this server (a shared database's ``pool_seeks``)
    id: str = field(default_factory=lambda: secrets.token_urlsafe(12))


@dataclass
class Pool:
    name: str
    owner: str | None = None  # digest of the owner key; None until someone directs it
    director: Connection | None = None
    players: dict[str, str] = field(default_factory=dict)  # admitted name -> join secret
    seeks: list[PooledSeek] = field(default_factory=list)
    idle_since: float | None = None  # when it last lost its director and seekers

    def owned_by(self, key: str) -> bool:
        return self.owner is not None and hmac.compare_digest(self.owner, owner_digest(key))

    def admits(self, name: str, secret: str) -> bool:
        """Whether `name` with `secret` may seek here (anyone, until a director says who)."""
        if self.owner is None:
            return True
        expected = self.players.get(name)
        return expected is not None and hmac.compare_digest(expected, secret)

    @property
    def empty(self) -> bool:
        return self.director is None and not self.seeks

    def idle_counts(self) -> dict[str, int]:
        idle: dict[str, int] = {}
        for entry in self.seeks:
            idle[entry.conn.name] = idle.get(entry.conn.name, 0) + 1
        return idle
