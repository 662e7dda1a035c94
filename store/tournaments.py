"""The tournament tables: configurations, their pool owner keys, and each game's result.

Typed functions over a `Store`; the callers (`tournament.records`, the web
app's tournament pages) never see SQL. A configuration is stored as the JSON
text its owner wrote (`tournament.config.TournamentConfig.to_json`): this
package keeps it and hands it back, it does not read it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from store.sqlite import Store, like_prefix


@dataclass(frozen=True, slots=True)
class StoredTournament:
    """A row of the tournaments table: its configuration (JSON text) and state."""

    id: str
    config: str
    status: str
    created_at: float
    #: games with a result (filled by `list_tournaments`; 0 elsewhere)
    done: int = 0


@dataclass(frozen=True, slots=True)
class StoredGame:
    """A finished tournament game as the director recorded it."""

    index: int
    seats: tuple[str, ...]
    scores: tuple[float, ...]
    termination: str
    match_id: str
    plies: int


@dataclass(frozen=True, slots=True)
class TaggedTournament:
    """A tournament seen only through its match records (a remote director's)."""

    id: str
    game: str
    matches: int
    first_started_at: float


def save_tournament(store: Store, tournament_id: str, config: str, status: str) -> None:
    """Store a tournament's configuration (first time) and its status (every time)."""
    now = time.time()
    with store.transaction() as db:
        db.execute(
            "INSERT INTO tournaments (id, config, status, created_at, updated_at)"
            " VALUES (?,?,?,?,?) ON CONFLICT(id) DO UPDATE SET status=excluded.status,"
            " updated_at=excluded.updated_at",
            (tournament_id, config, status, now, now),
        )


def owner_key(store: Store, tournament_id: str, new_key: str) -> str:
    """The tournament's pool owner key: the stored one, else `new_key`, stored now."""
    with store.transaction() as db:
        row = db.execute(
            "SELECT owner_key FROM tournaments WHERE id=?", (tournament_id,)
        ).fetchone()
        if row is not None and row[0]:
            return str(row[0])
        db.execute("UPDATE tournaments SET owner_key=? WHERE id=?", (new_key, tournament_id))
        return new_key


def find_tournament(store: Store, tournament_id: str) -> StoredTournament | None:
    """The tournament with this id, or the one whose id starts with it (None: none, or two)."""
    with store.reading() as db:
        rows = db.execute(
            "SELECT id, config, status, created_at FROM tournaments"
            " WHERE id=? OR id LIKE ? ESCAPE '\\' LIMIT 2",
            (tournament_id, like_prefix(tournament_id)),
        ).fetchall()
    exact = [row for row in rows if row[0] == tournament_id]
    if exact or len(rows) == 1:
        return StoredTournament(*(exact or rows)[0])
    return None


def list_tournaments(store: Store) -> list[StoredTournament]:
    """Every stored tournament, newest first, with its number of results."""
    with store.reading() as db:
        rows = db.execute(
            "SELECT t.id, t.config, t.status, t.created_at, COUNT(g.idx) FROM tournaments t"
            " LEFT JOIN tournament_games g ON g.tournament = t.id"
            " GROUP BY t.id ORDER BY t.created_at DESC"
        ).fetchall()
    return [StoredTournament(*row) for row in rows]


def add_game(store: Store, tournament_id: str, game: StoredGame) -> None:
    """Record (or replace) the result of the game at `game.index`."""
    with store.transaction() as db:
        db.execute(
            "INSERT OR REPLACE INTO tournament_games (tournament, idx, seats, scores,"
            " termination, match_id, plies, finished_at) VALUES (?,?,?,?,?,?,?,?)",
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


def games(store: Store, tournament_id: str) -> list[StoredGame]:
    """The recorded results of a tournament's games."""
    with store.reading() as db:
        rows = db.execute(
            "SELECT idx, seats, scores, termination, match_id, plies FROM tournament_games"
            " WHERE tournament=?",
            (tournament_id,),
        ).fetchall()
    return [
        StoredGame(row[0], _strings(json.loads(row[1])), _floats(json.loads(row[2])), *row[3:])
        for row in rows
    ]


def tagged_tournaments(store: Store) -> list[TaggedTournament]:
    """Every tournament named by a match record, with its game and number of matches."""
    with store.reading() as db:
        rows = db.execute(
            "SELECT tournament, MIN(game), COUNT(*), MIN(started_at) FROM matches"
            " WHERE tournament IS NOT NULL GROUP BY tournament"
        ).fetchall()
    return [TaggedTournament(*row) for row in rows]


def _strings(values: Sequence[Any]) -> tuple[str, ...]:
    return tuple(str(value) for value in values)


def _floats(values: Sequence[Any]) -> tuple[float, ...]:
    return tuple(float(value) for value in values)
