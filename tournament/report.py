"""A tournament's results as data: standings, per-pairing statistics, the SPRT, every game.

Why this shape: the console tables, the ``--json`` output and the ``--out``
files are all written from this one document, so they cannot disagree.

Two kinds of numbers appear, each where it is the honest one:

* standings: a Bradley-Terry fit over every game of the field
  (`tournament.ratings`), Elo relative to the field mean with its 95% margin,
  plus each player's W/D/L, draw ratio and pentanomial counts over its pairs,
  and its failures by kind (`tournament.failures`: time, illegal, crash, stall,
  protocol);
* pairings: for each two players that met, the match statistics of
  `tournament.stats` (pentanomial counts over the pairs of games that share
  an opening with the seats swapped, Elo of the first against the second with
  its 95% interval, LOS, draw ratio), the way fastchess reports a match.

A margin the games cannot support (fewer than two, or a pairing whose pairs
all scored alike) is ``None`` here, so ``null`` in JSON and ``-`` in every
table (`tournament.stats.margin_or_none`), never ``± 0``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from games import Game
from tournament.config import TournamentConfig
from tournament.failures import count_failures
from tournament.ratings import GameResult as RatedGame
from tournament.ratings import Standing, crosstable, standings
from tournament.results import GameResult
from tournament.schedule import ScheduledGame, build_schedule, opening_book
from tournament.sprt import SprtState
from tournament.stats import MatchStats, Pentanomial, Wdl, margin_or_none

__all__ = ["pairing_stats", "rated", "results_document", "sprt_state"]


def rated(results: Iterable[GameResult]) -> list[RatedGame]:
    """Two-seat results as rating inputs (scores other than 0, ½, 1 are skipped)."""
    return [
        RatedGame(r.seats[0], r.seats[1], r.scores[0])
        for r in results
        if len(r.seats) == 2 and r.scores[0] in (0.0, 0.5, 1.0)
    ]


def _pair_numbers(config: TournamentConfig, results: Mapping[int, GameResult]) -> dict[int, int]:
    """Index -> pair (opening) number of every finished game."""
    if config.format == "sprt":
        return {index: index // 2 for index in results}
    schedule: dict[int, ScheduledGame] = {g.index: g for g in build_schedule(config)}
    return {index: schedule[index].pair for index in results if index in schedule}


def pairing_stats(
    config: TournamentConfig, results: Mapping[int, GameResult]
) -> dict[tuple[str, str], MatchStats]:
    """Match statistics of each pairing (first name: the earlier in the config), by pairs."""
    order = {name: i for i, name in enumerate(config.names)}
    numbers = _pair_numbers(config, results)
    games: dict[tuple[str, str], dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for index in sorted(results):
        result = results[index]
        if len(result.seats) != 2 or result.scores[0] not in (0.0, 0.5, 1.0):
            continue
        first, second = sorted(result.seats, key=lambda name: order[name])
        pair = numbers.get(index, -1 - index)  # unknown: a game of its own
        games[(first, second)][pair].append(result.score_of(first))
    stats = {}
    for key, by_pair in games.items():
        pairs = [(s[0], s[1]) for s in by_pair.values() if len(s) == 2]
        singles = [score for s in by_pair.values() if len(s) != 2 for score in s]
        stats[key] = MatchStats.from_results(pairs, singles)
    return stats


def sprt_state(config: TournamentConfig, results: Mapping[int, GameResult]) -> SprtState | None:
    """The SPRT's state from the results (complete pairs, first player's side)."""
    test = config.test
    if test is None:
        return None
    stats = pairing_stats(config, results).get((config.names[0], config.names[1]))
    return SprtState(test, stats.penta if stats else Pentanomial())


def _openings(
    config: TournamentConfig, game: Game[Any, Any], results: Mapping[int, GameResult]
) -> dict[int, list[str]]:
    """The opening (notation) of each finished game, when the tournament has openings."""
    if config.openings is None:
        return {}
    if config.format == "sprt":
        book = opening_book(config, game)
        return {i: list(book.opening(i // 2).notation) for i in results}
    schedule = build_schedule(config, game, game.num_players)
    return {g.index: list(g.opening.notation) for g in schedule if g.index in results}


def standing_row(rank: int, standing: Standing) -> dict[str, Any]:
    """One row of a standings table as every document shows it (files, `--json`, the web
    app): the record, the score, the draw ratio, the Elo and its 95% margin and bounds
    (None where the games cannot support them)."""
    games = standing.games
    return {
        "rank": rank,
        "name": standing.player,
        "games": games,
        "wins": standing.wins,
        "draws": standing.draws,
        "losses": standing.losses,
        "points": standing.points,
        "score": standing.score,
        "draw_ratio": standing.draws / games if games else None,
        "elo": standing.elo if games else None,
        **_standing_margin(games, standing.elo, standing.elo_margin),
    }


def _standing_margin(games: int, elo: float, margin: float) -> dict[str, float | None]:
    """The 95% margin and bounds of a fitted rating, None where the games cannot support one."""
    shown = margin_or_none(margin, games)
    if shown is None:
        return {"elo_margin": None, "elo_lower": None, "elo_upper": None}
    return {"elo_margin": shown, "elo_lower": elo - shown, "elo_upper": elo + shown}


def results_document(
    config: TournamentConfig,
    results: Mapping[int, GameResult],
    *,
    status: str = "finished",
    game: Game[Any, Any] | None = None,
) -> dict[str, Any]:
    """Everything about the tournament, JSON-ready (with each game's opening if `game`)."""
    games = [results[i] for i in sorted(results)]
    openings = _openings(config, game, results) if game is not None else {}
    table = standings(config.names, rated(games))
    cross = crosstable(config.names, rated(games))
    pairs = pairing_stats(config, results)
    per_player: dict[str, tuple[Pentanomial, Wdl]] = {
        name: (Pentanomial(), Wdl()) for name in config.names
    }
    for (first, second), stats in pairs.items():
        penta, wdl = per_player[first]
        per_player[first] = (penta + stats.penta, wdl + stats.wdl)
        penta, wdl = per_player[second]
        per_player[second] = (penta + stats.penta.swapped(), wdl + stats.wdl.swapped())
    failures = count_failures(config.names, ((g.seats, g.scores, g.termination) for g in games))
    document: dict[str, Any] = {
        "tournament": config.id,
        "status": status,
        "format": config.format,
        "game": config.game,
        "options": config.options,
        "move_time": config.move_time,
        "games_per_pair": config.games_per_pair,
        "seed": config.seed,
        "openings": config.openings or {"kind": "none"},
        "adjudication": config.adjudication,
        "players": [{"name": p.name, "spec": p.spec} for p in config.players],
        "standings": [
            {
                **standing_row(rank, s),
                "pentanomial": per_player[s.player][0].as_dict(),
                "failures": failures[s.player].as_dict(),
            }
            for rank, s in enumerate(table, 1)
        ],
        "pairings": [
            {"players": [first, second], **stats.as_dict()}
            for (first, second), stats in sorted(pairs.items())
        ],
        "crosstable": {
            row: {col: {"points": pts, "games": n} for col, (pts, n) in cols.items()}
            for row, cols in cross.items()
        },
        "games": [
            {
                "index": g.index,
                "seats": list(g.seats),
                "scores": list(g.scores),
                "termination": g.termination,
                "reason": g.reason,
                "result": g.result_text(game),
                "match": g.match_id,
                "plies": g.plies,
                **({"opening": openings[g.index]} if g.index in openings else {}),
            }
            for g in games
        ],
    }
    state = sprt_state(config, results)
    if state is not None:
        document["sprt"] = {
            **state.as_dict(),
            **state.status().as_dict(),
            "max_pairs": config.max_pairs,
            "verdict": state.verdict(config.max_pairs),
            "summary": state.summary(config.max_pairs),
        }
    return document
