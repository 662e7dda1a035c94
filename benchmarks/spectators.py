"""Spectators fanned out: the server's CPU per move with 1,000 spectators against one.

A real `arena serve --web` runs in a child process (records in a fresh SQLite
file, as in production). Two scripted players in this process play one long
gomoku match over TCP as fast as they can (a random legal move at every
turn); a third process (`benchmarks.watchers`, one epoll loop, no task per
spectator) holds the spectators of that match as real connections: TCP, then
the web app's WebSocket. For each transport the match is played with 1
spectator (the baseline) and with `--spectators` of them, and the server
process's CPU time (user + system, from /proc) is divided by the moves
played. Target: N spectators cost at most 10x the CPU per move of one.

All spectators connect from 127.0.0.1, so the benchmark raises the server's
per-address connection cap with the setting that exists for it
(``ARENA_MAX_CONNECTIONS_PER_ADDRESS``, docs/PROTOCOL.md "Limits").

    python -m benchmarks.spectators [--spectators 1000] [--plies 400] [--transports tcp ws]

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


async def measure(server: Server, transport: str, spectators: int, plies: int) -> Result:
    run = Run(spectators, plies, 0.0)
    ready = trio.Event()
    send_start, receive_start = trio.open_memory_channel[str](2)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(player, server, "alice", run, ready, send_start)
        nursery.start_soon(player, server, "bob", run, ready, send_start.clone())
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
    server_cpu = server.cpu_seconds() - cpu
    report: dict[str, Any] = json.loads(await trio.to_thread.run_sync(watchers.stdout.readline))
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
    parser.add_argument("--plies", type=int, default=400, help="moves per match (then a resign)")
    parser.add_argument(
        "--transports",
        nargs="+",
        choices=TRANSPORTS,
        default=["tcp", "ws"],
        help="ws: the WebSocket with msgpack framing; ws-json: with JSON framing",
    )
    args = parser.parse_args()
    settings = {"ARENA_MAX_CONNECTIONS_PER_ADDRESS": str(args.spectators + 16)}
    print(
        f"spectators of one gomoku 26x26 match, players as fast as they can, {args.plies} plies;"
        " server CPU (user + system) per move, server in its own process"
    )
    print(
        f"{'transport':>9} {'spectators':>10} {'moves':>6} {'moves/s':>8} {'CPU us/move':>12}"
        f" {'x of 1':>7} {'p50 ms':>7} {'p99 ms':>7} {'dropped':>8}"
    )
    verdicts = []
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-spectators-") as tmp,
        arena_server(Path(tmp), settings) as server,
    ):
        trio.run(measure, server, "tcp", 1, 50)  # warm-up: imports, first match
        for transport in args.transports:
            base = trio.run(measure, server, transport, 1, args.plies)
            many = trio.run(measure, server, transport, args.spectators, args.plies)
            for result in (base, many):
                ratio = result.cpu_per_move_us / base.cpu_per_move_us
                print(
                    f"{transport:>9} {result.spectators:>10} {result.moves:>6}"
                    f" {result.moves / result.seconds:>8.0f} {result.cpu_per_move_us:>12.0f}"
                    f" {ratio:>7.2f} {percentile_ms(result.latencies, 50):>7.2f}"
                    f" {percentile_ms(result.latencies, 99):>7.2f} {result.dropped:>8}",
                    flush=True,
                )
            ratio = many.cpu_per_move_us / base.cpu_per_move_us
            verdicts.append(
                f"{transport}: {args.spectators} spectators cost {ratio:.1f}x the CPU per move"
                f" of one (target <= {TARGET_RATIO:g}x):"
                f" {'PASS' if ratio <= TARGET_RATIO and many.dropped == 0 else 'MISS'}"
            )
    for verdict in verdicts:
        print(verdict)


if __name__ == "__main__":
    main()
