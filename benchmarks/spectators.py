"""Spectators fanned out: the server's CPU per move with 1,000 spectators against one.

A real `arena serve --web` runs in a child process (records in a fresh SQLite
file, as in production). Two scripted players in this process play one long
gomoku match over TCP as fast as they can (a random legal move at every
turn); a third process (`benchmarks.watchers`, one epoll loop, no task per
spectator) holds the spectators of that match as real connections: TCP, then
the web app's WebSocket. For each transport the match is played with 1
spectator (the baseline) and with `--spectators` of them, and the server
process's CPU time (user + system, from /proc, until every spectator has
read the match's end) is divided by the moves played. Target: N spectators
cost at most 10x the CPU per move of one, players as fast as they can. Each
transport is also measured with the players paced (`--pace` moves/s, an
engine match's speed), where fewer updates share each write.

All spectators connect from 127.0.0.1, so the benchmark raises the server's
per-address connection cap with the setting that exists for it
(``ARENA_MAX_CONNECTIONS_PER_ADDRESS``, docs/PROTOCOL.md "Limits").

    python -m benchmarks.spectators [--spectators 1000] [--plies 500] [--transports tcp ws]
                                    [--pace 50]

Clients and server share the machine (2 cores here): the figures are the
server's own CPU time, not a share of the wall clock.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from benchmarks.web import Run, Server, arena_server, player

TARGET_RATIO = 10.0
#: gomoku on the largest board with 8 in a row to win: random games of 500-600 plies
OPTIONS = {"width": 26, "height": 26, "k": 8}
TRANSPORTS = ("tcp", "ws", "ws-json")


@dataclass
class Result:
    transport: str
    spectators: int
    moves: int
    seconds: float
    server_cpu: float
    updates_min: int
    dropped: int
    latencies: list[float]

    @property
    def cpu_per_move_us(self) -> float:
        return self.server_cpu / max(self.moves, 1) * 1e6


def start_watchers(server: Server, transport: str, match: str, count: int) -> subprocess.Popen[str]:
    host, port = "127.0.0.1", server.tcp_port
    if transport != "tcp":
        host, _, web_port = server.web_url.removeprefix("http://").rpartition(":")
        port = int(web_port)
    argv = [sys.executable, "-m", "benchmarks.watchers", transport, host, str(port), match]
    return subprocess.Popen([*argv, str(count)], stdout=subprocess.PIPE, text=True, bufsize=1)


async def measure(
    server: Server, transport: str, spectators: int, plies: int, pace: float = 0.0
) -> Result:
    run = Run(spectators, plies, pace)
    ready = trio.Event()
    send_start, receive_start = trio.open_memory_channel[str](2)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(player, server, "alice", run, ready, send_start, OPTIONS)
        nursery.start_soon(player, server, "bob", run, ready, send_start.clone(), OPTIONS)
        match = await receive_start.receive()
        watchers = start_watchers(server, transport, match, spectators)
        assert watchers.stdout is not None
        line = await trio.to_thread.run_sync(watchers.stdout.readline)
        if line.strip() != "ready":
            raise SystemExit(f"the spectators did not start ({line!r})")
        cpu = server.cpu_seconds()
        start = time.perf_counter()
        run.start = trio.current_time()
        ready.set()
    seconds = time.perf_counter() - start
    # the server's CPU until every spectator has read the match's end: writes that the
    # sockets did not take at once are finished by then, and counted
    report: dict[str, Any] = json.loads(await trio.to_thread.run_sync(watchers.stdout.readline))
    server_cpu = server.cpu_seconds() - cpu
    await trio.to_thread.run_sync(watchers.wait)
    latencies = [
        arrived - run.sent[int(ply)]
        for arrivals in report["arrivals"]
        for ply, arrived in arrivals.items()
        if int(ply) in run.sent
    ]
    return Result(
        transport,
        spectators,
        len(run.sent),
        seconds,
        server_cpu,
        min(report["updates"]),
        report["dropped"],
        latencies,
    )


def percentile_ms(values: list[float], q: int) -> float:
    if len(values) < 2:
        return float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] * 1e3


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--plies", type=int, default=500, help="moves per match (then a resign)")
    parser.add_argument(
        "--transports",
        nargs="+",
        choices=TRANSPORTS,
        default=["tcp", "ws"],
        help="ws: the WebSocket with msgpack framing; ws-json: with JSON framing",
    )
    parser.add_argument(
        "--pace",
        type=float,
        default=50.0,
        help="moves/s of the paced runs (0: none); the target is judged at full speed",
    )
    args = parser.parse_args()
    settings = {"ARENA_MAX_CONNECTIONS_PER_ADDRESS": str(args.spectators + 16)}
    print(
        f"spectators of one gomoku {OPTIONS} match, {args.plies} plies; server CPU"
        " (user + system, until every spectator has read the end) per move,"
        " server in its own process"
    )
    print(
        f"{'transport':>9} {'pace':>5} {'spectators':>10} {'moves':>6} {'moves/s':>8}"
        f" {'CPU us/move':>12} {'x of 1':>7} {'p50 ms':>7} {'p99 ms':>7} {'dropped':>8}"
    )
    paces = [0.0] + ([args.pace] if args.pace else [])
    verdicts = []
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-spectators-") as tmp,
        arena_server(Path(tmp), settings) as server,
    ):
        trio.run(measure, server, "tcp", 1, 50)  # warm-up: imports, first match
        for transport in args.transports:
            for pace in paces:
                base = trio.run(measure, server, transport, 1, args.plies, pace)
                many = trio.run(measure, server, transport, args.spectators, args.plies, pace)
                for result in (base, many):
                    ratio = result.cpu_per_move_us / base.cpu_per_move_us
                    print(
                        f"{transport:>9} {pace or 'max':>5} {result.spectators:>10}"
                        f" {result.moves:>6} {result.moves / result.seconds:>8.0f}"
                        f" {result.cpu_per_move_us:>12.0f} {ratio:>7.2f}"
                        f" {percentile_ms(result.latencies, 50):>7.1f}"
                        f" {percentile_ms(result.latencies, 99):>7.1f} {result.dropped:>8}",
                        flush=True,
                    )
                ratio = many.cpu_per_move_us / base.cpu_per_move_us
                if pace:
                    verdicts.append(f"{transport} at {pace:g} moves/s: {ratio:.1f}x")
                    continue
                verdicts.append(
                    f"{transport}: {args.spectators} spectators cost {ratio:.1f}x the CPU per"
                    f" move of one, players as fast as they can (target <= {TARGET_RATIO:g}x):"
                    f" {'PASS' if ratio <= TARGET_RATIO and many.dropped == 0 else 'MISS'}"
                )
    for verdict in verdicts:
        print(verdict)


if __name__ == "__main__":
    main()
