"""Tournaments and their results in the records database (`store.interface.TournamentTables`), and the lock.

Durability: the configuration is stored when the tournament starts and each
game's result is committed as soon as it is known, keyed by its index in the
schedule. Resuming plays only the indices without a result.

Real state: a running director holds the tournament's lock in the database
(`store.interface.TournamentTables.hold`: a ``flock`` on a file beside an
SQLite database, an advisory lock of its session on PostgreSQL). It is
dropped when the process ends, however it ends (kill -9 included), so `arena
tournament --list` reports "running" only for a tournament whose director is
alive, and a second director cannot run the same tournament on the same records.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Any

from games import Game, stored_result_text
from store.interface import Database, StoredGame
from tournament.config import TournamentConfig
from tournament.errors import TournamentRunning as TournamentRunning

__all__ = ["GameResult", "TournamentRecords", "TournamentRunning"]


@dataclass(frozen=True, slots=True)
class GameResult(StoredGame):
    """One finished tournament game (as stored: index, seats, scores, termination, match,
    plies)."""

    def score_of(self, name: str) -> float:
        return self.scores[self.seats.index(name)]

    def result_text(self, game: Game[Any, Any] | None) -> str:
        """The result as `game` writes it (``1-0``; Go's ``B+3.5``, ``W+R``)."""
        winners = [seat for seat, score in enumerate(self.scores) if score == 1.0]
        winner = winners[0] if len(winners) == 1 else None
        return stored_result_text(game, self.scores, winner, self.termination, self.points)


@dataclass(frozen=True, slots=True)
class Listed:
    """A stored tournament as `--list` shows it."""

    config: TournamentConfig
    status: str  # running | stopped | finished
    created_at: float
    done: int


class TournamentRecords:
    """Tournaments and their results in the records database."""

    def __init__(self, store: Database) -> None:
        self.store = store  # its schema holds the tournament tables

    def save(self, config: TournamentConfig, status: str) -> None:
        self.store.tournaments.save(config.id, config.to_json(), status)

    def owner_key(self, tournament_id: str) -> str:
        """The key that owns this tournament's pool on a server (made once, kept for resumes)."""
        return self.store.tournaments.owner_key(tournament_id, secrets.token_urlsafe(24))

    def load(self, tournament_id: str) -> tuple[TournamentConfig, str] | None:
        """The tournament with this id (or unique id prefix) and its status."""
        found = self.store.tournaments.find(tournament_id)
        return None if found is None else (TournamentConfig.from_json(found.config), found.status)

    def list(self) -> list[Listed]:
        """Every stored tournament, newest first, with its real state and games done."""
        listed = []
        for stored in self.store.tournaments.all():
            config = TournamentConfig.from_json(stored.config)
            status = stored.status
            if status == "running" and not self.is_running(config.id):
                status = "stopped"  # its director died without saying so (kill -9, power cut)
            listed.append(Listed(config, status, stored.created_at, stored.done))
        return listed

    def is_running(self, tournament_id: str) -> bool:
        """True if a live process holds this tournament's director lock."""
        return self.store.tournaments.is_held(tournament_id)

    @contextlib.contextmanager
    def running(self, tournament_id: str) -> Iterator[None]:
        """Hold the tournament's director lock while directing it (TournamentRunning if taken)."""
        with self.store.tournaments.hold(tournament_id) as acquired:
            if not acquired:
                raise TournamentRunning(
                    f"tournament {tournament_id} is being run by another process on"
                    f" {self.store.path}"
                )
            yield

    def add_result(self, tournament_id: str, result: GameResult) -> None:
        self.store.tournaments.add_game(tournament_id, result)

    def results(self, tournament_id: str) -> dict[int, GameResult]:
        """Finished games by schedule index.

        Also adopts finished match records tagged with this tournament that have
        no result row yet (the process was killed between the server's commit
        and the director's), so no finished game is ever played twice.
        """
        results = {
            game.index: GameResult(
                game.index, game.seats, game.scores, game.termination, game.match_id, game.plies
            )
            for game in self.store.tournaments.games(tournament_id)
        }
        for record in self.store.list_matches(
            1_000_000, status="finished", tournament=tournament_id
        ):
            index = record.tags.index
            known = None if index is None else results.get(index)
            if known is not None and known.match_id == record.id:  # the match's points, reason
                points = None if record.points is None else tuple(record.points)
                results[known.index] = replace(known, points=points, reason=record.reason or None)
            seats = record.tags.seats or record.players
            if index is not None and index not in results and record.scores is not None:
                result = GameResult(
                    index,
                    tuple(seats),
                    tuple(record.scores),
                    record.termination or "",
                    record.id,
                    record.plies,
                    None if record.points is None else tuple(record.points),
                    record.reason or None,
                )
                self.add_result(tournament_id, result)
                results[index] = result
        return results
