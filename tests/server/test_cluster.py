"""Several `arena serve` processes on one PostgreSQL: one arena (issue: past one machine).

Real processes, a real PostgreSQL, real signals: two nodes list each other's
matches; a node killed with kill -9 is declared dead when its lease expires,
and a survivor records its running matches as aborted, exactly once, while it
keeps playing; a restarted node takes its place. A stall of the database
itself, longer than the leases, declares no node dead.
"""

from __future__ import annotations

import json
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path

import trio

from player.results import MatchResult
from player.runtime import run_player
from protocol.messages import MatchEnd, Matches, MatchStart, Move, Ping, Seeking, Turn, Update
from store.open import open_database
from tests.postgres import PostgresServer, frozen
from tests.server.harness import RawClient
from tests.server.serverproc import Outcomes, ServerProcess, play_matches, start_server

LEASE = "2"  # seconds: ARENA_NODE_LEASE for the nodes of these tests


def node(url: str, tmp_path: Path, name: str) -> ServerProcess:
    return start_server(
        url, log=tmp_path / f"{name}.log", cwd=tmp_path, env={"ARENA_NODE_LEASE": LEASE}
    )


def events(log: Path, event: str) -> list[dict[str, object]]:
    found = []
    for line in log.read_text(errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if entry.get("event") == event:
            found.append(entry)
    return found


async def eventually(check: Callable[[], Awaitable[bool]], seconds: float) -> None:
    """Wait until `check()` holds (polling: the state is another process's)."""
    with trio.fail_after(seconds):
        while True:
            if await check():
                return
            await trio.sleep(0.2)


async def stalled_match(port: int, tag: str) -> tuple[str, list[RawClient]]:
    """Two players in a match where nobody moves yet (a long move time): it stays running."""
    clients = []
    for side in "xy":
        client = await RawClient.connect(port)
        await client.hello(f"{side}-{tag}")
        await client.send({"type": "seek", "game": "connect4", "move_time": 60.0})
        clients.append(client)
    starts = [await client.expect(MatchStart, skip=(Seeking,)) for client in clients]
    return starts[0].match, clients


async def listed(port: int) -> list[tuple[str, str | None]]:
    client = await RawClient.connect(port)
    await client.hello("lister", role="spectator")
    await client.send({"type": "list"})
    answer = await client.expect(Matches)
    await client.aclose()
    return [(info.match, info.node) for info in answer.matches]


def status_of(url: str, match_id: str) -> tuple[str, str | None]:
    database = open_database(url)
    try:
        record = database.get_match(match_id)
        return ("absent", None) if record is None else (record.status, record.reason)
    finally:
        database.close()


async def close_all(clients: list[RawClient], servers: tuple[ServerProcess, ...]) -> None:
    """A test's end: its clients' connections closed, its servers killed."""
    for client in clients:
        await client.aclose()
    for server in servers:
        if server.alive():
            server.process.kill()
            server.process.wait()


async def test_two_nodes_one_arena_and_a_killed_node_is_reaped_once(
    tmp_path: Path, postgres_url: str
) -> None:
    a, b = node(postgres_url, tmp_path, "a"), node(postgres_url, tmp_path, "b")
    try:
        running, a_clients = await stalled_match(a.port, "a")

        # within a second, node B lists node A's match, with A's node id
        async def b_lists_it() -> bool:
            return running in dict(await listed(b.port))

        await eventually(b_lists_it, 10)
        a_node = dict(await listed(b.port))[running]
        assert a_node is not None and a_node == dict(await listed(a.port))[running]
        outcomes = Outcomes()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(play_matches, b.port, 12, 0, outcomes)  # B plays on throughout
            await trio.sleep(0.3)
            a.process.send_signal(signal.SIGKILL)
            a.process.wait()

            # after A's lease (2 s) and a renewal period, B ends A's match, once
            async def aborted() -> bool:
                status = await trio.to_thread.run_sync(status_of, postgres_url, running)
                return status[0] == "aborted"

            await eventually(aborted, 15)
        for client in a_clients:
            await client.aclose()
        assert len(outcomes.ended) == 12 and not outcomes.errors
        assert all(recorded for recorded, _ in outcomes.ended.values())
        status, reason = await trio.to_thread.run_sync(status_of, postgres_url, running)
        assert status == "aborted" and reason is not None and "stopped answering" in reason
        reaped = events(tmp_path / "b.log", "node_reaped")
        assert [entry["node"] for entry in reaped] == [a_node]
        assert reaped[0]["aborted_matches"] == 1

        async def b_forgets_it() -> bool:
            return running not in dict(await listed(b.port))

        await eventually(b_forgets_it, 5)
        # a restarted node takes A's place: a new node, playing beside B
        again = node(postgres_url, tmp_path, "a2")
        try:
            more = Outcomes()
            await play_matches(again.port, 4, 100, more)
            assert len(more.ended) == 4 and all(r for r, _ in more.ended.values())
            assert b.alive() and again.alive()
        finally:
            again.process.kill()
            again.process.wait()
    finally:
        for server in (a, b):
            if server.alive():
                server.process.kill()
                server.process.wait()


async def test_a_seek_on_one_node_pairs_with_a_seek_on_another_and_the_player_follows(
    tmp_path: Path, postgres_url: str
) -> None:
    """Our player seeks on node A, another on node B: they meet on B, A's player redirected."""
    a, b = node(postgres_url, tmp_path, "a"), node(postgres_url, tmp_path, "b")
    try:
        results: dict[str, list[MatchResult]] = {}

        async def player(name: str, port: int, games: int) -> None:
            results[name] = await run_player(
                "127.0.0.1", port, "random", "tictactoe", games=games, name=name, move_time=5.0
            )

        async with trio.open_nursery() as nursery:
            nursery.start_soon(player, "on-a", a.port, 3)
            await trio.sleep(1.0)  # its seek waits in the database first
            nursery.start_soon(player, "on-b", b.port, 3)
        first_a, first_b = results["on-a"][0], results["on-b"][0]
        assert first_a.match == first_b.match  # one match, both seats
        assert first_a.outcome is not None and first_a.outcome == first_b.outcome
        assert len(results["on-a"]) == len(results["on-b"]) == 3
        database = open_database(postgres_url)
        try:
            record = database.get_match(first_a.match)
            assert record is not None and record.status == "finished"
            live = {n.id: n.address for n in database.nodes.live()}
            assert live[record.tags.node or ""] == f"127.0.0.1:{b.port}"  # played on B
        finally:
            database.close()
        redirected = events(tmp_path / "a.log", "redirected")
        assert redirected and redirected[0]["match"] == first_a.match
        assert events(tmp_path / "b.log", "paired_across_nodes")
    finally:
        for server in (a, b):
            if server.alive():
                server.process.kill()
                server.process.wait()


async def test_a_node_frozen_past_its_lease_is_fenced_off_the_matches_ended_for_it(
    tmp_path: Path, postgres_url: str
) -> None:
    """A node frozen (SIGSTOP) past its lease is declared dead and its match recorded as
    aborted by the survivor. Woken, the node learns it and ends the match too; a result it
    reaches first (the winning move was waiting in its socket) is refused by the database:
    the match is recorded once, as aborted, and its players are told so."""
    a, b = node(postgres_url, tmp_path, "a"), node(postgres_url, tmp_path, "b")
    clients: list[RawClient] = []
    try:
        for side in "xo":
            client = await RawClient.connect(a.port)
            await client.hello(f"{side}-fenced")
            await client.send({"type": "seek", "game": "tictactoe", "move_time": 60.0})
            clients.append(client)
        starts = [await client.expect(MatchStart, skip=(Seeking,)) for client in clients]
        match = starts[0].match
        seat = {start.seat: client for start, client in zip(starts, clients, strict=True)}
        for ply, cell in enumerate([0, 3, 1, 4]):  # X then O; X's row 0-1-2 is one move away
            turn = await seat[ply % 2].expect(Turn, skip=(Update, Ping))
            assert cell in turn.legal_moves
            await seat[ply % 2].send(Move(match=match, ply=turn.ply, move=cell))
        turn = await seat[0].expect(Turn, skip=(Update, Ping))

        def has_status(wanted: str) -> Callable[[], Awaitable[bool]]:
            async def check() -> bool:
                status = await trio.to_thread.run_sync(status_of, postgres_url, match)
                return status[0] == wanted

            return check

        await eventually(has_status("running"), 10)  # A's writer has stored the match
        a.process.send_signal(signal.SIGSTOP)
        try:
            await eventually(has_status("aborted"), 15)
            await seat[0].send(Move(match=match, ply=turn.ply, move=2))  # read when A wakes
        finally:
            a.process.send_signal(signal.SIGCONT)
        for client in clients:
            end = await client.expect(MatchEnd, skip=(Update, Turn, Ping))
            assert not end.recorded  # whichever came first, the win or the lease's loss
            # the database's end stands and is what the players are told (a tournament
            # plays the game again), not the win the node reached after its freeze
            assert end.termination == "aborted" and end.winner is None
        status, reason = await trio.to_thread.run_sync(status_of, postgres_url, match)
        assert status == "aborted" and reason is not None and "stopped answering" in reason

        async def a_knows() -> bool:
            return bool(events(tmp_path / "a.log", "node_lease_lost"))

        await eventually(a_knows, 10)
        assert a.alive() and b.alive()
    finally:
        await close_all(clients, (a, b))


async def test_a_database_stalled_past_the_leases_declares_no_node_dead(
    tmp_path: Path, postgres_server: PostgresServer, postgres_url: str
) -> None:
    """The database stops answering (SIGSTOP, as on a hung disk or during a failover) for
    longer than the lease: every node's lease runs out meanwhile, but each node waits a
    whole lease of steady renewals before it judges others, so nobody is reaped, and a
    match that was running is played to its recorded end."""
    a, b = node(postgres_url, tmp_path, "a"), node(postgres_url, tmp_path, "b")
    clients: list[RawClient] = []
    try:
        running, clients = await stalled_match(a.port, "a")

        async def b_lists_it() -> bool:  # so A's match row is stored
            return running in dict(await listed(b.port))

        await eventually(b_lists_it, 10)
        with frozen(postgres_server):
            await trio.sleep(float(LEASE) + 1.5)

        async def both_saw_it() -> bool:
            return all(events(tmp_path / f"{n}.log", "node_contact_late") for n in "ab")

        await eventually(both_saw_it, 10)
        await trio.sleep(2 * float(LEASE) + 1)  # a reaper would have struck by now
        for name in "ab":
            for event in ("node_reaped", "node_lease_lost"):
                assert not events(tmp_path / f"{name}.log", event), (name, event)
        status = await trio.to_thread.run_sync(status_of, postgres_url, running)
        assert status == ("running", None)
        await clients[0].send({"type": "resign", "match": running})
        for client in clients:
            end = await client.expect(MatchEnd, skip=(Update, Turn, Ping))
            assert end.recorded and end.termination == "resignation"
        status = await trio.to_thread.run_sync(status_of, postgres_url, running)
        assert status[0] == "finished"
        assert a.alive() and b.alive()
    finally:
        await close_all(clients, (a, b))
