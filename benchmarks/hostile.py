"""The server under attack: do normal players stay responsive?

Normal matches (scripted random players in a second process, as in
benchmarks/server.py) are measured twice on the same server settings:
quiet, then while an attacker (a third process) holds 20,000 pools and
20,000 rooms and floods pings from several connections as fast as it can
(its over-rate messages are refused with ``rate_limited``). Printed: moves/s
and the server-added move latency p50/p99 in both runs (target: p99 under
attack within 2x of quiet), the resident memory per idle handshaken
connection, and (``--connections N``, a slow run) how many idle connections
the server holds with the file limit raised (target: 10,000).

    python -m benchmarks.hostile [--seconds 5] [--matches 100] [--connections 10000]

The server keeps no records here (benchmarks/server.py measures durable
recording): this one is about the network layer under abuse.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

import structlog
import trio

from benchmarks.server import percentile, spawn_clients
from protocol.codec import encode_message
from protocol.messages import PROTOCOL_VERSION, Hello
from protocol.transport import open_stream
from server.app import ArenaServer
from server.config import MatchPolicy, ServerConfig
from server.match import Stats

TARGET_P99_RATIO = 2.0
TARGET_CONNECTIONS = 10_000
TARGET_MOVES_PER_S = 5_000  # 100 concurrent matches, under attack
POOLS = ROOMS = 20_000
HOARDERS = 100  # attacker connections holding the pools and rooms (within the message burst)
ATTACKER_ADDRESS = "127.0.0.2"  # the attacker's own address (players use 127.0.0.1)
FLOODERS = 4


def rss_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def raise_file_limit(wanted: int) -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = min(max(soft, wanted), hard)
    resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return target


# --- the attacker process ------------------------------------------------------


async def attack(port: int, seconds: float) -> None:
    async def connect() -> trio.abc.Stream:
        return await trio.open_tcp_stream("127.0.0.1", port, local_address=ATTACKER_ADDRESS)

    async def hoarder(index: int) -> None:
        stream = await connect()
        await stream.send_all(encode_message(Hello(version=PROTOCOL_VERSION, name=f"hoard{index}")))
        frames = []
        for i in range(POOLS // HOARDERS):
            frames.append(
                encode_message_dict({"type": "direct", "pool": f"x{index}-{i}", "players": []})
            )
            frames.append(
                encode_message_dict({"type": "join", "room": f"r{index}-{i}", "game": "connect4"})
            )
        await stream.send_all(b"".join(frames))  # one burst each: within the message budget
        await drain(stream, seconds + 5)

    async def flooder(index: int) -> None:
        stream = await connect()
        await stream.send_all(encode_message(Hello(version=PROTOCOL_VERSION, name=f"flood{index}")))
        ping = encode_message_dict({"type": "ping", "id": 1}) * 200
        async with trio.open_nursery() as nursery:
            nursery.start_soon(drain, stream, seconds + 5)
            with trio.move_on_after(seconds + 5):
                try:
                    while True:
                        await stream.send_all(ping)
                except trio.BrokenResourceError:
                    pass  # disconnected for flooding: come back at once
            nursery.cancel_scope.cancel()

    async def flood_forever(index: int) -> None:
        with trio.move_on_after(seconds + 5):
            while True:
                try:
                    await flooder(index)
                except OSError:
                    await trio.sleep(0.01)

    async with trio.open_nursery() as nursery:
        for index in range(HOARDERS):
            nursery.start_soon(hoarder, index)
        for index in range(FLOODERS):
            nursery.start_soon(flood_forever, index)


def encode_message_dict(message: dict[str, object]) -> bytes:
    import msgspec

    from protocol.codec import encode_frame

    return encode_frame(msgspec.msgpack.encode(message))


async def drain(stream: trio.abc.Stream, seconds: float) -> None:
    with trio.move_on_after(seconds):
        try:
            while await stream.receive_some(1 << 16):
                pass
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            pass


async def idle_clients(port: int, count: int, hold: float) -> None:
    streams = []
    for index in range(count):
        stream = await open_stream("127.0.0.1", port)
        await stream.send_all(encode_message(Hello(version=PROTOCOL_VERSION, name=f"idle{index}")))
        streams.append(stream)
    print("ready", flush=True)
    await trio.sleep(hold)


# --- measurements -------------------------------------------------------------


def config(**extra: object) -> ServerConfig:
    return ServerConfig(
        port=0,
        db=None,
        policy=MatchPolicy(move_time=30.0),
        max_pools=POOLS + 100,
        max_rooms=ROOMS + 100,
        max_pools_per_connection=POOLS,
        max_rooms_per_connection=ROOMS,
        max_connections=50_000,
        max_connections_per_address=50_000,
        **extra,  # type: ignore[arg-type]
    )


async def measure(matches: int, seconds: float, hostile: bool) -> tuple[float, float, float]:
    """moves/s, p50 and p99 server-added latency (ms), with or without the attacker."""
    stats = Stats(keep_latencies=True)
    server = ArenaServer(config(), stats=stats)
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.serve)
        attacker = None
        if hostile:
            attacker = await trio.lowlevel.open_process(
                [
                    sys.executable,
                    "-m",
                    "benchmarks.hostile",
                    "--attacker",
                    str(port),
                    str(seconds + 3),
                ]
            )
            # the attacker builds its pools and rooms (a count to poll, not an event)
            while server.lobby is None or len(server.lobby.desk.pools) < POOLS * 0.99:  # noqa: ASYNC110
                await trio.sleep(0.2)
        clients = spawn_clients(port, matches, seconds + 1.0, "connect4")
        await trio.sleep(1.0)
        stats.moves, stats.latencies = 0, []
        start = trio.current_time()
        await trio.sleep(seconds)
        elapsed = trio.current_time() - start
        moves, latencies = stats.moves, list(stats.latencies)
        await trio.to_thread.run_sync(clients.wait)
        if attacker is not None:
            attacker.kill()
            await attacker.wait()
        nursery.cancel_scope.cancel()
    return moves / elapsed, percentile(latencies, 50) * 1e3, percentile(latencies, 99) * 1e3


async def memory_per_connection(count: int) -> tuple[float, int]:
    """Resident bytes per idle handshaken connection, and the connections held."""
    server = ArenaServer(config())
    async with trio.open_nursery() as nursery:
        port = await nursery.start(server.serve)
        await trio.sleep(0.5)
        before = rss_bytes()
        idle = await trio.lowlevel.open_process(
            [sys.executable, "-m", "benchmarks.hostile", "--idle", str(port), str(count), "60"],
            stdout=subprocess.PIPE,
        )
        deadline = time.monotonic() + 120
        while server.connections < count and time.monotonic() < deadline:
            if idle.poll() is not None:
                break
            await trio.sleep(0.2)
        await trio.sleep(0.5)
        held = server.connections
        after = rss_bytes()
        idle.kill()
        await idle.wait()
        nursery.cancel_scope.cancel()
    return (after - before) / max(held, 1), held


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--attacker":
        raise_file_limit(4096)
        trio.run(attack, int(sys.argv[2]), float(sys.argv[3]))
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--idle":
        raise_file_limit(int(sys.argv[3]) + 100)
        trio.run(idle_clients, int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--matches", type=int, default=100)
    parser.add_argument(
        "--connections", type=int, default=2_000, help="idle connections to hold (slow: 10000)"
    )
    args = parser.parse_args()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(40))
    raise_file_limit(args.connections + 1000)
    print(
        f"hostile benchmark: {args.matches} connect4 matches; attacker: {POOLS:,} pools,"
        f" {ROOMS:,} rooms, {FLOODERS} ping flooders"
    )
    quiet = trio.run(measure, args.matches, args.seconds, False)
    attacked = trio.run(measure, args.matches, args.seconds, True)
    print(f"{'':>16} {'moves/s':>9} {'p50 ms':>8} {'p99 ms':>8}")
    for label, (rate, p50, p99) in (("quiet", quiet), ("under attack", attacked)):
        print(f"{label:>16} {rate:>9,.0f} {p50:>8.3f} {p99:>8.3f}")
    per_connection, held = trio.run(memory_per_connection, args.connections)
    print(
        f"idle handshaken connections held: {held:,}; resident memory each: {per_connection / 1024:.1f} KiB"
    )
    ratio = attacked[2] / max(quiet[2], 1e-9)
    print(
        f"targets: p99 under attack <= {TARGET_P99_RATIO:g}x quiet: {ratio:.2f}x"
        f" {'PASS' if ratio <= TARGET_P99_RATIO else 'MISS'};"
        f" >= {TARGET_MOVES_PER_S:,} moves/s under attack:"
        f" {'PASS' if attacked[0] >= TARGET_MOVES_PER_S else 'MISS'};"
        f" {TARGET_CONNECTIONS:,} idle connections:"
        f" {'PASS' if held >= TARGET_CONNECTIONS else f'not measured (--connections {TARGET_CONNECTIONS})' if args.connections < TARGET_CONNECTIONS else 'MISS'}"
    )


if __name__ == "__main__":
    main()
