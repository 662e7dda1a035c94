"""Ladders as the JSON API shows them: the list, one ladder's ratings, one bot's page.

Read only, and from memory: the rating list and the games behind it are
what `server.ladder_ratings` last fitted from the records (a few seconds
behind the games at most), the games being played are the lobby's now.
Nothing here reads the database, so these answers cost no thread.
"""

from __future__ import annotations

from typing import Any

from records.sgf import sgf_game_number
from server.ladder_ratings import LadderRatings, LadderResult, Standing
from server.ladders import Ladder, Ladders

#: games listed on a ladder's page and on a bot's page, newest first
RECENT = 50


def game_json(result: LadderResult, sgf: bool = True) -> dict[str, Any]:
    """One game, with the links to its record and its downloads (``sgf`` null for a game
    SGF does not cover)."""
    return {
        "match": result.match,
        "players": list(result.players),
        "scores": None if result.scores is None else list(result.scores),
        "termination": result.termination,
        "reason": result.reason,
        "plies": result.plies,
        "ended_at": result.ended_at,
        "status": result.status,
        "record": f"/api/matches/{result.match}",
        "jsonl": f"/api/matches/{result.match}/record.jsonl",
        "sgf": f"/api/matches/{result.match}/record.sgf" if sgf else None,
    }


def has_sgf(ladder: Ladder) -> bool:
    """Whether the ladder's games have SGF records (docs/RECORDS.md)."""
    return sgf_game_number(ladder.game) is not None


def _summary(ladders: Ladders, ratings: LadderRatings, name: str) -> dict[str, Any]:
    ladder = ladders.ladders[name]
    standing = ratings.standings[name]
    return {
        **ladders.describe(ladder),
        "bots": len(ladder.bots),
        "ready": len(ladder.ready),
        "playing": len(ladder.playing),
        "rated_games": standing.rated,
        "fitted_at": standing.fitted_at,
    }


def list_ladders(ladders: Ladders, ratings: LadderRatings) -> list[dict[str, Any]]:
    return [_summary(ladders, ratings, name) for name in ladders.ladders]


def ladder_document(ladders: Ladders, ratings: LadderRatings, name: str) -> dict[str, Any] | None:
    """The ladder's terms, rating list (with margins and failures), games now and recent."""
    if name not in ladders.ladders:
        return None
    standing = ratings.standings[name]
    fit = standing.fit
    return {
        **_summary(ladders, ratings, name),
        "ratings": ratings.table(name),
        "advantage": None if fit is None else round(fit.advantage, 1),
        "draw_elo": None if fit is None else round(fit.draw_elo, 1),
        "error": standing.error,
        "now": ladders.view(name),
        "recent": [
            game_json(result, has_sgf(ladders.ladders[name]))
            for result in reversed(standing.games[-RECENT:])
        ],
    }


def _by_opponent(standing: Standing, bot: str) -> list[dict[str, Any]]:
    """The bot's results against each opponent (from its side), most games first."""
    tally: dict[str, list[float]] = {}
    for result in standing.games:
        if not result.rated or bot not in result.players:
            continue
        assert result.scores is not None
        seat = result.players.index(bot)
        other = result.players[1 - seat]
        row = tally.setdefault(other, [0, 0, 0])
        score = result.scores[seat]
        row[0 if score == 1.0 else 1 if score == 0.5 else 2] += 1
    rows: list[dict[str, Any]] = [
        {
            "opponent": other,
            "wins": int(w),
            "draws": int(d),
            "losses": int(losses),
            "games": int(w + d + losses),
            "score": (w + d / 2) / (w + d + losses),
        }
        for other, (w, d, losses) in tally.items()
    ]
    rows.sort(key=lambda row: (-row["games"], row["opponent"]))
    return rows


def bot_document(
    ladders: Ladders, ratings: LadderRatings, name: str, bot: str
) -> dict[str, Any] | None:
    """One bot of a ladder: its rating row, its rating over time, results by opponent,
    failures, recent games, and its resident row when the server hosts it (a resident has
    a page from the start, before its first game: one that keeps crashing shows why)."""
    if name not in ladders.ladders:
        return None
    standing = ratings.standings[name]
    row = next((r for r in ratings.table(name) if r["bot"] == bot), None)
    games = [result for result in standing.games if bot in result.players]
    resident = next((r for r in ladders.residents(name) if r["bot"] == bot), None)
    if row is None and not games and bot not in ladders.ladders[name].bots and resident is None:
        return None
    return {
        "ladder": name,
        "bot": bot,
        "rating": row,
        "history": ratings.history[name].of(bot),
        "connected": bot in ladders.ladders[name].bots,
        "resident": resident,
        "by_opponent": _by_opponent(standing, bot),
        "failures": None if row is None else row["failures"],
        "recent": [
            game_json(result, has_sgf(ladders.ladders[name]))
            for result in reversed(games[-RECENT:])
        ],
    }
