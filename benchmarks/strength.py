"""Play two agent specs against each other through a real ``arena serve``, one process per player.

Every game is a fresh pair of ``arena play`` processes joining one room of a
server subprocess, so each side pays its own start-up (and warm-up) outside
the clock and plays exactly as it would in a tournament. Seats alternate
game by game; with ``--cores`` each player is pinned to one core (the two
swap cores every other game pair, so a busier core hurts both alike). One
game at a time. Both sides get the same wall-clock budget per move: the
server's move time minus the client's safety margin.

It prints W/D/L, A's score and the Elo difference with their 95% intervals
(`tournament.stats`: normal approximation over per-game scores), time
forfeits, and per side the median think time (as the server measured it),
simulations per second over all searches, and the simulations per second of
the first move from the start position (the same position for both sides:
the figure compared with the reference). Default: ours (``mcts``) against
OpenSpiel's C++ MCTS (``openspiel``, needs ``pip install
'mcts-arena[reference]'``)::

    python -m benchmarks.strength --game connect4 --time 0.2 --games 200
    python -m benchmarks.strength "mcts:workers=2" "mcts" --time 0.2 --games 100
    python -m benchmarks.strength mcts:time=1 'engine:cmd=gtp-rhino,args=-l 3,protocol=gtp' \
        --game reversi --time 2 --games 100

Any spec plays on either side, engine programs included (docs/ENGINES.md):
for an engine the client's own measure of its think time is printed too.

A spec without ``seed=`` gets a per-game seed from ``--seed`` (use another
seed set to tune than to report).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from player.spec import check_agent_spec, parse_agent_spec
from tournament.stats import estimate, score_from_elo

ARENA = str(Path(sys.executable).parent / "arena")
SEARCH_EVENTS = {"mcts_move", "openspiel_move"}


@dataclass
class Side:
    """One contestant's running totals."""

    spec: str
    scores: list[float] = field(default_factory=list)
    think: list[float] = field(default_factory=list)
    iterations: int = 0
    search_seconds: float = 0.0
    start_rates: list[float] = field(default_factory=list)
    #: an engine program's own think per move, as its client measured it
    engine_think: list[float] = field(default_factory=list)
    forfeits: int = 0
    late: int = 0


def seeded(spec: str, seed: int) -> str:
    """`spec` with ``seed=SEED`` added when it has none and its kind takes one."""
    _, options = parse_agent_spec(spec)
    if "seed" in options or "seed" not in check_agent_spec(spec)[0].options:
        return spec  # e.g. an engine program: its randomness is its own
    return f"{spec}{',' if ':' in spec else ':'}seed={seed}"


def score_and_elo(scores: Sequence[float]) -> tuple[str, str]:
    """A's score and Elo, each with its 95% interval (`tournament.stats`, per game).

    ``0.750 (95% interval 0.505 .. 0.995)`` and ``+191 (95% interval +3 .. +919)``
    for 9 wins and 3 losses; no interval (``-``) when the games cannot support
    one: fewer than two, or all with the same result.
    """
    counts = Counter(scores)
    est = estimate(list(counts), list(counts.values()))
    assert est is not None, "no games"
    if est.lower is None or est.upper is None:
        return f"{est.score:.3f} (95% interval -)", f"{est.elo + 0.0:+.0f} (95% interval -)"
    low, high = score_from_elo(est.lower), score_from_elo(est.upper)
    return (
        f"{est.score:.3f} (95% interval {low:.3f} .. {high:.3f})",
        f"{est.elo + 0.0:+.0f} (95% interval {est.lower:+.0f} .. {est.upper:+.0f})",
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(
    port: int, move_time: float, lag: float, db: str | None = None
) -> subprocess.Popen[bytes]:
    store = ["--db", db] if db else ["--no-db"]
    command = [ARENA, "serve", "--port", str(port), *store, "--move-time", str(move_time)]
    server = subprocess.Popen(
        [*command, "--lag-margin", str(lag)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("the server did not start")


def player(
    args: argparse.Namespace,
    spec: str,
    room: str,
    seat: int,
    name: str,
    core: int | None,
    log: Path,
) -> subprocess.Popen[bytes]:
    command = [ARENA, "play", args.game, spec, "--port", str(args.port), "--room", room]
    command += ["--seat", str(seat), "--games", "1", "--name", name]
    command += ["--move-time", str(args.time)]
    for option in filter(None, args.options.split(",")):
        command += ["-o", option]

    def pin() -> None:
        if core is not None:
            os.sched_setaffinity(0, {core})

    with log.open("wb") as out:
        return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, preexec_fn=pin)


def read_log(path: Path) -> list[dict[str, Any]]:
    events = []
    for line in path.read_text().splitlines():
        if line.startswith("{"):
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return events


def tally(side: Side, events: list[dict[str, Any]], seat: int) -> float | None:
    """Add one game's log to `side`; return its score (None: no result)."""
    score = None
    first = True
    for event in events:
        kind = event.get("event")
        if kind in SEARCH_EVENTS and "iterations" in event:
            side.iterations += event["iterations"]
            side.search_seconds += event["elapsed_ms"] / 1000
            if first and seat == 0 and event["iterations"]:
                side.start_rates.append(event["iterations"] / (event["elapsed_ms"] / 1000))
        if kind == "engine_move":
            side.engine_think.append(event["think"])
        if kind in SEARCH_EVENTS:
            first = False
        elif kind == "move" and event.get("own"):
            side.think.append(event["think_time"])
        elif kind == "match_end":
            score = event.get("score")
            if event.get("termination") == "timeout" and score == 0.0:
                side.forfeits += 1
    return score


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def report(args: argparse.Namespace, sides: list[Side], begin: float) -> None:
    a = sides[0].scores
    if not a:
        print("no games finished")
        return
    score, elo = score_and_elo(a)
    wins, draws = sum(s == 1.0 for s in a), sum(s == 0.5 for s in a)
    print(f"A scores {sum(a):g}/{len(a)} = {score}; W/D/L {wins}/{draws}/{len(a) - wins - draws}")
    print(f"Elo A-B: {elo}")
    for label, side in zip("AB", sides, strict=True):
        rate = side.iterations / side.search_seconds if side.search_seconds else 0.0
        late = sum(t > args.time for t in side.think)
        mean = statistics.fmean(side.think) if side.think else math.nan
        searched = (  # only for a side that reports its searches (mcts, openspiel)
            f" {rate:,.0f} sims/s over all searches, start position"
            f" {median(side.start_rates):,.0f} sims/s (median of {len(side.start_rates)}),"
            if side.search_seconds
            else ""
        )
        print(
            f"{label} {side.spec}: think (server) mean {mean:.3f}s, median {median(side.think):.3f}s"
            f" (max {max(side.think, default=0):.3f}s, {late} over {args.time:g}s),"
            f"{searched} time forfeits {side.forfeits}"
        )
        if side.engine_think:
            print(
                f"  {label} engine think as its client measured it: mean"
                f" {statistics.fmean(side.engine_think):.3f}s, median"
                f" {median(side.engine_think):.3f}s, max {max(side.engine_think):.3f}s"
                f" over {len(side.engine_think)} moves"
            )
    ra, rb = median(sides[0].start_rates), median(sides[1].start_rates)
    if rb and rb == rb and ra == ra:
        print(f"start-position simulations/s A/B: {ra / rb:.2f}x")
    print(f"{time.perf_counter() - begin:.0f}s", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("spec_a", nargs="?", default="mcts", help="agent spec A (default mcts)")
    parser.add_argument("spec_b", nargs="?", default="openspiel", help="spec B (default openspiel)")
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--options", default="", help="game options, key=value,...")
    parser.add_argument("--games", type=int, default=20, help="games to play (default 20)")
    parser.add_argument("--time", type=float, default=0.2, help="seconds per move (default 0.2)")
    parser.add_argument("--lag-margin", type=float, default=0.2, help="server lag margin")
    parser.add_argument("--seed", type=int, default=1, help="base seed for specs without one")
    parser.add_argument("--cores", default="0,1", help="two cores to pin the players to, or ''")
    parser.add_argument("--logs", default=None, help="keep the players' logs in this directory")
    parser.add_argument("--report-every", type=int, default=0, help="interim summary every N games")
    parser.add_argument(
        "--db", default=None, help="record the games in this database (default: none)"
    )
    args = parser.parse_args(argv)
    if args.games < 1 or args.time <= 0:
        parser.error("--games must be >= 1 and --time > 0")
    cores = [int(c) for c in args.cores.split(",")] if args.cores else [None, None]
    if len(cores) != 2:
        parser.error("--cores takes two core numbers")
    logs = Path(args.logs or tempfile.mkdtemp(prefix="strength-"))
    logs.mkdir(parents=True, exist_ok=True)
    args.port = free_port()
    sides = [Side(args.spec_a), Side(args.spec_b)]
    print(
        f"{args.game}: A={args.spec_a!r} vs B={args.spec_b!r}, {args.games} games,"
        f" {args.time:g}s/move via arena serve, cores {args.cores or 'unpinned'},"
        f" {platform.python_implementation()} {platform.python_version()}, logs in {logs}"
    )
    begin = time.perf_counter()
    server = start_server(args.port, args.time, args.lag_margin, args.db)
    try:
        for index in range(args.games):
            a_seat = index % 2
            swap = (index // 2) % 2
            procs = []
            for k, side in enumerate(sides):
                seat = a_seat if k == 0 else 1 - a_seat
                spec = seeded(side.spec, args.seed * 100_003 + 2 * index + k)
                room = f"s{args.seed}-{index}"
                log = logs / f"game{index:04d}-{'AB'[k]}.log"
                procs.append(
                    (player(args, spec, room, seat, "AB"[k], cores[k ^ swap], log), log, seat)
                )
            scores: list[float | None] = []
            for (proc, log, seat), side in zip(procs, sides, strict=True):
                try:
                    proc.wait(timeout=600 + 200 * args.time)
                except subprocess.TimeoutExpired:
                    proc.kill()
                scores.append(tally(side, read_log(log), seat))
            for side, score in zip(sides, scores, strict=True):
                if score is not None:
                    side.scores.append(score)
            total = f"A {sum(sides[0].scores):g} - {sum(sides[1].scores):g} B"
            print(f"game {index + 1:>3}: A seat {a_seat} score {scores[0]}   {total}", flush=True)
            if args.report_every and (index + 1) % args.report_every == 0 < args.games - index - 1:
                report(args, sides, begin)
    finally:
        server.terminate()
        server.wait(10)
        report(args, sides, begin)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
