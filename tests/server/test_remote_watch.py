"""The mirrors of other nodes' matches (server/remote_watch.py), on virtual time.

What a mirror costs is what this file holds it to: nothing read while nobody
here watches a remote match; one read per poll for all the watched ones; a
bounded number of moves per read and of mirrors per node. The database is a
fake that answers `progress` as the store does (tests/store/test_database.py
holds both backends to that); tests/server/test_cluster_watch.py runs the
whole path on real nodes and a real PostgreSQL.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, cast

import msgspec
import pytest
import trio
import trio.testing

from protocol.codec import server_message_decoder
from protocol.messages import Clock, Error, MatchEnd, MatchStart, ServerMessage, Update
from server import remote_watch
from server.config import ServerConfig
from server.connection import Connection, SharedFrames
from server.errors import RequestError
from server.lobby import Lobby
from server.remote_watch import RemoteWatch
from store import Recorder
from store.interface import MatchProgress, RunningMatch
from store.matches import MatchRecord, MatchTags, MoveRecord

_decoder = server_message_decoder()


class FakeConn:
    """What a mirror needs of a spectator's connection: frames in, errors in, `closed`."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.closed = False
        self.seen: list[ServerMessage] = []

    def send_frame(self, frame: bytes, *, urgent: bool = True) -> bool:
        self._read(frame)
        return True

    def send_shared(self, shared: SharedFrames) -> bool:
        self._read(shared.frames)
        return True

    def send_error(
        self, code: str, message: str, *, fatal: bool = False, match: Any = None
    ) -> None:
        self.seen.append(Error(code=code, message=message, fatal=fatal, match=match))

    def _read(self, frames: bytes) -> None:
        while frames:
            (size,) = struct.unpack(">I", frames[:4])
            self.seen.append(_decoder.decode(frames[4 : 4 + size]))
            frames = frames[4 + size :]


class FakeNodes:
    """The database as other nodes wrote it, answering `progress` and counting reads."""

    def __init__(self) -> None:
        self.records: dict[str, MatchRecord] = {}
        self.moves: dict[str, list[MoveRecord]] = {}
        self.reads: list[dict[str, int]] = []

    def progress(self, since: Mapping[str, int], limit: int) -> list[MatchProgress]:
        self.reads.append(dict(since))
        return [
            MatchProgress(self.records[match_id], self.moves[match_id][ply : ply + limit])
            for match_id, ply in since.items()
            if match_id in self.records
        ]

    def get_match(self, match_id: str) -> MatchRecord | None:
        return self.records.get(match_id)

    def start(self, match_id: str) -> MatchRecord:
        record = MatchRecord(
            id=match_id,
            game="connect4",
            options={},
            move_time=1.0,
            lag_margin=0.2,
            players=["x", "o"],
            status="running",
            scores=None,
            winner=None,
            termination=None,
            reason=None,
            points=None,
            plies=0,
            started_at=0.0,
            ended_at=None,
            tournament=None,
            tags=MatchTags(node="elsewhere"),
        )
        self.records[match_id] = record
        self.moves[match_id] = []
        return record

    def play(self, match_id: str, *columns: int, think: float = 0.1) -> None:
        moves = self.moves[match_id]
        for column in columns:
            ply = len(moves)
            moves.append(MoveRecord(match_id, ply, ply % 2, column, str(column + 1), think, 0.0))

    def end(self, match_id: str, **result: Any) -> None:
        self.records[match_id] = dataclasses.replace(self.records[match_id], **result)


class FakeCluster:
    def __init__(self, nodes: FakeNodes) -> None:
        self.node = "here"
        self.store = self
        self.nodes = nodes
        self.get_match = nodes.get_match


async def inline(call: Callable[..., Any], *args: Any) -> Any:
    await trio.lowlevel.checkpoint()
    return call(*args)


@pytest.fixture
async def setup() -> AsyncIterator[tuple[RemoteWatch, FakeNodes, Lobby]]:
    nodes = FakeNodes()
    async with trio.open_nursery() as nursery:
        lobby = Lobby(ServerConfig(db=None), Recorder(None), nursery)
        watch = RemoteWatch(lobby, cast(Any, FakeCluster(nodes)))
        watch.blocking = inline  # no thread: virtual time stands still while it reads
        lobby.remote = watch
        await nursery.start(watch.run)
        yield watch, nodes, lobby
        nursery.cancel_scope.cancel()


def view(watch: RemoteWatch, nodes: FakeNodes) -> None:
    """The cluster's read of the other nodes' running matches."""
    watch.view_changed(
        [
            RunningMatch(r, len(nodes.moves[r.id]))
            for r in nodes.records.values()
            if r.status == "running"
        ]
    )


def conn(name: str) -> Any:
    return cast(Connection, FakeConn(name))


def kinds(fake: Any) -> list[str]:
    return [type(message).__name__ for message in fake.seen]


async def test_nothing_is_read_while_nobody_watches_and_one_read_serves_every_match(
    setup: tuple[RemoteWatch, FakeNodes, Lobby], autojump_clock: trio.testing.MockClock
) -> None:
    watch, nodes, lobby = setup
    for match_id in ("r1", "r2"):
        nodes.start(match_id)
    nodes.play("r1", 3, 3, 4)
    view(watch, nodes)
    await trio.sleep(60)
    assert nodes.reads == []  # two remote matches, nobody watching them: no read
    watchers = [conn(f"s{i}") for i in range(3)]
    lobby.spectate(watchers[0], "r1")
    lobby.spectate(watchers[1], "r1")
    lobby.spectate(watchers[2], "r2")
    await trio.sleep(0.01)  # a new mirror is read at once
    assert nodes.reads == [{"r1": 0, "r2": 0}]
    start = watchers[0].seen[0]
    assert isinstance(start, MatchStart) and start.ply == 3 and start.moves == [3, 3, 4]
    assert start.notations == ["4", "4", "5"] and start.seat is None and start.token is None
    nodes.play("r1", 5)
    await trio.sleep(remote_watch.POLL_INTERVAL)
    assert nodes.reads[-1] == {"r1": 3, "r2": 0}  # both in one read
    for fake in watchers[:2]:
        assert kinds(fake) == ["MatchStart", "Update"]
        update = fake.seen[1]
        assert isinstance(update, Update) and (update.ply, update.seat, update.move) == (4, 1, 5)
    assert kinds(watchers[2]) == ["MatchStart"]
    for fake in watchers:
        lobby.connection_lost(fake)
    await trio.sleep(remote_watch.POLL_INTERVAL * 2)
    reads = len(nodes.reads)
    assert watch.mirrors == {}
    await trio.sleep(60)
    assert len(nodes.reads) == reads  # nobody watches any more: no read


async def test_a_long_match_is_caught_up_in_bounded_reads_before_its_start(
    setup: tuple[RemoteWatch, FakeNodes, Lobby],
    monkeypatch: pytest.MonkeyPatch,
    autojump_clock: trio.testing.MockClock,
) -> None:
    watch, nodes, lobby = setup
    monkeypatch.setattr(remote_watch, "MOVES_PER_POLL", 4)
    nodes.start("long")
    nodes.play("long", 0, 1, 2, 3, 4, 5, 6, 0, 1, 2)  # ten moves: three reads of four at most
    view(watch, nodes)
    spectator = conn("s")
    lobby.spectate(spectator, "long")
    await trio.sleep(0.01)
    assert spectator.seen == []  # not caught up yet: its match_start waits
    await trio.sleep(remote_watch.POLL_INTERVAL * 2)
    assert nodes.reads == [{"long": 0}, {"long": 4}, {"long": 8}]
    start = spectator.seen[0]
    assert isinstance(start, MatchStart) and start.ply == 10 and len(spectator.seen) == 1


async def test_the_stored_result_ends_the_match_for_its_spectators(
    setup: tuple[RemoteWatch, FakeNodes, Lobby], autojump_clock: trio.testing.MockClock
) -> None:
    watch, nodes, lobby = setup
    nodes.start("r")
    view(watch, nodes)
    spectator = conn("s")
    lobby.spectate(spectator, "r")
    await trio.sleep(0.01)
    nodes.play("r", 0, 1)
    nodes.end("r", status="aborted", termination="aborted", reason="its server stopped")
    await trio.sleep(remote_watch.POLL_INTERVAL)
    assert kinds(spectator) == ["MatchStart", "Update", "Update", "MatchEnd"]
    end = spectator.seen[-1]
    assert isinstance(end, MatchEnd) and end.ply == 2 and end.recorded
    assert (end.scores, end.winner, end.termination) == ([0.5, 0.5], None, "aborted")
    assert end.reason == "its server stopped"
    assert watch.mirrors == {} and not lobby.member(spectator).watching
    with pytest.raises(RequestError) as refused:  # the view may list it a second longer
        lobby.spectate(conn("late"), "r")
    assert refused.value.code == "unknown_match"


async def test_a_gap_in_the_moves_waits_while_the_match_runs_and_not_after(
    setup: tuple[RemoteWatch, FakeNodes, Lobby], autojump_clock: trio.testing.MockClock
) -> None:
    watch, nodes, lobby = setup
    nodes.start("gappy")
    nodes.play("gappy", 0, 1, 2)
    del nodes.moves["gappy"][1]  # ply 1 not (yet) there
    view(watch, nodes)
    spectator = conn("s")
    lobby.spectate(spectator, "gappy")
    await trio.sleep(remote_watch.POLL_INTERVAL * 4)
    assert spectator.seen == []  # it waits for the missing move, reading twice a second
    assert len(nodes.reads) >= 4 and nodes.reads[1:] == [{"gappy": 1}] * (len(nodes.reads) - 1)
    nodes.end("gappy", status="finished", scores=[1.0, 0.0], winner=0, termination="line")
    await trio.sleep(remote_watch.POLL_INTERVAL)
    assert kinds(spectator) == ["MatchStart", "MatchEnd"]  # the rest can never come
    start, end = spectator.seen
    assert isinstance(start, MatchStart) and start.moves == [0]
    assert isinstance(end, MatchEnd) and end.ply == 1 and end.winner == 0
    assert watch.mirrors == {}


async def test_a_clocked_match_shows_the_clocks_replayed_from_the_think_times(
    setup: tuple[RemoteWatch, FakeNodes, Lobby], autojump_clock: trio.testing.MockClock
) -> None:
    watch, nodes, lobby = setup
    record = nodes.start("clocked")
    nodes.records["clocked"] = dataclasses.replace(
        record, tags=msgspec.structs.replace(record.tags, clock=Clock(60.0, 2.0))
    )
    view(watch, nodes)
    spectator = conn("s")
    lobby.spectate(spectator, "clocked")
    await trio.sleep(0.01)
    start = spectator.seen[0]
    assert isinstance(start, MatchStart) and start.time_control.clock == Clock(60.0, 2.0)
    nodes.play("clocked", 3, 3, think=1.5)
    await trio.sleep(remote_watch.POLL_INTERVAL)
    # as the playing node counts: 1.5 s spent, 0.2 s of it refunded as lag, 2 s increment
    clocks = [u.clocks for u in spectator.seen if isinstance(u, Update)]
    assert clocks == [[60.7, 60.0], [60.7, 60.7]]


async def test_followers_follow_new_remote_matches_within_the_limits(
    setup: tuple[RemoteWatch, FakeNodes, Lobby],
    monkeypatch: pytest.MonkeyPatch,
    autojump_clock: trio.testing.MockClock,
) -> None:
    watch, nodes, lobby = setup
    lobby.config = dataclasses.replace(lobby.config, max_spectating=2)
    follower = conn("f")
    lobby.spectate(follower, "*")
    for match_id in ("a", "b", "c"):
        nodes.start(match_id)
    view(watch, nodes)
    await trio.sleep(0.01)
    # the third is skipped at once; the first two start once their moves are read
    assert kinds(follower) == ["Error", "MatchStart", "MatchStart"]
    skipped = follower.seen[0]
    assert isinstance(skipped, Error) and skipped.code == "limit_reached" and skipped.match == "c"
    monkeypatch.setattr(remote_watch, "MAX_MIRRORS", 2)
    with pytest.raises(RequestError) as refused:  # this node relays two matches already
        lobby.spectate(conn("other"), "c")
    assert refused.value.code == "limit_reached"
    with pytest.raises(RequestError) as unknown:
        lobby.spectate(conn("other"), "nowhere")
    assert unknown.value.code == "unknown_match"
