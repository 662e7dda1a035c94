"""WebSocket spectators: broadcast latency and the server's move rate under them.

A real `arena serve --web` runs in a child process (records in a fresh
SQLite file, as in production). In this process two scripted players play one
long gomoku match over TCP as fast as they can (a random legal move at every
turn), and N spectators watch it over the web app's WebSocket. For every move
the latency is the time from the mover sending its ``move`` to each
spectator receiving the ``update`` (one clock: all clients share this
process). The run is repeated without spectators for the baseline move rate.

    python -m benchmarks.web [--spectators 200] [--plies 300] [--json]

Clients and server share the machine: on 2 cores the 200 Python WebSocket
clients compete with the server for CPU, so the figures are an upper bound on
what the server alone costs.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import trio
from trio_websocket import open_websocket_url

from protocol.codec import FrameReader, encode_message, server_message_decoder
from protocol.messages import (
    PROTOCOL_VERSION,
    Hello,
    MatchEnd,
    MatchStart,
    Move,
    Resign,
    Seek,
    Turn,
)

GAME = "gomoku"
OPTIONS = {"width": 26, "height": 26, "k": 6}  # long random games
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    tcp_port: int
    web_url: str

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


@contextlib.contextmanager
def arena_server(tmp: Path, settings: dict[str, str] | None = None) -> Iterator[Server]:
    """`arena serve --web` in a child process; `settings`: more ARENA_* variables."""
    log = tmp / "serve.log"
    env = {**os.environ, "ARENA_LOG_FORMAT": "json", "PYTHONUNBUFFERED": "1", **(settings or {})}
    argv = [sys.executable, "-m", "arena_cli.main", "serve", "--port", "0"]
    argv += ["--db", str(tmp / "bench.sqlite"), "--move-time", "30", "--web", "127.0.0.1:0"]
    with open(log, "wb") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        port, url = None, None
        deadline = time.monotonic() + 30
        while not (port and url):
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"arena serve did not start:\n{log.read_text()}")
            for line in log.read_text(errors="replace").splitlines():
                with contextlib.suppress(ValueError):
                    entry = json.loads(line)
                    if entry.get("event") == "listening":
                        port = int(entry["port"])
                    if entry.get("event") == "web_listening":
                        url = str(entry["url"])
            time.sleep(0.05)
        yield Server(process, port, url)
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()


@dataclass
class Run:
    spectators: int
    plies: int
    pace: float  # moves per second the players aim for; 0 = as fast as they can
    sent: dict[int, float] = field(default_factory=dict)  # ply after the move -> send time
    latencies: list[float] = field(default_factory=list)
    dropped: int = 0
    start: float = 0.0  # trio clock when the players may start
    moves: int = 0
    seconds: float = 0.0
    server_cpu: float = 0.0


async def player(
    server: Server,
    name: str,
    run: Run,
    ready: trio.Event,
    started: Any,
    options: dict[str, Any] = OPTIONS,
) -> None:
    rng = random.Random(name)
    stream = await trio.open_tcp_stream("127.0.0.1", server.tcp_port)
    reader = FrameReader(stream, 1 << 20)
    decoder = server_message_decoder()
    await stream.send_all(encode_message(Hello(PROTOCOL_VERSION, name)))
    await stream.send_all(encode_message(Seek(GAME, options, 30.0)))
    while True:
        message = decoder.decode(await reader.read_frame())
        if isinstance(message, MatchStart):
            started.send_nowait(message.match)
        elif isinstance(message, Turn):
            await ready.wait()
            if message.ply >= run.plies:
                await stream.send_all(encode_message(Resign(message.match)))
                continue
            if run.pace:
                await trio.sleep_until(run.start + message.ply / run.pace)
            run.sent[message.ply + 1] = time.perf_counter()
            move = rng.choice(message.legal_moves)
            await stream.send_all(encode_message(Move(message.match, message.ply, move)))
        elif isinstance(message, MatchEnd):
            await stream.aclose()
            return


async def spectator(server: Server, match: str, run: Run, json_framing: bool, ready: Any) -> None:
    url = server.web_url.replace("http://", "ws://") + "/ws"
    protocol = "arena.json" if json_framing else "arena.msgpack"

    def decode(data: str | bytes) -> Any:
        return json.loads(data) if isinstance(data, str) else msgspec.msgpack.decode(data)

    async def send(message: dict[str, Any]) -> None:
        data: str | bytes = json.dumps(message) if json_framing else msgspec.msgpack.encode(message)
        await ws.send_message(data)

    async with open_websocket_url(url, subprotocols=[protocol]) as ws:
        await send({"type": "hello", "version": 1, "name": "watcher", "role": "spectator"})
        await send({"type": "spectate", "match": match})
        while True:
            message = decode(await ws.get_message())
            kind = message["type"]
            if kind == "match_start":
                ready.send_nowait(None)
            elif kind == "update":
                run.latencies.append(time.perf_counter() - run.sent[message["ply"]])
            elif kind == "ping":
                await send({"type": "pong", "id": message["id"]})
            elif kind == "match_end":
                return
            elif kind == "error":
                run.dropped += 1
                return


async def measure(
    server: Server, spectators: int, plies: int, json_framing: bool, pace: float = 0.0
) -> Run:
    run = Run(spectators, plies, pace)
    ready = trio.Event()
    send_start, receive_start = trio.open_memory_channel[str](2)
    send_ready, receive_ready = trio.open_memory_channel[None](spectators or 1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(player, server, "alice", run, ready, send_start)
        nursery.start_soon(player, server, "bob", run, ready, send_start.clone())
        match = await receive_start.receive()
        for _ in range(spectators):
            nursery.start_soon(spectator, server, match, run, json_framing, send_ready)
            await trio.sleep(0.002)  # do not open 200 connections in one burst
        for _ in range(spectators):
            await receive_ready.receive()
        cpu = server.cpu_seconds()
        start = time.perf_counter()
        run.start = trio.current_time()
        ready.set()
    run.seconds = time.perf_counter() - start
    run.server_cpu = server.cpu_seconds() - cpu
    run.moves = len(run.sent)
    return run


def percentile(values: list[float], q: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if values else 0.0


def report(run: Run) -> dict[str, Any]:
    return {
        "spectators": run.spectators,
        "pace": run.pace or "max",
        "moves": run.moves,
        "moves_per_s": round(run.moves / run.seconds, 1),
        "server_cpu_per_move_ms": round(run.server_cpu / max(run.moves, 1) * 1000, 3),
        "latency_p50_ms": round(percentile(run.latencies, 50) * 1000, 2),
        "latency_p99_ms": round(percentile(run.latencies, 99) * 1000, 2),
        "updates_received": len(run.latencies),
        "dropped_spectators": run.dropped,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--spectators", type=int, default=200)
    parser.add_argument("--plies", type=int, default=300, help="moves per match (then a resign)")
    parser.add_argument("--json", action="store_true", help="JSON framing (default msgpack)")
    parser.add_argument(
        "--pace",
        type=float,
        default=20.0,
        help="moves/s of the paced run (latency without backlog)",
    )
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory(prefix="arena-bench-web-") as tmp,
        arena_server(Path(tmp)) as server,
    ):
        baseline = trio.run(measure, server, 0, args.plies, args.json)
        loaded = trio.run(measure, server, args.spectators, args.plies, args.json)
        paced = trio.run(measure, server, args.spectators, args.plies, args.json, args.pace)
    framing = "JSON" if args.json else "msgpack"
    print(
        f"web broadcast: one {GAME} {OPTIONS} match, {framing} framing, server in its own process"
    )
    for run in (baseline, loaded, paced):
        print(json.dumps(report(run)))
    base, load, calm = report(baseline), report(loaded), report(paced)
    print(
        f"{load['spectators']} spectators, players as fast as they can: the server plays"
        f" {load['moves_per_s']} moves/s (without spectators {base['moves_per_s']});"
        f" broadcast latency p50 {load['latency_p50_ms']} ms, p99 {load['latency_p99_ms']} ms"
        f" (queueing included); {load['dropped_spectators']} spectators dropped"
    )
    print(
        f"{calm['spectators']} spectators at {args.pace:g} moves/s: broadcast latency"
        f" p50 {calm['latency_p50_ms']} ms, p99 {calm['latency_p99_ms']} ms;"
        f" server CPU {calm['server_cpu_per_move_ms']} ms per move"
    )


if __name__ == "__main__":
    main()
