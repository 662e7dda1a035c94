"""Per-player results and think times of a stored tournament (`arena tournament --db FILE`).

`arena tournament` prints W/D/L, scores and Elo but not how long each side
thought; a benchmark against an engine program must report both sides'
think times (the server's measure, from the records file's ``moves`` rows)
and whether anyone lost on time::

    python -m benchmarks.think_times l5.sqlite [--tournament ID]

Per player: games, W/D/L, score, moves, mean / median / max think time,
moves over ``--over`` seconds, and losses on time, read from the records
file through `store.sqlite.SqliteDatabase`: played games only. A withdrawn player's
remaining games (``--max-failures``) are scored by the tournament without
being played; they have no match record and are not counted here, so
compare the game count with the tournament's.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from store.sqlite import SqliteDatabase


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
    store = SqliteDatabase(db)
    try:
        if tournament is None:
            recent = [m for m in store.list_matches(limit=1000) if m.tournament is not None]
            if not recent:
                raise SystemExit(f"no tournament game in {db}")
            tournament = recent[0].tournament
        players: dict[str, Player] = defaultdict(Player)
        for match in store.list_matches(limit=1_000_000, tournament=tournament):
            if match.status != "finished" or match.scores is None:
                continue
            think: dict[int, list[float]] = defaultdict(list)
            for move in store.get_moves(match.id):
                think[move.seat].append(move.think_time)
            for seat, (name, score) in enumerate(zip(match.players, match.scores, strict=True)):
                player = players[name]
                player.games += 1
                player.wins += score == 1.0
                player.draws += score == 0.5
                player.losses += score == 0.0
                player.forfeits += match.termination == "timeout" and score == 0.0
                player.think.extend(think[seat])
        return dict(players)
    finally:
        store.close()


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
