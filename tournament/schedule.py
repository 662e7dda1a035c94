"""Which games a tournament plays: seats, opening and seed of each, by index.

Why this shape: a game is known by its index alone, and everything about it
(seats, opening, seed) derives from the configuration and that index, so a
resumed tournament plays the same games and never plays one twice.

* Round-robin and gauntlet: a fixed list. Round ``r`` (of ``games_per_pair``)
  seats every pairing of the format once, the seats swapped every other round;
  rounds ``2k`` and ``2k+1`` use opening ``k``, so each opening is played as a
  pair with the seats swapped, and every pairing plays the same openings.
* SPRT: open-ended. Pair ``k`` is games ``2k`` (first player first) and
  ``2k+1`` (seats swapped), both from opening ``k``; the `SprtPlan` hands out
  pairs until the test decides or `max_pairs` is reached.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from games import Game
from tournament.config import TournamentConfig
from tournament.openings import EMPTY, NoOpenings, Opening, OpeningBook, book_from_dict
from tournament.sprt import Decision, SprtState, SprtStatus
from tournament.stats import Pentanomial

__all__ = [
    "FixedPlan",
    "Plan",
    "ScheduledGame",
    "SprtPlan",
    "build_schedule",
    "make_plan",
    "opening_book",
    "pairings",
]


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    index: int
    seats: tuple[str, ...]  # player name per seat
    seed: int
    pair: int = 0  # opening number: the two games of a pairing with one opening are a pair
    opening: Opening = EMPTY


class _Scored(Protocol):
    """What a plan needs of a result (`tournament.results.GameResult` has it)."""

    @property
    def seats(self) -> tuple[str, ...]: ...

    @property
    def scores(self) -> tuple[float, ...]: ...


def opening_book(config: TournamentConfig, game: Game[Any, Any]) -> OpeningBook:
    return NoOpenings() if config.openings is None else book_from_dict(game, config.openings)


def pairings(config: TournamentConfig, num_seats: int = 2) -> list[tuple[str, ...]]:
    """The groups of players that meet, in the format's order."""
    names = config.names
    if config.format == "gauntlet":
        if num_seats != 2:
            raise ValueError("a gauntlet needs a two-player game")
        return [(names[0], other) for other in names[1:]]
    return list(itertools.combinations(names, num_seats))


def build_schedule(
    config: TournamentConfig, game: Game[Any, Any] | None = None, num_seats: int = 2
) -> list[ScheduledGame]:
    """Round-robin or gauntlet: every pairing plays `games_per_pair` games, seats rotating.

    Games are ordered round by round (each round: every pairing once), so the
    games of an interrupted tournament are spread evenly over the pairings.
    """
    if config.format == "sprt":
        raise ValueError("an SPRT has no fixed schedule (see SprtPlan)")
    book = opening_book(config, game) if game is not None else NoOpenings()
    groups = pairings(config, num_seats)
    rng = random.Random(config.seed)
    schedule: list[ScheduledGame] = []
    openings: dict[int, Opening] = {}
    for round_index in range(config.games_per_pair):
        pair = round_index // 2
        if pair not in openings:
            openings[pair] = book.opening(pair)
        for group in groups:
            shift = round_index % num_seats
            seats = tuple(group[shift:] + group[:shift])
            seed = rng.getrandbits(31)
            schedule.append(ScheduledGame(len(schedule), seats, seed, pair, openings[pair]))
    return schedule


class Plan:
    """What the director plays next, given the results so far (by index)."""

    #: games in all, when known in advance (None: open-ended)
    total: int | None = None

    def initial(self, results: Mapping[int, _Scored]) -> list[ScheduledGame]:
        """The games still to play, as far as known now."""
        raise NotImplementedError

    def more(self, results: Mapping[int, _Scored], outstanding: int) -> list[ScheduledGame]:
        """Games to add after a result, with `outstanding` games not yet finished."""
        return []

    def stopped(self, results: Mapping[int, _Scored]) -> bool:
        """True when no further game should start (an SPRT that decided)."""
        return False


class FixedPlan(Plan):
    def __init__(self, schedule: list[ScheduledGame]) -> None:
        self.schedule = schedule
        self.total = len(schedule)

    def initial(self, results: Mapping[int, _Scored]) -> list[ScheduledGame]:
        return [g for g in self.schedule if g.index not in results]


class SprtPlan(Plan):
    """Pairs of games until the SPRT decides; a few games ahead to keep `lookahead` busy."""

    def __init__(self, config: TournamentConfig, game: Game[Any, Any], lookahead: int = 1) -> None:
        test = config.test
        assert test is not None
        self.config = config
        self.book = opening_book(config, game)
        self.lookahead = max(1, lookahead)
        self.state = SprtState(test)
        self.first, self.second = config.names
        self.next_pair = 0
        self.total = None if config.max_pairs is None else 2 * config.max_pairs

    def game_at(self, index: int) -> ScheduledGame:
        pair = index // 2
        seats = (self.first, self.second) if index % 2 == 0 else (self.second, self.first)
        seed = random.Random(f"{self.config.seed}/game/{index}").getrandbits(31)
        return ScheduledGame(index, seats, seed, pair, self.book.opening(pair))

    def count(self, results: Mapping[int, _Scored]) -> SprtStatus:
        """Recount the complete pairs (from the first player's side) into the test."""
        penta = Pentanomial()
        for pair in range(self.next_pair):
            a, b = results.get(2 * pair), results.get(2 * pair + 1)
            if a is not None and b is not None:
                penta = penta.add(_score(a, self.first), _score(b, self.first))
        self.state.penta = penta
        return self.state.status()

    def initial(self, results: Mapping[int, _Scored]) -> list[ScheduledGame]:
        self.next_pair = (max(results) // 2 + 1) if results else 0
        if self.stopped(results):
            return []
        missing = [self.game_at(i) for i in range(2 * self.next_pair) if i not in results]
        return missing + self.more(results, len(missing))

    def more(self, results: Mapping[int, _Scored], outstanding: int) -> list[ScheduledGame]:
        added: list[ScheduledGame] = []
        while outstanding + len(added) < 2 * self.lookahead and not self._limit_reached():
            if self.stopped(results):
                break
            added += [self.game_at(2 * self.next_pair), self.game_at(2 * self.next_pair + 1)]
            self.next_pair += 1
        return added

    def _limit_reached(self) -> bool:
        return self.config.max_pairs is not None and self.next_pair >= self.config.max_pairs

    def stopped(self, results: Mapping[int, _Scored]) -> bool:
        return self.count(results).decision is not Decision.CONTINUE


def _score(result: _Scored, name: str) -> float:
    return result.scores[result.seats.index(name)]


def make_plan(config: TournamentConfig, game: Game[Any, Any], concurrency: int = 1) -> Plan:
    if config.format == "sprt":
        return SprtPlan(config, game, lookahead=concurrency)
    return FixedPlan(build_schedule(config, game, game.num_players))


def planned_total(config: TournamentConfig) -> int | None:
    """Games planned: the schedule's, an SPRT's pair limit (None: no limit, or no schedule)."""
    if config.format == "sprt":
        return None if config.max_pairs is None else 2 * config.max_pairs
    try:
        return len(build_schedule(config))
    except ValueError:
        return None
