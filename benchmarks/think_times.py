"""Per-player results and think times of a stored tournament (`arena tournament --db FILE`).

`arena tournament` prints W/D/L, scores and Elo but not how long each side
thought; a benchmark against an engine program must report both sides'
think times (the server's measure, from the records file's ``moves`` rows)
and whether anyone lost on time::

    python -m benchmarks.think_times l5.sqlite [--tournament ID]

Per player: games, W/D/L, score, moves, mean / median / max think time,
moves over ``--over`` seconds, and losses on time. It reads the SQLite
records file directly (tables ``tournament_games``, ``matches``, ``moves``).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field


@dataclass
class Player:
    """One player's totals over the tournament's games."""

    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeits: int = 0
    think: list[float] = field(default_factory=list)


def collect(db: str, tournament: str | None) -> dict[str, Player]:
    """Totals per player name of `tournament` (default: the last one) in the records file `db`."""
    con = sqlite3.connect(db)
    if tournament is None:
        row = con.execute("SELECT id FROM tournaments ORDER BY created_at DESC LIMIT 1").fetchone()
        if row is None:
            raise SystemExit(f"no tournament in {db}")
        tournament = str(row[0])
    players: dict[str, Player] = defaultdict(Player)
    rows = con.execute(
        "SELECT seats, scores, termination, match_id FROM tournament_games WHERE tournament = ?",
        (tournament,),
    )
    for seats_text, scores_text, termination, match_id in rows:
        seats, scores = json.loads(seats_text), json.loads(scores_text)
        for seat, (name, score) in enumerate(zip(seats, scores, strict=True)):
            player = players[name]
            player.games += 1
            player.wins += score == 1.0
            player.draws += score == 0.5
            player.losses += score == 0.0
            player.forfeits += termination == "timeout" and score == 0.0
            moves = con.execute(
                "SELECT think_time FROM moves WHERE match_id = ? AND seat = ?", (match_id, seat)
            )
            player.think.extend(float(t) for (t,) in moves)
    return dict(players)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("db", help="the SQLite records file (arena tournament --db)")
    parser.add_argument("--tournament", default=None, help="tournament id (default: the last)")
    parser.add_argument("--over", type=float, default=None, help="count moves over SECONDS")
    args = parser.parse_args(argv)
    for name, p in collect(args.db, args.tournament).items():
        score = (p.wins + p.draws / 2) / p.games if p.games else float("nan")
        think = p.think or [float("nan")]
        over = (
            ""
            if args.over is None
            else f", {sum(t > args.over for t in p.think)} over {args.over:g}s"
        )
        print(
            f"{name}: {p.games} games, W/D/L {p.wins}/{p.draws}/{p.losses}, score {score:.3f};"
            f" think over {len(p.think)} moves: mean {statistics.fmean(think):.3f}s,"
            f" median {statistics.median(think):.3f}s, max {max(think):.3f}s{over};"
            f" lost on time {p.forfeits}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
