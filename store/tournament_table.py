"""The tournament tables, for both backends (`TournamentTables`, but for the director lock).

A configuration is stored as the JSON text its owner wrote; this module keeps
it and hands it back, it does not read it. A tournament's pool owner key is
decided once: the stored one, else the new one, stored in the same
transaction (on PostgreSQL under a row lock, so two directors agree).

The director lock is each backend's own: a ``flock`` on a file beside an
SQLite database (`store.sqlite.tournaments`), a session advisory lock on
PostgreSQL (`store.postgres.tables`).
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from typing import Any

from store.dialect import Connections
from store.interface import StoredGame, StoredTournament, TaggedTournament
from store.matches import like_prefix


class TournamentRows:
    """`TournamentTables` over a backend's `Connections`, without `hold` and `is_held`."""

    def __init__(self, db: Connections) -> None:
        self.db = db
        self.sql = db.dialect.sql

    def save(self, tournament_id: str, config: str, status: str) -> None:
        """Store a tournament's configuration (first time) and its status (every time)."""
        now = time.time()
        self.db.transact(
            lambda db: db.execute(
                self.sql(
                    "INSERT INTO tournaments (id, config, status, created_at, updated_at)"
                    " VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET"
                    " status = excluded.status, updated_at = excluded.updated_at"
                ),
                (tournament_id, config, status, now, now),
            )
        )

    def owner_key(self, tournament_id: str, new_key: str) -> str:
        """The tournament's pool owner key: the stored one, else `new_key`, stored now."""

        def decide(db: Any) -> str:
            row = db.execute(
                self.sql(
                    "SELECT owner_key FROM tournaments WHERE id = ?" + self.db.dialect.for_update
                ),
                (tournament_id,),
            ).fetchone()
            if row is not None and row[0]:
                return str(row[0])
            db.execute(
                self.sql("UPDATE tournaments SET owner_key = ? WHERE id = ?"),
                (new_key, tournament_id),
            )
            return new_key

        key: str = self.db.transact(decide)
        return key

    def find(self, tournament_id: str) -> StoredTournament | None:
        """The tournament with this id, or the one whose id starts with it (None: none, or two)."""
        rows = self.db.query(
            lambda db: db.execute(
                self.sql(
                    "SELECT id, config, status, created_at FROM tournaments"
                    " WHERE id = ? OR id LIKE ? ESCAPE '\\' LIMIT 2"
                ),
                (tournament_id, like_prefix(tournament_id)),
            ).fetchall()
        )
        exact = [row for row in rows if row[0] == tournament_id]
        if exact or len(rows) == 1:
            return StoredTournament(*(exact or rows)[0])
        return None

    def all(self) -> list[StoredTournament]:
        """Every stored tournament, newest first, with its number of results."""
        rows = self.db.query(
            lambda db: db.execute(
                "SELECT t.id, t.config, t.status, t.created_at, COUNT(g.idx),"
                " coalesce(t.owner_key, '') FROM tournaments t"
                " LEFT JOIN tournament_games g ON g.tournament = t.id"
                " GROUP BY t.id ORDER BY t.created_at DESC"
            ).fetchall()
        )
        return [StoredTournament(*row) for row in rows]

    def add_game(self, tournament_id: str, game: StoredGame) -> None:
        """Record (or replace) the result of the game at `game.index`."""
        self.db.transact(
            lambda db: db.execute(
                self.sql(
                    "INSERT INTO tournament_games (tournament, idx, seats, scores, termination,"
                    " match_id, plies, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
                    " ON CONFLICT (tournament, idx) DO UPDATE SET seats = excluded.seats,"
                    " scores = excluded.scores, termination = excluded.termination,"
                    " match_id = excluded.match_id, plies = excluded.plies,"
                    " finished_at = excluded.finished_at"
                ),
                (
                    tournament_id,
                    game.index,
                    json.dumps(list(game.seats)),
                    json.dumps(list(game.scores)),
                    game.termination,
                    game.match_id,
                    game.plies,
                    time.time(),
                ),
            )
        )

    def games(self, tournament_id: str) -> list[StoredGame]:
        """The recorded results of a tournament's games."""
        rows = self.db.query(
            lambda db: db.execute(
                self.sql(
                    "SELECT idx, seats, scores, termination, match_id, plies"
                    " FROM tournament_games WHERE tournament = ?"
                ),
                (tournament_id,),
            ).fetchall()
        )
        return [
            StoredGame(row[0], _strings(json.loads(row[1])), _floats(json.loads(row[2])), *row[3:])
            for row in rows
        ]

    def tagged(self) -> list[TaggedTournament]:
        """Every tournament named by a match record, with its game and number of matches."""
        rows = self.db.query(
            lambda db: db.execute(
                "SELECT tournament, MIN(game), COUNT(*), MIN(started_at) FROM matches"
                " WHERE tournament IS NOT NULL GROUP BY tournament"
            ).fetchall()
        )
        return [TaggedTournament(*row) for row in rows]


def _strings(values: Sequence[Any]) -> tuple[str, ...]:
    return tuple(str(value) for value in values)


def _floats(values: Sequence[Any]) -> tuple[float, ...]:
    return tuple(float(value) for value in values)


__all__ = ["TournamentRows"]
