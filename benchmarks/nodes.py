"""Several servers on one PostgreSQL: what a node spends per move, alone and beside another.

Each round starts a throwaway PostgreSQL cluster's database (`store.postgres.cluster`,
or ``--db URL``), then measures, at the same load (``--matches`` concurrent
matches of random movers, every move durable):

- **one node**: one `arena serve` process, every player connected to it;
- **two nodes**: two `arena serve` processes on the same database, half the
  players living on each. A seek pairs on its own node when a partner waits
  there, else, after the node's seek hold (``--seek-hold``, the server's
  default 0.2 s), through the database with a seek of either node: then one
  player follows ``redirect`` to the other node, and goes home after the
  match to seek again there (on the connection it kept open, as
  docs/PROTOCOL.md allows). Players that all seek alike nearly always find a
  partner at home, so a share of the pairs (``--cross``, default 0.2) seek
  with terms of their own (a move time that only their partner on the other
  node shares): those matches are paired across nodes every time. The table
  shows the share of the measured matches that were paired across nodes.

It prints moves per second, each node's CPU per move (the server process and
its records writer, read from /proc) and the p99 of a move's round trip (a
move sent until the player's next turn; the opponent answers at once). The
target: each node of two spends at most 1.25x the CPU per move of a lone node.
This machine has two cores, so CPU per move, not moves/s, is the figure that
says whether throughput can grow with cores.

    python -m benchmarks.nodes [--matches 100] [--seconds 5] [--rounds 3] [--game connect4]
                               [--cross 0.2] [--seek-hold SECONDS]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

from benchmarks.postgres import Databases
from protocol.codec import FrameReader, encode_message, server_message_decoder
from protocol.messages import (
    PROTOCOL_VERSION,
    Hello,
    MatchEnd,
    Move,
    Ping,
    Pong,
    Redirect,
    Rejoin,
    Seek,
    Turn,
)

TARGET_CPU_RATIO = 1.25
WARM_UP = 1.5


# --- the client process ---------------------------------------------------------


async def run_clients(
    ports: list[int], matches: int, seconds: float, game: str, cross: float = 0.0
) -> None:
    """2 x `matches` random movers; player i lives on node i % len(ports). A share `cross`
    of them seek in pairs, each pair (one player per node) with a move time of its own,
    so that it can only meet across nodes. Prints, as JSON, the moves each node relayed in
    the measured window and the round trips (ms)."""
    crossing = 2 * round(cross * matches) if len(ports) > 1 else 0
    start = trio.current_time() + WARM_UP
    stop = start + seconds
    moves: dict[int, int] = dict.fromkeys(ports, 0)
    trips: list[float] = []
    redirects = ends = 0

    async def connect(port: int, name: str) -> tuple[trio.SocketStream, FrameReader]:
        stream = await trio.open_tcp_stream("127.0.0.1", port)
        await stream.send_all(encode_message(Hello(version=PROTOCOL_VERSION, name=name)))
        return stream, FrameReader(stream, 1 << 20)

    async def player(index: int) -> None:
        nonlocal redirects, ends
        rng = random.Random(index)
        home = ports[index % len(ports)]
        name = f"p{index}"
        decoder = server_message_decoder()
        own = (index // 2 + 1) / 1024 if index < crossing else 0.0  # a pair's own terms
        seek = encode_message(Seek(game=game, move_time=30.0 + own))
        port = home
        stream, reader = await connect(port, name)
        home_stream, home_reader = stream, reader
        await stream.send_all(seek)
        sent_at = None
        with trio.move_on_at(stop):
            while True:
                message = decoder.decode(await reader.read_frame())
                if isinstance(message, Turn):
                    now = trio.current_time()
                    if sent_at is not None and now >= start:
                        trips.append(now - sent_at)
                    move = message.legal_moves[int(rng.random() * len(message.legal_moves))]
                    sent_at = trio.current_time()
                    await stream.send_all(
                        encode_message(Move(match=message.match, ply=message.ply, move=move))
                    )
                    if sent_at >= start:
                        moves[port] += 1
                elif isinstance(message, Redirect):  # the home connection stays open
                    if trio.current_time() >= start:
                        redirects += 1
                    home_stream, home_reader = stream, reader
                    port = message.port
                    stream, reader = await connect(port, name)
                    await stream.send_all(encode_message(Rejoin(token=message.token)))
                elif isinstance(message, MatchEnd):
                    sent_at = None
                    if trio.current_time() >= start:
                        ends += 1
                    if port != home:  # back home, to meet someone across nodes again
                        await stream.aclose()
                        port, stream, reader = home, home_stream, home_reader
                    await stream.send_all(seek)
                elif isinstance(message, Ping):
                    await stream.send_all(encode_message(Pong(id=message.id)))
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        for index in range(2 * matches):
            nursery.start_soon(player, index)
    print(json.dumps({"moves": moves, "trips": trips, "redirects": redirects, "ends": ends}))


# --- the servers ----------------------------------------------------------------


def start_node(url: str, log: Path, hold: float | None) -> tuple[subprocess.Popen[bytes], int]:
    """An `arena serve` on the database; its pid and port (from its 'listening' line)."""
    env = {**os.environ, "ARENA_LOG_FORMAT": "json", "ARENA_LOG_LEVEL": "info"}
    if hold is not None:
        env["ARENA_SEEK_HOLD"] = str(hold)
    out = open(log, "wb")  # noqa: SIM115 - the child owns it
    process = subprocess.Popen(
        [sys.executable, "-m", "arena_cli.main", "serve", "--port", "0", "--db", url,
         "--move-time", "30"],
        stdout=out, stderr=subprocess.STDOUT, env=env, cwd=log.parent,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        for line in log.read_text(errors="replace").splitlines():
            if '"listening"' in line:
                return process, int(json.loads(line)["port"])
        if process.poll() is not None:
            raise SystemExit(f"benchmarks.nodes: arena serve exited: {log.read_text()[-500:]}")
        time.sleep(0.05)
    raise SystemExit("benchmarks.nodes: arena serve did not start")


def cpu_seconds(pid: int) -> float:
    """CPU time of a process and its children (the records writer), from /proc."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    pids = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        pids += [int(child) for child in (task / "children").read_text().split()]
    for one in pids:
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def measure(
    url: str,
    nodes: int,
    matches: int,
    seconds: float,
    game: str,
    work: Path,
    hold: float | None,
    cross: float,
) -> dict[str, float]:
    servers = [start_node(url, work / f"node{i}.log", hold) for i in range(nodes)]
    try:
        ports = ",".join(str(port) for _, port in servers)
        clients = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.nodes", "--client-process", ports, str(matches),
             str(seconds), game, str(cross)],
            stdout=subprocess.PIPE,
        )  # fmt: skip
        time.sleep(WARM_UP)
        before = [cpu_seconds(process.pid) for process, _ in servers]
        time.sleep(seconds)
        after = [cpu_seconds(process.pid) for process, _ in servers]
        out, _ = clients.communicate(timeout=120)
        report = json.loads(out)
    finally:
        for process, _ in servers:
            process.terminate()
            process.wait(timeout=30)
    moves = [int(report["moves"][str(port)]) for _, port in servers]
    cpus = [(b - a) / max(m, 1) for a, b, m in zip(before, after, moves, strict=True)]
    trips = sorted(report["trips"])
    p99 = trips[int(0.99 * (len(trips) - 1))] * 1e3 if trips else float("nan")
    return {
        "moves_per_s": sum(moves) / seconds,
        "cpu_us": max(cpus) * 1e6,
        "cpu_each": cpus,  # type: ignore[dict-item]
        "p99_ms": p99,
        "redirects": float(report["redirects"]),
        # each match ends for both players; a redirect is one match paired across nodes
        "across": float(report["redirects"]) / max(int(report["ends"]) / 2, 1),
    }


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--client-process":
        ports, matches, seconds, game, cross = sys.argv[2:7]
        trio.run(
            run_clients,
            [int(p) for p in ports.split(",")],
            int(matches),
            float(seconds),
            game,
            float(cross),
        )
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=100, help="concurrent matches (default 100)")
    parser.add_argument("--seconds", type=float, default=5.0, help="measured seconds per run")
    parser.add_argument("--rounds", type=int, default=3, help="one-node/two-node rounds (medians)")
    parser.add_argument("--game", default="connect4")
    parser.add_argument(
        "--cross",
        type=float,
        default=0.2,
        help="share of the matches whose two players can only meet across nodes (default 0.2)",
    )
    parser.add_argument(
        "--seek-hold",
        type=float,
        default=None,
        help="ARENA_SEEK_HOLD of the nodes (default: the server's, 0.2 s; 0: every seek"
        " through the database)",
    )
    parser.add_argument(
        "--db", default=None, help="a PostgreSQL URL (default: a throwaway cluster)"
    )
    args = parser.parse_args()
    databases = Databases(parser, "benchmarks.nodes", args.db)
    work = Path(tempfile.mkdtemp(prefix="arena-nodes-"))
    print(
        f"nodes benchmark: {args.game}, {args.matches} matches, {args.rounds} x {args.seconds:g}s"
        " per setting (medians), every move durable in PostgreSQL, clients in another process;"
        f" on two nodes {args.cross:.0%} of the pairs can only meet across nodes"
    )
    print(
        f"{'nodes':>6} {'moves/s':>9} {'CPU us/move (max node)':>24} {'p99 ms':>8}"
        f" {'redirects':>10} {'across':>7}"
    )
    try:
        rows: dict[int, list[dict[str, float]]] = {1: [], 2: []}
        for _ in range(args.rounds):
            for nodes in (1, 2):
                url = databases.new()
                rows[nodes].append(
                    measure(
                        url,
                        nodes,
                        args.matches,
                        args.seconds,
                        args.game,
                        work,
                        args.seek_hold,
                        args.cross,
                    )
                )
        medians = {}
        for nodes, runs in rows.items():
            median = {
                key: statistics.median(run[key] for run in runs)
                for key in ("moves_per_s", "cpu_us", "p99_ms", "redirects", "across")
            }
            medians[nodes] = median
            print(
                f"{nodes:>6} {median['moves_per_s']:>9,.0f} {median['cpu_us']:>24,.0f}"
                f" {median['p99_ms']:>8.2f} {median['redirects']:>10,.0f}"
                f" {median['across']:>7.0%}"
            )
        ratio = medians[2]["cpu_us"] / max(medians[1]["cpu_us"], 1e-9)
        verdict = "PASS" if ratio <= TARGET_CPU_RATIO else "MISS"
        print(
            f"each node of two spends {ratio:.2f}x the CPU per move of a lone node"
            f" (target <= {TARGET_CPU_RATIO}x): {verdict}"
        )
    finally:
        databases.stop()


if __name__ == "__main__":
    main()
