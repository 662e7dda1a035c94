"""Learn Go's 3×3 playout patterns (`player.mcts.fast.go.patterns`) from games GNU Go plays.

Two steps, each reproducible from its arguments:

1. games: ``arena tournament go`` between two GNU Go players (level 10 and
   level 8, so that the two games of a seat-swapped pair differ; GNU Go is
   deterministic), every pair from a seeded random opening of
   ``--openings`` plies, stored in a fresh SQLite file and exported as JSON
   Lines (`records.jsonl`); or ``--records FILE`` reads games exported
   before (``arena export``: any Go games, ours included);
   (``--db FILE`` keeps them);
2. counts: each game is replayed through the rules (`games.go.Go`); before
   every move after the opening, each empty point among the last move's
   eight neighbours where the mover may play is *seen* once under its 3×3
   pattern (`patterns.code`'s coding, from the mover's side, folded by the
   square's symmetries), and *played* once if it is the move. The counts go
   to ``patterns.npz`` beside the policy (``--out`` elsewhere); the heavy
   playout plays such a point with weight ``played / (seen + 10)``.

::

    python -m benchmarks.go_patterns --games 40 --seed 1
    python -m benchmarks.go_patterns --records games.jsonl --out /tmp/patterns.npz

No table is copied from another program: the counts are of moves GNU Go
chose in games played here. The package's cache digest covers the file, so
the playouts compile again with a new one.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from games.go import PASS, Go, GoState
from player.mcts.fast.go import patterns
from records.jsonl import read_jsonl
from records.replay import check_entry
from records.schema import GameEntry

ARENA = str(Path(sys.executable).parent / "arena")
GNUGO = (
    "engine:cmd=gnugo,args=--mode gtp --level {level} --chinese-rules --capture-all-dead"
    " --positional-superko,protocol=gtp"
)


def play_games(
    games: int, seed: int, openings: int, concurrency: int, db: Path, folder: Path
) -> Path:
    """Play `games` GNU Go games through ``arena tournament`` into the SQLite file `db`;
    their JSON Lines export (in `folder`)."""
    out = folder / "games.jsonl"
    pairs = max(1, games // 2)
    command = [ARENA, "tournament", "go", "-p", "gnugo10=" + GNUGO.format(level=10)]
    command += ["-p", "gnugo8=" + GNUGO.format(level=8), "--games-per-pair", str(2 * pairs)]
    command += ["--random-openings", str(openings), "--seed", str(seed), "--move-time", "5"]
    command += ["--concurrency", str(concurrency), "--db", str(db), "--no-progress"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(
        [ARENA, "export", "--db", str(db), str(out)], check=True, stdout=subprocess.DEVNULL
    )
    return out


def neighbours8(size: int, move: int) -> Iterable[int]:
    """The board points among the eight neighbours of `move`."""
    row, col = divmod(move, size)
    for dr, dc in patterns.OFFSETS:
        r, c = row + dr, col + dc
        if 0 <= r < size and 0 <= c < size:
            yield r * size + c


def code_at(game: Go, state: GoState, move: int) -> int:
    """The 3×3 pattern code of the empty point `move` for the side to move (`patterns`)."""
    size, position = game.size, game.tables.position
    black, white = state.black, state.white
    mine, theirs = (white, black) if state.ply & 1 else (black, white)
    row, col = divmod(move, size)
    code = 0
    for k, (dr, dc) in enumerate(patterns.OFFSETS):
        r, c = row + dr, col + dc
        if not (0 <= r < size and 0 <= c < size):
            value = patterns.OFF
        else:
            pos = position[r * size + c]
            value = (
                patterns.MINE
                if (mine >> pos) & 1
                else patterns.THEIRS
                if (theirs >> pos) & 1
                else patterns.EMPTY
            )
        code |= value << (2 * k)
    return code


def count(entries: Iterable[GameEntry]) -> tuple[Counter[int], Counter[int], int, int]:
    """Seen and played counts per canonical code; the games and the moves counted."""
    seen: Counter[int] = Counter()
    played: Counter[int] = Counter()
    canonical = patterns.canonical_table()
    games = moves = 0
    for entry in entries:
        if entry.game != "go":
            continue
        game = check_entry(entry)
        assert isinstance(game, Go)
        games += 1
        state = game.initial_state()
        opening = len(entry.opening.moves)  # the first moves: random, not counted
        for ply, record in enumerate(entry.moves):
            move = game.decode_move(record.move)
            last = state.last
            if ply >= opening and last >= 0:
                legal = set(game.legal_moves(state))
                occupied = state.black | state.white
                for p in neighbours8(game.size, last):
                    if (occupied >> game.tables.position[p]) & 1 or p not in legal:
                        continue
                    c = int(canonical[code_at(game, state, p)])
                    seen[c] += 1
                    if p == move:
                        played[c] += 1
                moves += move != PASS
            state = game.apply(state, move)
    return seen, played, games, moves


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=40, help="GNU Go games to play (default 40)")
    parser.add_argument("--seed", type=int, default=1, help="the tournament's seed")
    parser.add_argument("--openings", type=int, default=4, help="random opening plies (4)")
    parser.add_argument("--concurrency", type=int, default=2, help="games at a time (2)")
    parser.add_argument("--db", type=Path, help="keep the games in this SQLite file")
    parser.add_argument("--records", type=Path, help="learn from this JSON Lines export instead")
    parser.add_argument("--out", type=Path, default=patterns.PATTERNS_FILE, help="the .npz")
    args = parser.parse_args(argv)
    if args.games < 2 or args.concurrency < 1 or args.openings < 0:
        parser.error("--games must be >= 2, --concurrency >= 1, --openings >= 0")
    begin = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="go-patterns-") as folder:
        if args.records is None:
            db = args.db or Path(folder) / "games.sqlite"
            source = play_games(
                args.games, args.seed, args.openings, args.concurrency, db, Path(folder)
            )
        else:
            source = args.records
        played_at = time.perf_counter()
        with source.open() as lines:
            seen, played, games, moves = count(read_jsonl(lines, str(source)))
    if not games:
        print(f"no Go games in {source}")
        return 1
    patterns.save(args.out, dict(seen), dict(played), games)
    table = patterns.weights(args.out)
    strong = int(np.count_nonzero(table > 0.2))
    print(
        f"{games} games, {moves} moves; {len(seen)} patterns seen {sum(seen.values())} times,"
        f" played {sum(played.values())} times; {strong} codes weigh over 0.2;"
        f" games {played_at - begin:.0f}s, counts {time.perf_counter() - played_at:.0f}s;"
        f" written to {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
