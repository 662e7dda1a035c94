"""Tournaments as the JSON API shows them: list, standings and crosstable.

Read only. Results come from the server's own match records (finished
matches tagged with the tournament, their schedule index and seat names in
``extra``), so standings are right both for an embedded tournament and for a
remote director that keeps its tournament tables in another database; the
``tournaments`` table, when this database has it, adds the configuration
(players, games per pair) for progress and the players who have not played.
Blocking (SQLite): call these from a worker thread.
"""

from __future__ import annotations

from typing import Any

from store import Database, MatchRecord, from_json
from tournament.config import TournamentConfig
from tournament.ratings import GameResult as RatedGame
from tournament.ratings import crosstable, standings
from tournament.report import standing_row
from tournament.schedule import planned_total

#: more finished games than this per tournament are not read (a page is not an export)
MAX_GAMES = 100_000


def _config_json(tournament_id: str, text: str, status: str, created: float) -> dict[str, Any]:
    """The parts of a stored tournament configuration the page shows (tolerant of new keys)."""
    try:
        config = from_json(text)
    except ValueError:
        config = {}
    if not isinstance(config, dict):
        config = {}
    players = config.get("players")
    names = [
        p["name"]
        for p in (players if isinstance(players, list) else [])
        if isinstance(p, dict) and isinstance(p.get("name"), str)
    ]
    return {
        "id": tournament_id,
        "game": config.get("game"),
        "options": config.get("options") or {},
        "players": names if isinstance(players, list) else None,
        "games_per_pair": config.get("games_per_pair"),
        "move_time": config.get("move_time"),
        "status": status,
        "created_at": created,
        "total": _planned(text),
    }


def _planned(text: str) -> int | None:
    """Games planned by a stored configuration: the schedule's own count (round-robin,
    gauntlet, an SPRT's pair limit), or None if it cannot say (no limit, or unreadable)."""
    try:
        return planned_total(TournamentConfig.from_json(text))
    except (ValueError, KeyError, TypeError):
        return None


def _stored(store: Database, tournament_id: str | None = None) -> list[dict[str, Any]]:
    """Rows of the ``tournaments`` table (all, or this id / unique id prefix)."""
    if tournament_id is None:
        rows = store.tournaments.all()
    else:
        found = store.tournaments.find(tournament_id)
        rows = [] if found is None else [found]
    return [_config_json(row.id, row.config, row.status, row.created_at) for row in rows]


def list_tournaments(store: Database) -> list[dict[str, Any]]:
    """Every tournament known to the records, most recent first."""
    found = {entry["id"]: entry for entry in _stored(store)}
    for tagged in store.tournaments.tagged():
        tournament, game, count, started = (
            tagged.id,
            tagged.game,
            tagged.matches,
            tagged.first_started_at,
        )
        entry = found.setdefault(
            tournament,
            {
                "id": tournament,
                "game": game,
                "options": {},
                "players": None,
                "games_per_pair": None,
                "move_time": None,
                "status": "unknown",
                "created_at": started,
            },
        )
        entry["matches"] = count
    for entry in found.values():
        entry.setdefault("matches", 0)
    return sorted(found.values(), key=lambda e: e["created_at"] or 0.0, reverse=True)


def _seats(record: MatchRecord) -> list[str]:
    return list(record.tags.seats or record.players)


def tournament_document(store: Database, tournament_id: str) -> dict[str, Any] | None:
    """Standings, crosstable and games of one tournament; None if unknown."""
    stored = _stored(store, tournament_id)
    config = stored[0] if stored else None
    key = config["id"] if config is not None else tournament_id
    records = store.list_matches(MAX_GAMES, tournament=key)
    if config is None and not records:
        return None
    games: list[dict[str, Any]] = []
    rated: list[RatedGame] = []
    names: list[str] = list(config["players"] or []) if config is not None else []
    for record in sorted(records, key=lambda r: (r.game_index is None, r.game_index, r.id)):
        seats = _seats(record)
        for name in seats:
            if name not in names:
                names.append(name)
        games.append(
            {
                "index": record.game_index,
                "match": record.id,
                "seats": seats,
                "status": record.status,
                "scores": record.scores,
                "termination": record.termination,
                "plies": record.plies,
            }
        )
        if record.status == "finished" and record.scores is not None and len(seats) == 2:
            rated.append(RatedGame(seats[0], seats[1], float(record.scores[0])))
    table = standings(names, rated) if len(names) >= 2 else []
    cross = crosstable(names, rated) if len(names) >= 2 else {}
    per_pair = config["games_per_pair"] if config is not None else None
    total = config["total"] if config is not None else None
    first = records[0] if records else None
    return {
        "id": key,
        "game": config["game"] if config else (first.game if first else None),
        "options": config["options"] if config else (first.options if first else {}),
        "move_time": config["move_time"] if config else None,
        "games_per_pair": per_pair,
        "status": config["status"] if config else "unknown",
        "players": names,
        "finished": len(rated),
        "total": total,
        "standings": [standing_row(rank, s) for rank, s in enumerate(table, 1)],
        "crosstable": {
            row: {col: {"points": points, "games": n} for col, (points, n) in cols.items()}
            for row, cols in cross.items()
        },
        "games": games,
    }
