"""A ladder's rating list: Bayesian Elo over its recorded games, refitted on a schedule.

Why from the records, not from the games this server saw: the records are
the truth a reader can check (every game is in the database, with its
seats, scores and termination), so the list is the same after a restart,
and anyone can recompute it. The fit (`tournament.bayeselo.fit_bayeselo`,
with the ladder's anchors) and the read both run in a worker thread,
never on the event loop; they run again only when games have ended since
the last fit, at most once every `ladder_rating_interval` seconds (on a
database several servers share, games that ended anywhere: the records'
count of the ladder's ended games tells, so that every node publishes the
same list once it has refitted).

Identities are the players' names (a new version of a bot is a new name).
Aborted games (the server stopped) count for nobody; a fault (a crash, a
time loss, an illegal move) is a loss, and counted among the bot's
failures (`tournament.failures`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import structlog
import trio

from server.ladder_history import RatingHistory
from server.ladders import Ladder, Ladders
from store import Database, MatchRecord, StoreError
from tournament.bayeselo import BayesFit, LadderGame, fit_bayeselo
from tournament.failures import Failures, count_failures

log = structlog.get_logger("arena.server")

#: recent games kept in memory per ladder for the web API's bot pages
RECENT_GAMES = 2000


@dataclass(frozen=True, slots=True)
class LadderResult:
    """One recorded game of a ladder, as the rating list and the bot pages need it."""

    match: str
    players: tuple[str, ...]
    scores: tuple[float, ...] | None
    termination: str | None
    reason: str | None
    plies: int
    ended_at: float | None
    status: str

    @classmethod
    def of(cls, record: MatchRecord) -> LadderResult:
        return cls(
            record.id,
            tuple(record.players),
            None if record.scores is None else tuple(record.scores),
            record.termination,
            record.reason,
            record.plies,
            record.ended_at,
            record.status,
        )

    @property
    def rated(self) -> bool:
        """A finished game between two bots, with a score of 1, 0.5 or 0 each."""
        return (
            self.status == "finished"
            and self.scores is not None
            and len(self.players) == 2
            and self.players[0] != self.players[1]
            and self.scores[0] in (0.0, 0.5, 1.0)
        )


@dataclass(frozen=True, slots=True)
class Standing:
    """A ladder's rating list as last fitted, with what it was fitted from."""

    fit: BayesFit | None
    #: the games, oldest first (at most `RECENT_GAMES`: the rest are in the records)
    games: tuple[LadderResult, ...] = ()
    #: rated games in the fit
    rated: int = 0
    failures: dict[str, Failures] = field(default_factory=dict)
    #: when it was fitted (seconds since the epoch), None before the first fit
    fitted_at: float | None = None
    error: str | None = None


def fit_ladder(
    results: Sequence[LadderResult], first_seat: int, anchors: dict[str, float]
) -> tuple[BayesFit, int, dict[str, Failures]]:
    """The ladder's ratings (anchors that have not played yet are left out), the rated
    games, and every bot's failures."""
    rated = [result for result in results if result.rated]
    names = sorted({name for result in results for name in result.players})
    games = []
    for result in rated:
        assert result.scores is not None
        first = result.players[first_seat]
        second = result.players[1 - first_seat]
        games.append(LadderGame(first, second, result.scores[first_seat]))
    present = {name: rating for name, rating in anchors.items() if name in names}
    fit = fit_bayeselo(names, games, anchors=present)
    failures = count_failures(
        names,
        (
            (result.players, result.scores, result.termination or "")
            for result in results
            if result.scores is not None
        ),
    )
    return fit, len(rated), failures


@dataclass
class LadderRatings:
    """Each ladder's standing, refitted from the records (`run`)."""

    ladders: Ladders
    store: Database | None
    interval: float
    standings: dict[str, Standing] = field(default_factory=dict)
    #: each ladder's `Ladder.ended` count at its last fit
    _fitted: dict[str, int] = field(default_factory=dict)
    #: each ladder's ratings over time (server/ladder_history.py), updated after each fit
    history: dict[str, RatingHistory] = field(default_factory=dict)
    #: on a shared database: each ladder's ended games in the records at its last fit
    _counted: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in self.ladders.ladders:
            self.standings[name] = Standing(fit=None)
            self.history[name] = RatingHistory()

    async def run(self) -> None:
        """Read the past games (pairing waits for them), then refit after new games."""
        try:
            if self.store is not None:
                for ladder in self.ladders.ladders.values():
                    await self.refit(ladder, seed=True)
        finally:
            self.ladders.seeded.set()
        if self.store is None:
            return
        while True:
            await trio.sleep(self.interval)
            for ladder in self.ladders.ladders.values():
                if self.store.shared:  # games end on every node: count them in the records
                    try:
                        ended = await trio.to_thread.run_sync(self.store.ladder_ended, ladder.name)
                    except StoreError as exc:
                        log.warning("ladder_count_failed", ladder=ladder.name, error=str(exc))
                        continue
                    if ended != self._counted.get(ladder.name):
                        await self.refit(ladder, counted=ended)
                elif ladder.ended != self._fitted.get(ladder.name):
                    await self.refit(ladder)

    async def refit(
        self, ladder: Ladder, *, seed: bool = False, counted: int | None = None
    ) -> None:
        """Read the ladder's games and fit its ratings (both in a worker thread)."""
        store = self.store
        assert store is not None
        ended = ladder.ended
        anchors = dict(ladder.spec.anchors)
        try:
            records = await trio.to_thread.run_sync(store.ladder_matches, ladder.name)
            results = [LadderResult.of(record) for record in records]
            fit, rated, failures = await trio.to_thread.run_sync(
                fit_ladder, results, ladder.first_seat, anchors
            )
        except (StoreError, ValueError) as exc:
            log.warning("ladder_fit_failed", ladder=ladder.name, error=str(exc))
            self.standings[ladder.name] = replace(self.standings[ladder.name], error=str(exc))
            return
        if seed:
            self.ladders.seed(ladder.name, (r.players for r in results if r.status == "finished"))
        self._fitted[ladder.name] = ended
        if counted is not None:
            self._counted[ladder.name] = counted
        self.standings[ladder.name] = Standing(
            fit, tuple(results[-RECENT_GAMES:]), rated, failures, fitted_at=time.time()
        )
        log.info("ladder_fitted", ladder=ladder.name, games=rated, bots=len(fit.players))
        await self.update_history(ladder, results, anchors, fit)

    async def update_history(
        self, ladder: Ladder, results: list[LadderResult], anchors: dict[str, float], fit: BayesFit
    ) -> None:
        """The ratings over time after a fit (the new points fitted in a worker thread)."""
        first_seat = ladder.first_seat

        def prefix_fit(prefix: Sequence[LadderResult]) -> BayesFit:
            return fit_ladder(prefix, first_seat, anchors)[0]

        rated = [result for result in results if result.rated]
        history = self.history[ladder.name]
        try:
            await trio.to_thread.run_sync(history.update, rated, prefix_fit, fit)
        except ValueError as exc:
            log.warning("ladder_history_failed", ladder=ladder.name, error=str(exc))

    def table(self, name: str) -> list[dict[str, Any]]:
        """The rating list, best first: rating, margin, games, failures per bot."""
        standing = self.standings[name]
        fit = standing.fit
        if fit is None:
            return []
        rows: list[dict[str, Any]] = []
        for bot, rating, margin, games in zip(
            fit.players, fit.ratings, fit.margins, fit.games, strict=True
        ):
            failures = standing.failures.get(bot, Failures())
            rows.append(
                {
                    "bot": bot,
                    "rating": round(rating, 1),
                    "margin": None if not math.isfinite(margin) else round(margin, 1),
                    "games": games,
                    "anchor": bot in fit.anchors,
                    "failures": failures.as_dict(),
                }
            )
        rows.sort(key=lambda row: (-row["rating"], row["bot"]))
        for rank, row in enumerate(rows, start=1):
            row["rank"] = rank
        return rows
