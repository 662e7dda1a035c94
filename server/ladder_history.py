"""A ladder's ratings over time: the Bayesian Elo fit over growing prefixes of its games.

Why recomputed from the records rather than stored fit by fit: the records
are the truth the ratings come from, so the history needs no table of its
own (no schema, no migration, the same on SQLite and PostgreSQL), is the
same after a restart or on every node of a shared database, and anyone can
recompute it. A point is the ladder's fit (`server.ladder_ratings` passes its
own, with the ladder's anchors) over its first `k` rated games, in the order
they ended; its time is when the `k`-th game ended.

The points sit at multiples of a step, a power of two chosen so that there
are fewer than `MAX_POINTS` of them, plus the newest fit: as the ladder
grows the step doubles, and every multiple of the new step was a multiple of
the old one, so a point once fitted is fitted again only when the games
before it change (a node of a cluster recorded an older game late). Each
point is cached under a digest of the games it covers. `RatingHistory.update`
runs in a worker thread after each refit of the list: usually it fits
nothing new (the newest point is the list's own fit); a server that starts
on a long ladder fits its points once.

A point taken before one of the ladder's anchors had played is left out:
the ratings then had another zero (centred on 0), not the anchored scale. A
bot is left out of a point where the fit gives it no finite margin (too few
games to tell anything, as when the first mover has won every game so far).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from tournament.bayeselo import BayesFit

#: at most this many points in time per ladder (the newest included)
MAX_POINTS = 30


class RatedGame(Protocol):
    """What the history needs of a rated game (`server.ladder_ratings.LadderResult`)."""

    @property
    def match(self) -> str: ...

    @property
    def ended_at(self) -> float | None: ...


Game = TypeVar("Game", bound=RatedGame)


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """The rating list after the ladder's first `games` rated games."""

    #: when the last of those games ended (seconds since the epoch)
    time: float | None
    #: rated games of the ladder up to here
    games: int
    #: bot -> (rating, margin, the bot's rated games up to here)
    ratings: dict[str, tuple[float, float, int]]
    #: the anchors that had played by then
    anchors: frozenset[str]


def prefix_counts(total: int, limit: int = MAX_POINTS) -> list[int]:
    """The prefix lengths of the points for `total` rated games: multiples of the smallest
    power of two that leaves fewer than `limit` of them, then `total` itself."""
    if total <= 0:
        return []
    step = 1
    while total // step >= limit:
        step *= 2
    counts = list(range(step, total + 1, step))
    if not counts or counts[-1] != total:
        counts.append(total)
    return counts


def point_of(fit: BayesFit, games: int, time: float | None) -> HistoryPoint:
    """A point from one fit: the bots it rates (a bot with no rated game yet, or one the
    fit gives no finite margin, as when the first mover has won every game so far, is
    left out)."""
    return HistoryPoint(
        time,
        games,
        {
            bot: (rating, margin, played)
            for bot, rating, margin, played in zip(
                fit.players, fit.ratings, fit.margins, fit.games, strict=True
            )
            if played and math.isfinite(margin)
        },
        frozenset(bot for bot in fit.anchors if fit.games[fit.players.index(bot)]),
    )


@dataclass
class RatingHistory:
    """One ladder's points in time, cached by the games each covers."""

    points: tuple[HistoryPoint, ...] = ()
    #: (prefix length, digest of its games) -> the point
    _cache: dict[tuple[int, bytes], HistoryPoint] = field(default_factory=dict)
    #: how many prefix fits `update` has run (for the tests and the logs)
    fits: int = 0

    def update(
        self, rated: Sequence[Game], fit: Callable[[Sequence[Game]], BayesFit], latest: BayesFit
    ) -> tuple[HistoryPoint, ...]:
        """The points for the ladder's rated games `rated` (oldest first), whose whole fit is
        `latest`; `fit` fits a prefix, and only the points not cached are fitted. Blocking:
        call it in a worker thread."""
        counts = prefix_counts(len(rated))
        digests: dict[int, bytes] = {}
        wanted = set(counts)
        running = hashlib.blake2b(digest_size=16)
        for k, result in enumerate(rated, start=1):
            running.update(result.match.encode() + b"\0")
            if k in wanted:
                digests[k] = running.digest()
        cache: dict[tuple[int, bytes], HistoryPoint] = {}
        points = []
        for k in counts:
            key = (k, digests[k])
            point = self._cache.get(key)
            if point is None:
                ended = rated[k - 1].ended_at
                if k == len(rated):
                    point = point_of(latest, k, ended)
                else:
                    point = point_of(fit(rated[:k]), k, ended)
                    self.fits += 1
            cache[key] = point
            points.append(point)
        self._cache = cache
        scale = points[-1].anchors if points else frozenset()
        self.points = tuple(point for point in points if point.anchors == scale)
        return self.points

    def of(self, bot: str) -> list[dict[str, Any]]:
        """`bot`'s rating at each point where the fit rates it: time, games (its own),
        rating, margin (0 for an anchor)."""
        rows = []
        for point in self.points:
            entry = point.ratings.get(bot)
            if entry is None:
                continue
            rating, margin, games = entry
            rows.append(
                {
                    "time": point.time,
                    "games": games,
                    "rating": round(rating, 1),
                    "margin": round(margin, 1),
                }
            )
        return rows
