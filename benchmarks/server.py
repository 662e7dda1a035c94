"""Server throughput and added latency under load.

The server runs in this process, recording every move in a SQLite database; scripted clients that answer every turn at
once (a random legal move) run in a second process, over loopback TCP, so the
server gets a core of its own. For 1, 10 and 100 concurrent matches it prints
moves relayed per second and the server-added latency per move (p50/p99: from
the moment a move frame is decoded to the moment the next ``turn`` is queued
for sending), measured inside the server.

The baseline in the same run is the raw message rate of the loopback setup:
the same clients against an echo server that answers every ``move`` with a
``turn`` without any game logic, so the cost of arbitration can be read off.
A shared 2-core machine drifts by tens of percent from one second to the
next, so each level alternates server and echo `--rounds` times and prints
medians, with the spread of the server's rate.

With ``--postgres`` (a throwaway PostgreSQL cluster started for the run,
`store.postgres.cluster`) or ``--db postgresql://...``, every level also runs on
PostgreSQL, and the table shows its rate as a share of SQLite's in the same
round (target: at least 70% at 100 matches, every move durable).

Every match is two connections from this host (127.0.0.1): the server started
here allows ``2 * matches`` of them from one address (``max_connections_per_address``,
256 by default, i.e. 128 matches: docs/PROTOCOL.md section 6), and each process
raises its own open-file limit (``ulimit -n``) to ``2 * matches`` + 64 if its hard
limit allows; if not, it says which ``ulimit -n`` it needs before anything starts.
A client refused by the server says why in one line and the run stops.

    python -m benchmarks.server [--seconds 4] [--rounds 3] [--matches 1 10 100] [--game connect4]
    python -m benchmarks.server --matches 400
    python -m benchmarks.server --postgres --matches 100
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import structlog
import trio

from benchmarks.postgres import Databases
from protocol.codec import (
    FrameReader,
    client_message_decoder,
    encode_message,
    server_message_decoder,
)
from protocol.messages import PROTOCOL_VERSION, Error, Hello, MatchEnd, Move, Seek, Turn
from server.app import ArenaServer
from server.config import MatchPolicy, ServerConfig
from server.match import Stats
from store.open import open_database

TARGET_MOVES_PER_S = 5_000
TARGET_SHARE_OF_ECHO = 0.5  # with durable commits: at least half the transport's rate
TARGET_P99_MS = 5.0
TARGET_POSTGRES_SHARE = 0.7  # one node on PostgreSQL relays >= 70% of one node on SQLite
NO_DB = False  # --no-db: measure without the records database
STORE_WRITER = "process"  # --store-writer: who writes the database (ServerConfig.store_writer)
LAST_CPU_PER_MOVE = 0.0  # server CPU seconds per move in the last measure_arena run
LAST_LOOP_CPU_PER_MOVE = 0.0  # the same, of the event loop's thread alone (no database thread)
LAST_ECHO_CPU_PER_MOVE = 0.0  # the same for the echo baseline


DEFAULT_PER_ADDRESS = ServerConfig().max_connections_per_address
#: files a process opens besides its connections (the interpreter, SQLite, pipes)
SPARE_FILES = 64


class BenchmarkFailed(Exception):
    """The run cannot go on (one line for the user)."""


def connections_for(matches: int) -> int:
    """Connections the clients hold at once: two players a match."""
    return 2 * matches


def raise_file_limit(matches: int) -> None:
    """Raise this process's soft open-file limit to what `matches` need (children inherit
    it); BenchmarkFailed naming the ``ulimit -n`` needed if the hard limit is lower."""
    wanted = connections_for(matches) + SPARE_FILES
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft >= wanted:
        return
    if hard != resource.RLIM_INFINITY and hard < wanted:
        raise BenchmarkFailed(
            f"{matches} matches need {wanted} open files per process, and this shell allows"
            f" {hard} (ulimit -Hn): raise it (ulimit -n {wanted}) or run fewer matches"
        )
    resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))


# --- the client process ---------------------------------------------------------


async def run_clients(port: int, matches: int, seconds: float, game: str) -> None:
    deadline = trio.current_time() + seconds

    async def player(index: int) -> None:
        rng = random.Random(index)
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        reader = FrameReader(stream, 1 << 20)
        decoder = server_message_decoder()
        await stream.send_all(encode_message(Hello(version=PROTOCOL_VERSION, name=f"b{index}")))
        seek = encode_message(Seek(game=game, move_time=30.0))
        await stream.send_all(seek)
        with trio.move_on_at(deadline):
            while True:
                message = decoder.decode(await reader.read_frame())
                if isinstance(message, Turn):
                    move = message.legal_moves[int(rng.random() * len(message.legal_moves))]
                    await stream.send_all(
                        encode_message(Move(match=message.match, ply=message.ply, move=move))
                    )
                elif isinstance(message, MatchEnd):
                    await stream.send_all(seek)
                elif isinstance(message, Error) and message.fatal:
                    raise BenchmarkFailed(
                        f"the server refused client {index}: {message.code}: {message.message}"
                    )
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        for index in range(connections_for(matches)):
            nursery.start_soon(player, index)


def client_process(port: int, matches: int, seconds: float, game: str) -> None:
    """The clients' process: the first refusal is its one line, and exit code 1."""
    try:
        trio.run(run_clients, port, matches, seconds, game)
    except BaseException as exc:
        failed = benchmark_failure(exc)
        if failed is None:
            raise
        print(f"benchmarks.server: {failed}", file=sys.stderr)
        raise SystemExit(1) from None


def benchmark_failure(exc: BaseException) -> BenchmarkFailed | None:
    """The first `BenchmarkFailed` in `exc` (out of trio's nurseries: a group), if any."""
    if isinstance(exc, BenchmarkFailed):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        group, _ = exc.split(BenchmarkFailed)
        first: BaseException | None = group
        while isinstance(first, BaseExceptionGroup):
            first = first.exceptions[0]
        return first if isinstance(first, BenchmarkFailed) else None
    return None


def wait_for_clients(clients: subprocess.Popen[bytes]) -> None:
    """Wait for the clients' process; BenchmarkFailed if it failed (it said why)."""
    if clients.wait() != 0:
        raise BenchmarkFailed(f"the client process failed (exit code {clients.returncode})")


def spawn_clients(port: int, matches: int, seconds: float, game: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "benchmarks.server",
            "--client-process",
            str(port),
            str(matches),
            str(seconds),
            game,
        ]
    )


# --- measurements -------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


async def measure_arena(
    matches: int, seconds: float, game: str, url: str | None = None
) -> tuple[float, float, float, float, float]:
    """Moves/s, p50 and p99 added latency (ms), finished matches/s, share of results recorded.

    Records go to a fresh SQLite file, or to the PostgreSQL database at `url`.
    """
    stats = Stats(keep_latencies=True)
    db: str | None = url or str(Path(tempfile.mkdtemp(prefix="arena-bench-")) / "bench.sqlite")
    if NO_DB:
        db = None
    config = ServerConfig(
        port=0,
        db=db,
        policy=MatchPolicy(move_time=30.0),
        store_writer=STORE_WRITER,
        # every client is on this host: allow all of them from its one address
        max_connections_per_address=max(DEFAULT_PER_ADDRESS, connections_for(matches)),
    )
    server = ArenaServer(config, store=None if db is None else open_database(db), stats=stats)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.serve)
        clients = spawn_clients(port, matches, seconds + 1.0, game)
        await trio.sleep(1.0)  # warm-up: connections and first matches
        stats.moves, stats.latencies = 0, []
        stats.finished = stats.recorded = 0
        start = trio.current_time()
        cpu_start, loop_start = time.process_time(), time.thread_time()
        await trio.sleep(seconds)
        elapsed = trio.current_time() - start
        cpu, loop_cpu = time.process_time() - cpu_start, time.thread_time() - loop_start
        moves, latencies = stats.moves, list(stats.latencies)
        finished, recorded = stats.finished, stats.recorded
        await trio.to_thread.run_sync(wait_for_clients, clients)
        nursery.cancel_scope.cancel()
    global LAST_CPU_PER_MOVE, LAST_LOOP_CPU_PER_MOVE
    LAST_CPU_PER_MOVE = cpu / max(moves, 1)
    LAST_LOOP_CPU_PER_MOVE = loop_cpu / max(moves, 1)
    return (
        moves / elapsed,
        percentile(latencies, 50) * 1e3,
        percentile(latencies, 99) * 1e3,
        finished / elapsed,
        recorded / max(finished, 1),
    )


async def measure_echo(matches: int, seconds: float, game: str) -> float:
    """Baseline: an echo 'server' that answers each move with a turn, no game, no lobby."""
    count = 0
    turn_frame_cache: dict[str, bytes] = {}

    async def handler(stream: trio.SocketStream) -> None:
        nonlocal count
        reader = FrameReader(stream, 1 << 20)
        decoder = client_message_decoder()
        try:
            while True:
                message = decoder.decode(await reader.read_frame())
                if isinstance(message, Seek | Move):
                    if isinstance(message, Move):
                        count += 1
                    frame = turn_frame_cache.get("t")
                    if frame is None:
                        frame = encode_message(
                            Turn(
                                match="echo", ply=0, state={}, legal_moves=[0, 1, 2], time_left=1.0
                            )
                        )
                        turn_frame_cache["t"] = frame
                    await stream.send_all(frame)
        except Exception:
            return

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(trio.serve_tcp, handler, 0)
        port = listeners[0].socket.getsockname()[1]
        clients = spawn_clients(port, matches, seconds + 1.0, game)
        await trio.sleep(1.0)
        count = 0
        start = trio.current_time()
        cpu_start = time.process_time()
        await trio.sleep(seconds)
        rate = count / (trio.current_time() - start)
        global LAST_ECHO_CPU_PER_MOVE
        LAST_ECHO_CPU_PER_MOVE = (time.process_time() - cpu_start) / max(count, 1)
        await trio.to_thread.run_sync(wait_for_clients, clients)
        nursery.cancel_scope.cancel()
    return rate


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--client-process":
        port, matches, seconds, game = sys.argv[2:6]
        client_process(int(port), int(matches), float(seconds), game)
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seconds", type=float, default=4.0, help="measured seconds per round and level"
    )
    parser.add_argument(
        "--rounds", type=int, default=3, help="server/echo rounds per level (medians are shown)"
    )
    parser.add_argument("--matches", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--no-db", action="store_true", help="keep no records (default: SQLite)")
    parser.add_argument(
        "--db", default=None, help="also measure on this PostgreSQL database (postgresql://...)"
    )
    parser.add_argument(
        "--postgres",
        action="store_true",
        help="also measure on a throwaway PostgreSQL cluster started for the run",
    )
    parser.add_argument(
        "--store-writer",
        choices=["process", "thread"],
        default="process",
        help="who writes the records (default: the server's writer process)",
    )
    args = parser.parse_args()
    global NO_DB, STORE_WRITER
    NO_DB, STORE_WRITER = args.no_db, args.store_writer
    databases = None
    if args.postgres and args.db is None:
        databases = Databases(parser, "benchmarks.server: --postgres", None)
        args.db = databases.new()
    try:
        raise_file_limit(max(args.matches))
        run(args)
    except BaseException as exc:
        failed = benchmark_failure(exc)
        if failed is None:
            raise
        parser.exit(1, f"benchmarks.server: {failed}\n")
    finally:
        if databases is not None:
            databases.stop()


def run(args: argparse.Namespace) -> None:
    """The table: each level, `args.rounds` rounds of server (SQLite, PostgreSQL) and echo."""
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))  # errors only
    records = (
        "no records"
        if args.no_db
        else "every move recorded in SQLite (WAL, synchronous=FULL, group commit,"
        f" {args.store_writer} writer)"
    )
    if args.db:
        records += "; and on PostgreSQL (synchronous commit, group commit, the same writer process)"
    print(
        f"server benchmark: {args.game}, {args.rounds} x {args.seconds:g}s per level"
        f" (medians), {records}, clients in a 2nd process"
    )
    print(
        f"{'matches':>8} {'moves/s':>10} {'(spread)':>15} {'p50 ms':>8} {'p99 ms':>8}"
        f" {'CPU us/move':>12} {'loop us':>8} {'ended/s':>8} {'recorded':>9}"
        f" {'echo moves/s':>13} {'echo CPU us':>12} {'of echo':>8}"
    )
    results = {}
    postgres: dict[int, tuple[float, ...]] = {}
    for matches in args.matches:
        rounds: list[tuple[float, ...]] = []
        pg_rounds: list[tuple[float, ...]] = []
        for _ in range(args.rounds):
            arena = trio.run(measure_arena, matches, args.seconds, args.game)
            cpu, loop = LAST_CPU_PER_MOVE, LAST_LOOP_CPU_PER_MOVE
            echo = trio.run(measure_echo, matches, args.seconds, args.game)
            rounds.append((*arena, cpu, loop, echo, LAST_ECHO_CPU_PER_MOVE))
            if args.db:
                pg = trio.run(measure_arena, matches, args.seconds, args.game, args.db)
                pg_rounds.append((*pg, LAST_CPU_PER_MOVE, pg[0] / max(arena[0], 1e-9)))
        rate, p50, p99, ended, recorded, cpu, loop, echo, echo_cpu = (
            statistics.median(column) for column in zip(*rounds, strict=True)
        )
        rates = [r[0] for r in rounds]
        results[matches] = (rate, p99, echo)
        spread = f"{min(rates):,.0f}-{max(rates):,.0f}"
        print(
            f"{matches:>8} {rate:>10,.0f} {spread:>15} {p50:>8.3f} {p99:>8.3f}"
            f" {cpu * 1e6:>12.0f} {loop * 1e6:>8.0f} {ended:>8,.1f} {recorded:>9.0%}"
            f" {echo:>13,.0f} {echo_cpu * 1e6:>12.0f} {rate / max(echo, 1e-9):>8.0%}",
            flush=True,
        )
        if pg_rounds:
            pg_rate, pg_p50, pg_p99, _, pg_recorded, pg_cpu, share = (
                statistics.median(column) for column in zip(*pg_rounds, strict=True)
            )
            postgres[matches] = (pg_rate, pg_p99, share)
            print(
                f"{'  on PostgreSQL':>24} {pg_rate:>9,.0f} {'':>15} {pg_p50:>8.3f} {pg_p99:>8.3f}"
                f" {pg_cpu * 1e6:>12.0f} {'':>8} {'':>8} {pg_recorded:>9.0%}"
                f"   {share:.0%} of SQLite's moves/s in the same rounds",
                flush=True,
            )
    top = max(results)
    rate, p99, echo = results[top]
    print(
        f"targets at {top} matches: >= {TARGET_MOVES_PER_S:,} moves/s:"
        f" {'PASS' if rate >= TARGET_MOVES_PER_S else 'MISS'};"
        f" >= {TARGET_SHARE_OF_ECHO:.0%} of echo: {'PASS' if rate >= TARGET_SHARE_OF_ECHO * echo else 'MISS'};"
        f" p99 <= {TARGET_P99_MS} ms: {'PASS' if p99 <= TARGET_P99_MS else 'MISS'}"
    )
    if top in postgres:
        share = postgres[top][2]
        print(
            f"PostgreSQL at {top} matches: {share:.0%} of SQLite (target >="
            f" {TARGET_POSTGRES_SHARE:.0%}): {'PASS' if share >= TARGET_POSTGRES_SHARE else 'MISS'};"
            f" p99 {postgres[top][1]:.3f} ms"
        )


if __name__ == "__main__":
    main()
