"""What seating an engine program costs: the adapter's time per move, and tournament throughput.

Two figures, each against a baseline measured in the same run:

1. **Adapter overhead per move.** The example text engine (examples/text_engine.c,
   compiled here) answers at once, so the `engine` agent's `choose` time is
   almost all adapter: writing `position`/`go`, the pipe both ways, reading
   and parsing the answer, the legality check. Measured in-process over whole
   gomoku 15x15 games (positions up to 225 moves long), beside the engine's own
   think as the adapter measured it (from `go` to `bestmove`) and a bare pipe
   round trip (`isready` -> `readyok`) to the same process.
2. **Tournament throughput.** `arena tournament tictactoe` between two text
   engines, against the same tournament between two `random` players: games
   per minute on this machine (target: at least 200 a minute on 2 cores).

    python -m benchmarks.engines
    python -m benchmarks.engines --moves 3000 --games 100
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from arena_cli.logs import configure_logging
from games import make_game
from player.agent import SearchLimit
from player.baselines import RandomAgent
from player.engines.agent import EngineAgent
from player.spec import make_agent

ROOT = Path(__file__).resolve().parents[1]
ARENA = str(Path(sys.executable).parent / "arena")


def build(folder: Path) -> str:
    """The example text engine, compiled into `folder`."""
    compiler = shutil.which("cc")
    if compiler is None:
        raise SystemExit("benchmarks.engines needs a C compiler (cc): make engines")
    target = folder / "text_engine"
    source = ROOT / "examples" / "text_engine.c"
    subprocess.run([compiler, "-O2", "-o", str(target), str(source)], check=True)
    return str(target)


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def us(values: Sequence[float]) -> str:
    return (
        f"p50 {percentile(values, 0.5) * 1e6:7.1f} us, p99 {percentile(values, 0.99) * 1e6:7.1f}"
        f" us, mean {statistics.fmean(values) * 1e6:7.1f} us"
    )


def overhead(program: str, moves: int) -> None:
    game = make_game("gomoku", {})
    agent = make_agent(f"engine:cmd={program}")
    assert isinstance(agent, EngineAgent)
    rival = RandomAgent(seed=1)
    choose: list[float] = []
    think: list[float] = []
    limit = SearchLimit(time=1.0)
    seat = 0
    while len(choose) < moves:
        for player, own in ((agent, seat), (rival, 1 - seat)):
            player.start(game, own)
            player.sync(game.initial_state(), ())
        state = game.initial_state()
        while game.outcome(state) is None:
            if game.to_move(state) == seat:
                started = time.perf_counter()
                move = agent.choose(state, limit)
                choose.append(time.perf_counter() - started)
                assert agent.last_answer is not None
                think.append(agent.last_answer.think)
            else:
                move = rival.choose(state, limit)
            after = game.play(state, move)
            agent.observe(state, move, after)
            rival.observe(state, move, after)
            state = after
        seat = 1 - seat
    session = agent.session
    assert session is not None
    pipe: list[float] = []
    for _ in range(min(moves, 2000)):
        started = time.perf_counter()
        session.process.send("isready")
        while session.read(time.monotonic() + 5) != "readyok":
            pass
        pipe.append(time.perf_counter() - started)
    agent.close()
    extra = [c - t for c, t in zip(choose, think, strict=True)]
    print(f"adapter, gomoku 15x15, {len(choose)} engine moves (trivial text engine):")
    print(f"  choose() per move       {us(choose)}")
    print(f"  engine think (go..best) {us(think)}")
    print(f"  choose() beyond think   {us(extra)}")
    print(f"  baseline: bare pipe round trip (isready..readyok) {us(pipe)}")


def tournament(specs: Sequence[str], games: int, folder: Path) -> float:
    """Games per minute of a two-player tictactoe round-robin of `games` games."""
    pair = games // 2 * 2
    command = [ARENA, "tournament", "tictactoe", "--games-per-pair", str(pair)]
    for spec in specs:
        command += ["-p", spec]
    command += ["--concurrency", "2", "--move-time", "1", "--no-progress"]
    command += ["--db", str(folder / f"t{time.monotonic_ns()}.sqlite")]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=folder)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"the tournament failed: {done.stderr.strip()[-500:]}")
    return pair / seconds * 60


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--moves", type=int, default=2000, help="engine moves to time (2000)")
    parser.add_argument("--games", type=int, default=100, help="tournament games (100)")
    args = parser.parse_args(argv)
    configure_logging("warning", json=False, stream=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="bench-engines-") as name:
        folder = Path(name)
        program = build(folder)
        overhead(program, args.moves)
        engines = [f"a=engine:cmd={program}", f"b=engine:cmd={program}"]
        rate = tournament(engines, args.games, folder)
        base = tournament(["random", "random:seed=2"], args.games, folder)
        print(f"tournament, tictactoe, {args.games // 2 * 2} games, concurrency 2:")
        print(f"  two text engines: {rate:6.0f} games/min")
        print(f"  baseline, two random players: {base:6.0f} games/min ({rate / base:.2f}x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
