"""Spectators of this node watching the matches of other nodes, relayed from the database.

On a shared database each node plays its own matches in memory, and no node
talks to another about a match. So a spectator here who wants a match of
another node is served from what that node writes: every move goes to the
database (its records writer flushes them within `store.recorder.MOVE_FLUSH`,
one second), and this node reads the new moves of the remote matches that
somebody here watches, all of them in one read every `POLL_INTERVAL` seconds
(`store.interface.NodeTable.progress`), replays them through the game's rules and relays each as an ``update``. When
the match is no longer running in the database (finished, or aborted because
its node died) the spectators get its ``match_end`` from the stored result.

Why a mirror per match: a remote match watched by a thousand spectators here
costs one read per poll and one encoding per move, as a local match does: a
`RemoteMatch` holds the replayed state and a `Fanout` (server/fanout.py), and
every spectator's connection writes the same bytes. Nothing is read while
nobody here watches a remote match; a mirror is dropped at the first poll
that finds it without spectators. Bounded: at most `MAX_MIRRORS` mirrors per
node, `MOVES_PER_POLL` moves per match per read (a long match is caught up in
a few polls before its ``match_start`` is sent).

The delay: a move reaches a spectator here up to the writer's flush plus one
poll after it was played (about a second on average, a second and a half at
most); a match that starts on another node is found by ``spectate "*"``
followers once it is written and the cluster's view reads it
(`server.cluster.VIEW_INTERVAL`, one second).
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

import structlog
import trio

from games import Game, GameError, Outcome, Termination, make_game
from protocol.codec import encode_message
from protocol.messages import FOLLOW_ALL, MatchEnd, MatchStart, TimeControl, Update
from protocol.messages import Clock as WireClock
from server.clock import GameClock
from server.errors import RequestError
from server.fanout import Fanout
from store.errors import StoreError
from store.interface import MatchProgress, RunningMatch
from store.matches import MatchRecord, MoveRecord

if TYPE_CHECKING:
    from server.cluster import Cluster
    from server.connection import Connection
    from server.lobby import Lobby

log = structlog.get_logger("arena.cluster")

#: seconds between two reads of the watched remote matches' new moves
POLL_INTERVAL = 0.5
#: the most matches of other nodes this node mirrors at once
MAX_MIRRORS = 256
#: the most moves read for one match in one poll
MOVES_PER_POLL = 512
#: seconds to wait before each read of a match id nobody here knows: a match that has
#: just started on another node is written within its writer's `store.recorder.MOVE_FLUSH`
#: (1 s), then committed; the reads span about 3 s, room for a busy machine (a window of
#: 1.3 s once refused a match started a moment before on another node, under CI's load)
LOOKUP_PAUSES = (0.0, 0.3, 0.4, 0.6, 0.8, 1.0)


class RemoteMatch:
    """A match of another node as this node's spectators see it: replayed from its records."""

    def __init__(self, record: MatchRecord, game: Game[Any, Any], fanout: Fanout) -> None:
        self.id = record.id
        self.record = record
        self.game = game
        self.state: Any = game.initial_state()
        self.moves: list[Any] = []  # wire-encoded, from the initial position
        self.notations: list[str] = []
        #: its spectators here (the same bytes to each, as for a local match)
        self.spectators = fanout
        tag = record.tags.clock
        #: on a clock: the seats' time replayed from the recorded think times (exact unless a
        #: seat was away or played an illegal move: then its recorded time is the last part)
        self.clock = (
            None
            if tag is None
            else GameClock(
                WireClock(tag.initial, tag.increment), record.lag_margin, game.num_players
            )
        )
        #: spectators who came before the first read caught up: their match_start waits for it
        self.waiting: list[Connection] = []
        self.loaded = False

    @property
    def ply(self) -> int:
        return len(self.moves)

    def watched(self) -> bool:
        return len(self.spectators) > 0 or any(not conn.closed for conn in self.waiting)

    def add(self, conn: Connection) -> None:
        """A spectator: its match_start now, or once the moves so far are read."""
        if self.loaded:
            self.spectators.add(conn, encode_message(self.start_message()))
        elif conn not in self.waiting:
            self.waiting.append(conn)

    def release(self) -> None:
        """The moves so far are read: the waiting spectators get their match_start."""
        self.loaded = True
        waiting = [conn for conn in self.waiting if not conn.closed]
        self.waiting = []
        if waiting:
            frame = encode_message(self.start_message())
            for conn in waiting:
                self.spectators.add(conn, frame)

    def start_message(self) -> MatchStart:
        record = self.record
        clock = record.tags.clock
        return MatchStart(
            match=self.id,
            game=record.game,
            options=self.game.options,
            seat=None,
            players=list(record.players),
            time_control=TimeControl(
                record.move_time,
                record.lag_margin,
                None if clock is None else WireClock(clock.initial, clock.increment),
            ),
            token=None,
            state=self.game.encode_state(self.state),
            ply=self.ply,
            to_move=self.game.to_move(self.state),
            moves=list(self.moves),
            notations=list(self.notations),
        )

    def play(self, move: MoveRecord) -> None:
        """Replay a recorded move (GameError if the rules refuse it) and relay its update."""
        self.state = self.game.play(self.state, self.game.decode_move(move.move))
        self.moves.append(move.move)
        self.notations.append(move.notation)
        if self.clock is not None:
            self.clock.move_made(move.seat, move.think_time, move.think_time)
        if not self.loaded or not len(self.spectators):
            return
        update = Update(
            match=self.id,
            ply=self.ply,
            seat=move.seat,
            move=move.move,
            notation=move.notation,
            state=self.game.encode_state(self.state),
            think_time=move.think_time,
            clocks=None if self.clock is None else self.clock.view(),
            eval=move.eval,
            depth=move.depth,
            visits=move.visits,
            pv=list(move.pv),
        )
        self.spectators.publish(encode_message(update), urgent=False)

    def end_message(self, record: MatchRecord) -> MatchEnd:
        """The stored result (an aborted match without scores: nobody wins)."""
        scores = record.scores
        if scores is None:
            scores = list(Outcome.draw(self.game.num_players, Termination.ABORTED).scores)
        return MatchEnd(
            match=self.id,
            ply=self.ply,
            scores=list(scores),
            winner=record.winner,
            termination=record.termination or Termination.ABORTED.value,
            reason=record.reason or "",
            points=None if record.points is None else list(record.points),
            recorded=True,  # read from the database
        )


class RemoteWatch:
    """This node's mirrors of other nodes' matches, and the task that keeps them current."""

    def __init__(self, lobby: Lobby, cluster: Cluster) -> None:
        self.lobby = lobby
        self.cluster = cluster
        self.mirrors: dict[str, RemoteMatch] = {}
        #: the other nodes' running matches as the cluster last read them
        self._view: dict[str, MatchRecord] = {}
        #: mirrors ended since the view was last read (it may still list them)
        self._ended: set[str] = set()
        self._wake = trio.Event()
        #: how a database call is made: in a worker thread (a test on virtual time: inline)
        self.blocking: Callable[..., Awaitable[Any]] = trio.to_thread.run_sync

    # --- requests (on the event loop, never waiting) -----------------------------

    def knows(self, match_id: str) -> bool:
        """Whether `spectate` needs no database read for `match_id` (a local match, a known
        remote one, or ``"*"``)."""
        return (
            match_id == FOLLOW_ALL
            or match_id in self.lobby.matches
            or match_id in self.mirrors
            or match_id in self._view
        )

    def spectate(self, conn: Connection, match_id: str, record: MatchRecord | None = None) -> None:
        """Watch a match of another node (RequestError if it is unknown or over a limit)."""
        mirror = self.mirrors.get(match_id)
        if record is None:
            record = self._view.get(match_id)
        if mirror is None and (record is None or match_id in self._ended):
            raise RequestError("unknown_match", f"no match {match_id!r} is being played")
        watching = self.lobby.member(conn).watching
        limit = self.lobby.config.max_spectating
        if mirror not in watching and len(watching) >= limit:
            raise RequestError(
                "limit_reached", f"a connection may watch at most {limit} matches at once"
            )
        if mirror is None:
            assert record is not None
            mirror = self._mirror(record)
        mirror.add(conn)
        watching.add(mirror)

    async def spectate_found(self, conn: Connection, match_id: str) -> None:
        """`spectate` a match this node does not know of yet: look for it in the database
        (again for a moment if it is not there: its node may not have written it yet)."""
        record = None
        for pause in LOOKUP_PAUSES:
            await trio.sleep(pause)
            if conn.closed:  # gone while we looked: the lobby has forgotten it already
                return
            if self.knows(match_id):  # it started here, or the view read it, meanwhile
                self.lobby.spectate(conn, match_id)
                return
            try:
                record = await self.blocking(self.cluster.store.get_match, match_id)
            except StoreError as exc:
                raise RequestError("store_unavailable", str(exc)) from None
            if record is not None:
                break
        if _closed(conn):
            return
        if (
            record is None
            or record.id != match_id
            or record.status != "running"
            or record.tags.node == self.cluster.node
        ):
            raise RequestError("unknown_match", f"no match {match_id!r} is being played")
        self.spectate(conn, match_id, record)

    def follow_all(self, conn: Connection) -> None:
        """``spectate "*"``: follow every remote match being played now."""
        for record in list(self._view.values()):
            if not self._follow(conn, record):
                return

    def view_changed(self, remote: list[RunningMatch]) -> None:
        """The cluster read the other nodes' matches: followers follow the new ones."""
        view = {running.record.id: running.record for running in remote}
        new = [record for match_id, record in view.items() if match_id not in self._view]
        self._view = view
        self._ended &= view.keys()
        for record in new:
            for follower in list(self.lobby.followers):
                self._follow(follower, record)

    def _follow(self, conn: Connection, record: MatchRecord) -> bool:
        """Add a follower to a remote match; False (and a non-fatal error) at a limit."""
        mirror = self.mirrors.get(record.id)
        watching = self.lobby.member(conn).watching
        if conn.closed or record.id in self._ended or (mirror is not None and mirror in watching):
            return True
        try:
            self.spectate(conn, record.id, record)
        except RequestError as exc:
            conn.send_error(
                exc.code, f"not following match {record.id}: {exc.message}", match=record.id
            )
            return exc.code != "limit_reached"
        return True

    def _mirror(self, record: MatchRecord) -> RemoteMatch:
        if len(self.mirrors) >= MAX_MIRRORS:
            raise RequestError(
                "limit_reached",
                f"this server relays at most {MAX_MIRRORS} matches of other servers at once",
            )
        try:
            game = make_game(record.game, record.options)
        except ValueError as exc:  # a game this node does not have
            raise RequestError("unknown_match", f"cannot show match {record.id}: {exc}") from None
        mirror = self.mirrors[record.id] = RemoteMatch(record, game, Fanout(self.lobby.flusher))
        log.info("remote_watch_started", match=record.id, node=record.tags.node)
        self._wake.set()  # its first read now, not at the next poll
        return mirror

    # --- the poll ----------------------------------------------------------------

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Read the watched remote matches' progress every `POLL_INTERVAL` seconds, for ever;
        idle while nobody here watches one."""
        task_status.started()
        last = -math.inf
        failing = False
        while True:
            self._wake = trio.Event()
            self._drop_unwatched()
            if not self.mirrors:
                await self._wake.wait()
                continue
            # a new mirror is read at once, but no two reads within a tenth of the interval
            await trio.sleep_until(last + POLL_INTERVAL / 10)
            last = trio.current_time()
            since = {match_id: mirror.ply for match_id, mirror in self.mirrors.items()}
            try:
                found = await self.blocking(
                    self.cluster.store.nodes.progress, since, MOVES_PER_POLL
                )
            except StoreError as exc:
                if not failing:  # once per outage, not twice a second
                    log.warning("remote_watch_read_failed", error=str(exc))
                failing = True
            else:
                if failing:
                    log.info("remote_watch_read_recovered")
                failing = False
                self._advance(since, {progress.record.id: progress for progress in found})
            with trio.move_on_after(POLL_INTERVAL):
                await self._wake.wait()

    def _drop_unwatched(self) -> None:
        for match_id, mirror in list(self.mirrors.items()):
            if not mirror.watched():
                del self.mirrors[match_id]

    def _advance(self, since: Mapping[str, int], found: Mapping[str, MatchProgress]) -> None:
        for match_id, ply in since.items():
            mirror = self.mirrors.get(match_id)
            if mirror is None or mirror.ply != ply:
                continue
            progress = found.get(match_id)
            if progress is None:  # the record is gone (a database restored from a backup)
                self._close(mirror, None, "its record is gone")
                continue
            try:
                for move in progress.moves:
                    if move.ply != mirror.ply:
                        break  # a gap: the rest comes with a later read
                    mirror.play(move)
            except GameError as exc:
                log.warning("remote_watch_replay_failed", match=match_id, error=str(exc))
                self._close(mirror, None, f"its moves cannot be replayed: {exc}")
                continue
            over = progress.record.status != "running"
            gap = mirror.ply - ply < len(progress.moves)  # a gap in a match that is over stays
            if len(progress.moves) >= MOVES_PER_POLL or (gap and not over):
                continue  # more to read: the next poll
            if not mirror.loaded:
                mirror.release()
            mirror.spectators.flush_now()
            if over:
                self._close(mirror, progress.record, "")

    def _close(self, mirror: RemoteMatch, record: MatchRecord | None, why: str) -> None:
        """The match is over (its stored result) or cannot be followed (`why`): tell the
        spectators and forget the mirror."""
        del self.mirrors[mirror.id]
        self._ended.add(mirror.id)
        if record is not None:
            mirror.spectators.publish(encode_message(mirror.end_message(record)), urgent=True)
        conns = [*mirror.spectators, *mirror.waiting]
        for conn in conns:
            if record is None and not conn.closed:
                conn.send_error("unknown_match", f"match {mirror.id} {why}", match=mirror.id)
            held = self.lobby.members.get(conn)
            if held is not None:
                held.watching.discard(mirror)
        for conn in conns:
            mirror.spectators.discard(conn)
        mirror.waiting = []
        log.info("remote_watch_ended", match=mirror.id, spectators=len(conns))


def _closed(conn: Connection) -> bool:
    """Whether `conn` is closed now (a call: mypy keeps no narrowing across the `await`)."""
    return conn.closed
