"""A ladder soak: hundreds of resident bots on two nodes of one PostgreSQL, for minutes.

It starts a throwaway PostgreSQL (`store.postgres.cluster`, or ``--db URL``)
and two `arena serve` processes on it, each running the ladder ``bench``
(``--game``, default tic-tac-toe: cheap games, so the servers' pairing and
recording are what is measured) with its web API. ``--bots`` bots (default
200) live in one client process, half on each node: each seeks the ladder,
plays random legal moves, follows ``redirect`` to the other node when it is
paired there (its home connection stays open, as docs/PROTOCOL.md allows),
and seeks again at home after each game, for ``--minutes`` (default 10).

It reports games a minute, each server's CPU per game (its process and its
children, from /proc), the pairing delay the bots measured (a ``seek`` sent
until its ``match_start``: median and p99), the share of games paired across
nodes, and two checks:

* no result lost or duplicated: every game a bot saw end with
  ``recorded: true`` is in the records, finished, exactly once, with the
  scores the bot was told, and no game was told to two bots differently;
* the ratings each node publishes (``/api/ladders/bench``, after its next
  refit) equal the fit recomputed here from the records
  (`server.ladder_ratings.fit_ladder`).

Then the same bots on one node (``--baseline-minutes``, default a fifth of
the run; 0 skips it) give the baseline figures of the same run. A check that
fails makes the exit status 1.

    python -m benchmarks.ladder [--bots 200] [--minutes 10] [--baseline-minutes M]
                                [--game tictactoe] [--db URL]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from benchmarks.nodes import cpu_seconds
from benchmarks.postgres import Databases
from protocol.codec import FrameReader, encode_message, server_message_decoder
from protocol.messages import (
    PROTOCOL_VERSION,
    Error,
    Hello,
    MatchEnd,
    MatchStart,
    Move,
    Ping,
    Pong,
    Redirect,
    Rejoin,
    Seek,
    Turn,
)

LADDER = "bench"
#: seconds between two fits of the ratings on the nodes during the run
RATING_INTERVAL = 2.0
#: seconds the nodes may take to publish the final ratings after the bots stop
SETTLE = 60.0


# --- the bots (the client process) ---------------------------------------------------


@dataclass
class BotReport:
    """What the bots saw: each game's end, the pairing delays, redirects and errors."""

    #: [match, bot, recorded, scores, port, termination] for each end a bot saw
    ends: list[list[Any]] = field(default_factory=list)
    delays: list[float] = field(default_factory=list)
    redirects: int = 0
    errors: list[str] = field(default_factory=list)
    #: when the bots began to stop (seconds since the epoch): from then on, the bots left
    #: may be alone, and two bots alone play each other again
    stopping: float = 0.0


async def _connect(port: int, name: str) -> tuple[trio.SocketStream, FrameReader]:
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    await stream.send_all(encode_message(Hello(version=PROTOCOL_VERSION, name=name)))
    return stream, FrameReader(stream, 1 << 20)


async def ladder_bot(
    name: str, home: int, game: str, stop: float, report: BotReport, seed: int
) -> None:
    """One bot until trio time `stop` (or its home node is gone): seek, play at random,
    follow redirects, seek again at home."""
    rng = random.Random(seed)
    decoder = server_message_decoder()
    seek = encode_message(Seek(game=game, ladder=LADDER))
    try:
        stream, reader = await _connect(home, name)
    except OSError as exc:
        report.errors.append(f"{name}: cannot connect: {exc}")
        return
    home_stream, home_reader = stream, reader
    port = home
    sought: float | None = trio.current_time()
    await stream.send_all(seek)
    try:
        while True:
            try:
                # a bot still seeking when the run ends stops: the others may all be gone
                with trio.move_on_at(stop if sought is not None else math.inf) as waiting:
                    frame = await reader.read_frame()
                if waiting.cancelled_caught:
                    return
                message = decoder.decode(frame)
            except Exception as exc:  # a lost connection, or bytes that are no message
                if port == home:
                    report.errors.append(f"{name}: home connection lost: {exc!r}"[:200])
                    return
                # the node it was sent to is gone: back home, seek again
                await stream.aclose()
                stream, reader, port = home_stream, home_reader, home
                if trio.current_time() >= stop:
                    return
                sought = trio.current_time()
                await stream.send_all(seek)
                continue
            if isinstance(message, Turn):
                move = message.legal_moves[int(rng.random() * len(message.legal_moves))]
                await stream.send_all(
                    encode_message(Move(match=message.match, ply=message.ply, move=move))
                )
            elif isinstance(message, MatchStart):
                if sought is not None:
                    report.delays.append(trio.current_time() - sought)
                    sought = None
            elif isinstance(message, Redirect):
                report.redirects += 1
                there: trio.SocketStream | None = None
                try:
                    there, there_reader = await _connect(message.port, name)
                    await there.send_all(encode_message(Rejoin(token=message.token)))
                except (OSError, trio.BrokenResourceError):  # that node is gone: seek again
                    if there is not None:
                        await there.aclose()
                    sought = trio.current_time()
                    await stream.send_all(seek)
                    continue
                home_reader = reader
                stream, reader, port = there, there_reader, message.port
            elif isinstance(message, MatchEnd):
                report.ends.append(
                    [message.match, name, message.recorded, message.scores, port,
                     message.termination]
                )  # fmt: skip
                if port != home:
                    await stream.aclose()
                    stream, reader, port = home_stream, home_reader, home
                if trio.current_time() >= stop:
                    return
                sought = trio.current_time()
                await stream.send_all(seek)
            elif isinstance(message, Ping):
                await stream.send_all(encode_message(Pong(id=message.id)))
            elif isinstance(message, Error):
                report.errors.append(f"{name}: {message.code}: {message.message}"[:200])
                if message.fatal:
                    if port == home:
                        return
                    await stream.aclose()
                    stream, reader, port = home_stream, home_reader, home
                    sought = trio.current_time()
                    await stream.send_all(seek)
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError) as exc:
        report.errors.append(f"{name}: {exc!r}"[:200])
    finally:
        await home_stream.aclose()
        await stream.aclose()


async def run_bots(ports: list[int], bots: int, game: str, seconds: float) -> BotReport:
    """`bots` bots, bot i at home on node i % len(ports), for `seconds`."""
    report = BotReport(stopping=time.time() + seconds)
    stop = trio.current_time() + seconds
    async with trio.open_nursery() as nursery:
        for index in range(bots):
            nursery.start_soon(
                ladder_bot, f"bot{index:03d}", ports[index % len(ports)], game, stop, report, index
            )
    return report


def client_main(ports: str, bots: str, game: str, seconds: str) -> None:
    report = trio.run(run_bots, [int(p) for p in ports.split(",")], int(bots), game, float(seconds))
    print(json.dumps(report.__dict__))


# --- the servers ---------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Node:
    process: subprocess.Popen[bytes]
    port: int
    web: int
    log: Path


def start_node(url: str, log: Path, game: str, env: dict[str, str] | None = None) -> Node:
    """An `arena serve` on the database running the ladder, with its web API."""
    web = free_port()
    environment = {
        **os.environ,
        "ARENA_LOG_FORMAT": "json",
        "ARENA_LOG_LEVEL": "info",
        "ARENA_LADDER_RATING_INTERVAL": str(RATING_INTERVAL),
        **(env or {}),
    }
    out = open(log, "wb")  # noqa: SIM115 - the child owns it
    process = subprocess.Popen(
        [sys.executable, "-m", "arena_cli.main", "serve", "--port", "0", "--db", url,
         "--ladder", f"{LADDER}={game}", "--ladder-tc", f"{LADDER}=30s",
         "--trusted-address", "127.0.0.1", "--web", f"127.0.0.1:{web}"],
        stdout=out, stderr=subprocess.STDOUT, env=environment, cwd=log.parent,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for line in log.read_text(errors="replace").splitlines():
            if '"listening"' in line and '"port"' in line:
                return Node(process, int(json.loads(line)["port"]), web, log)
        if process.poll() is not None:
            raise SystemExit(f"benchmarks.ladder: arena serve exited: {log.read_text()[-500:]}")
        time.sleep(0.05)
    raise SystemExit("benchmarks.ladder: arena serve did not start")


def published(node: Node) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{node.web}/api/ladders/{LADDER}") as answer:
        document: dict[str, Any] = json.loads(answer.read())
    return document


# --- checks ----------------------------------------------------------------------------


def check_results(report: dict[str, Any], url: str) -> dict[str, Any]:
    """Every recorded end the bots saw is in the records once, as they were told (finished
    with those scores, or aborted when they were told so: a game whose other bot's node
    died before it took its seat); no pair repeated (before the bots began to stop) and
    colours stay balanced."""
    from store.open import open_database

    store = open_database(url, check=True)
    try:
        records = store.ladder_matches(LADDER)
        running = [r.id for r in store.list_matches(10_000, status="running")]
    finally:
        store.close()
    count = Counter(record.id for record in records)
    by_id = {record.id: record for record in records}
    told: dict[str, tuple[Any, Any]] = {}
    lost, duplicated, disagree = [], [r for r, n in count.items() if n > 1], []
    for match, _bot, recorded, scores, _port, termination in report["ends"]:
        if match in told and told[match] != (scores, termination):
            disagree.append(match)
        told[match] = (scores, termination)
        record = by_id.get(match)
        status = "aborted" if termination == "aborted" else "finished"
        if recorded and (record is None or record.status != status or record.scores != scores):
            lost.append(match)
    # the pairing rules, over the whole arena: no bot meets its last opponent again at
    # once (with this many bots there is always another), colours balanced in each pair
    last: dict[str, Any] = {}
    repeats: list[str] = []
    firsts: Counter[tuple[str, ...]] = Counter()
    for record in sorted(records, key=lambda record: (record.started_at, record.id)):
        a, b = record.players
        for one, other in ((a, b), (b, a)):
            before = last.get(one)
            stopping = report.get("stopping") or math.inf
            if before is not None and other in before.players and record.started_at < stopping:
                repeats.append(f"{one}: {before.id} {before.status} then {record.id}")
                break
        last[a] = last[b] = record
        firsts[(a, b)] += 1
    unbalanced = [pair for pair, n in firsts.items() if abs(n - firsts[pair[::-1]]) > 1]
    return {
        "repeats": repeats,
        "unbalanced": unbalanced,
        "records": records,
        "finished": sum(record.status == "finished" for record in records),
        "aborted": sum(record.status == "aborted" for record in records),
        "running": running,
        "seen": len(told),
        "lost": sorted(set(lost)),
        "duplicated": duplicated + disagree,
    }


def check_ratings(nodes: list[Node], records: list[Any], game: str) -> list[str]:
    """The nodes' published lists equal the fit of the records (once they have refitted)."""
    from games import make_game
    from server.ladder_ratings import LadderResult, fit_ladder

    results = [LadderResult.of(record) for record in records]
    rules = make_game(game)
    fit, rated, _ = fit_ladder(results, rules.to_move(rules.initial_state()), {})
    expected = {bot: round(rating, 1) for bot, rating in zip(fit.players, fit.ratings, strict=True)}
    problems = []
    for index, node in enumerate(nodes):
        deadline = time.monotonic() + SETTLE
        while True:
            document = published(node)
            got = {row["bot"]: row["rating"] for row in document["ratings"]}
            games = sum(row["games"] for row in document["ratings"]) // 2
            if games == rated and got == expected:
                break
            if time.monotonic() > deadline:
                off = {
                    bot: (got.get(bot), want)
                    for bot, want in expected.items()
                    if got.get(bot) != want
                }
                problems.append(
                    f"node {index}: {games} rated games published, {rated} recorded;"
                    f" {len(off)} ratings differ (e.g. {dict(list(off.items())[:3])})"
                )
                break
            time.sleep(0.5)
    return problems


# --- one run --------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else math.nan


def measure(
    url: str, nodes: int, bots: int, seconds: float, game: str, work: Path
) -> dict[str, Any]:
    """Bots on `nodes` nodes for `seconds`; the figures and the checks."""
    servers = [start_node(url, work / f"node{i}-{nodes}.log", game) for i in range(nodes)]
    try:
        ports = ",".join(str(node.port) for node in servers)
        before = [cpu_seconds(node.process.pid) for node in servers]
        started = time.monotonic()
        clients = subprocess.run(
            [sys.executable, "-m", "benchmarks.ladder", "--client-process", ports, str(bots),
             game, str(seconds)],
            stdout=subprocess.PIPE, check=True, timeout=seconds + 120,
        )  # fmt: skip
        elapsed = time.monotonic() - started
        after = [cpu_seconds(node.process.pid) for node in servers]
        report = json.loads(clients.stdout)
        checks = check_results(report, url)
        problems = check_ratings(servers, checks.pop("records"), game)
    finally:
        for node in servers:
            node.process.terminate()
            node.process.wait(timeout=60)
    games = checks["seen"]
    per_node: Counter[int] = Counter(end[4] for end in report["ends"])
    return {
        "nodes": nodes,
        "games": games,
        "games_per_min": games / elapsed * 60,
        "cpu_ms": [
            (b - a) / max(per_node[node.port] / 2, 1) * 1e3
            for a, b, node in zip(before, after, servers, strict=True)
        ],
        "delay_median_ms": statistics.median(report["delays"]) * 1e3 if report["delays"] else 0,
        "delay_p99_ms": percentile(report["delays"], 0.99) * 1e3,
        "across": report["redirects"] / max(games, 1),
        "finished": checks["finished"],
        "aborted": checks["aborted"],
        "lost": checks["lost"],
        "duplicated": checks["duplicated"],
        "running_left": len(checks["running"]),
        "repeats": checks["repeats"],
        "unbalanced": checks["unbalanced"],
        "ratings": problems,
        "errors": report["errors"][:5],
        "seconds": elapsed,
    }


def line(row: dict[str, Any]) -> str:
    cpu = "/".join(f"{c:.1f}" for c in row["cpu_ms"])
    return (
        f"{row['nodes']:>5} {row['games']:>7} {row['games_per_min']:>9,.0f} {cpu:>15}"
        f" {row['delay_median_ms']:>10.1f} {row['delay_p99_ms']:>8.1f} {row['across']:>7.0%}"
        f"   lost {len(row['lost'])}, duplicated {len(row['duplicated'])},"
        f" ratings {'equal' if not row['ratings'] else 'DIFFER'}, pairs repeated"
        f" {len(row['repeats'])}, colours unbalanced {len(row['unbalanced'])}"
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--client-process":
        client_main(*argv[1:5])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, default=200, help="resident bots (default 200)")
    parser.add_argument("--minutes", type=float, default=10.0, help="the run (default 10)")
    parser.add_argument(
        "--baseline-minutes",
        type=float,
        default=None,
        help="the same bots on one node, after (default: a fifth of --minutes; 0: none)",
    )
    parser.add_argument("--game", default="tictactoe", help="the ladder's game (default tictactoe)")
    parser.add_argument("--db", default=None, help="a PostgreSQL URL (default: a throwaway one)")
    args = parser.parse_args(argv)
    if args.bots < 2 or args.minutes <= 0:
        parser.error("--bots must be at least 2 and --minutes positive")
    baseline = args.minutes / 5 if args.baseline_minutes is None else args.baseline_minutes
    databases = Databases(parser, "benchmarks.ladder", args.db)
    work = Path(tempfile.mkdtemp(prefix="arena-ladder-"))
    print(
        f"ladder soak: {args.bots} bots ({args.game}, random moves) on two nodes of one"
        f" PostgreSQL for {args.minutes:g} min; baseline: one node for {baseline:g} min;"
        f" {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; logs in {work}"
    )
    print(
        f"{'nodes':>5} {'games':>7} {'games/min':>9} {'CPU ms/game':>15} {'delay p50':>10}"
        f" {'p99 ms':>8} {'across':>7}   checks"
    )
    failed = False
    try:
        plan = [(2, args.minutes)] + ([(1, baseline)] if baseline > 0 else [])
        for nodes, minutes in plan:
            url = databases.new()
            row = measure(url, nodes, args.bots, minutes * 60, args.game, work)
            print(line(row), flush=True)
            keys = ("lost", "duplicated", "ratings", "running_left", "repeats", "unbalanced")
            bad = any(row[key] for key in keys)
            if bad:
                failed = True
                print(f"      FAILED: {json.dumps({key: row[key] for key in keys})}")
            if row["errors"]:
                print(f"      bot errors (first {len(row['errors'])}): {row['errors']}")
    finally:
        databases.stop()
    print(f"load after: {os.getloadavg()[0]:.1f}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
