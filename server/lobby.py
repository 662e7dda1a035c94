"""The lobby: open seeks, named rooms, running matches and reconnect tokens.

Everything here runs on the event loop and never waits, so it needs no locks:
Trio switches tasks only at `await`.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import msgspec
import structlog
import trio

from games import Game, make_game
from protocol.messages import (
    FOLLOW_ALL,
    Clock,
    Join,
    OpenSeek,
    Seek,
    Seeking,
)
from server.config import MatchPolicy, ServerConfig
from server.connection import Connection, LazyFlusher
from server.errors import RequestError as RequestError
from server.ladders import Ladders
from server.match import Match, Stats
from server.membership import Membership, SeekKey
from server.pool_desk import PoolDesk
from server.pools import Pool, PooledSeek
from store import Recorder
from store.matches import MatchTags

log = structlog.get_logger("arena.server")


@dataclass
class Room:
    name: str
    game: Game[Any, Any]
    move_time: float
    seats: list[Connection | None]
    #: the server's default clock when the room's creator asked for no move time
    clock: Clock | None = None


class SeekCanceller(Protocol):
    """What the lobby tells the seeks that wait elsewhere (the shared database)."""

    def cancel(self, conn: Connection) -> None: ...


class RemoteSpectating(Protocol):
    """The matches of other nodes, relayed to spectators here (server/remote_watch.py)."""

    def spectate(self, conn: Connection, match_id: str) -> None: ...

    def follow_all(self, conn: Connection) -> None: ...


@dataclass
class Lobby:
    config: ServerConfig
    recorder: Recorder
    nursery: trio.Nursery
    stats: Stats | None = None
    #: the server's flusher: spectators' frames wait for it (server/fanout.py)
    flusher: LazyFlusher | None = None
    rng: random.Random = field(default_factory=random.Random)
    matches: dict[str, Match] = field(default_factory=dict)
    tokens: dict[str, tuple[Match, int]] = field(default_factory=dict)
    seeks: dict[SeekKey, list[Connection]] = field(default_factory=dict)
    rooms: dict[str, Room] = field(default_factory=dict)
    #: pools, their directors and tournament games (it asks this lobby for what it needs)
    desk: PoolDesk = field(init=False)
    #: the server's ladders (``--ladder``): bots paired continuously
    ladders: Ladders = field(init=False)
    #: what each connection holds here (seats, watching, seeks, rooms, pools)
    members: dict[Connection, Membership] = field(default_factory=dict)
    # connections that spectate every match, also those that start later (`spectate *`)
    followers: set[Connection] = field(default_factory=set)
    #: on a shared database: plain seeks pair through it (server/cluster_seeks.py); told
    #: when a connection's seek is over here
    cluster_seeks: SeekCanceller | None = None
    #: on a shared database: the other nodes' matches, for spectators here
    remote: RemoteSpectating | None = None

    def __post_init__(self) -> None:
        self.desk = PoolDesk(self)
        self.ladders = Ladders(self, self.rng)

    def member(self, conn: Connection) -> Membership:
        """What `conn` holds in the lobby (a new, empty record for a newcomer)."""
        found = self.members.get(conn)
        if found is None:
            found = self.members[conn] = Membership()
        return found

    # --- creating matches ------------------------------------------------------

    def game_for(self, name: str, options: dict[str, Any]) -> Game[Any, Any]:
        try:
            # the value's type is part of the key: 7, 7.0 and True must not share a game
            key = (name, tuple(sorted((k, type(v).__name__, v) for k, v in options.items())))
            hash(key)
        except TypeError:  # unhashable option values: the game will say what is wrong
            key = None
        try:
            return make_game(name, options) if key is None else _cached_game(*key)
        except ValueError as exc:  # unknown game or bad options
            raise RequestError("bad_request", str(exc)) from None

    def move_time(self, requested: float | None) -> float:
        if requested is None:
            return self.config.policy.move_time
        if requested > self.config.max_move_time:
            raise RequestError(
                "bad_request",
                f"move_time {requested:g}s exceeds this server's maximum {self.config.max_move_time:g}s",
            )
        return requested

    def require_store(self) -> None:
        """Refuse to start matches while unwritten results fill the recorder's queue."""
        if not self.recorder.accepting:
            raise RequestError(
                "store_unavailable",
                "the server cannot store results now and its queue of unwritten results is"
                " full; no new matches until the records database accepts writes again",
            )

    def start_match(
        self,
        game: Game[Any, Any],
        players: Sequence[Connection | str],
        policy: MatchPolicy,
        **kwargs: Any,
    ) -> Match:
        """Create a match between these connections (in seat order) and start its task.

        A name instead of a connection is a player still to come (paired on another
        node): its seat waits for a ``rejoin`` with its token, as after a disconnect.
        """
        match = Match(
            game,
            [
                (player, None) if isinstance(player, str) else (player.name, player)
                for player in players
            ],
            policy,
            self.recorder,
            stats=self.stats,
            on_over=self._match_over,
            flusher=self.flusher,
            **kwargs,
        )
        for seat in match.seats:
            if seat.conn is not None:
                self.member(seat.conn).seats.add((match, seat.index))
            else:
                seat.disconnected_at = trio.current_time()
        self.matches[match.id] = match
        for seat in match.seats:
            self.tokens[seat.token] = (match, seat.index)
        for follower in list(self.followers):
            self._follow(follower, match)
        self.nursery.start_soon(self._run_match, match, name=f"match {match.id}")
        return match

    def _match_over(self, match: Match) -> None:
        """The match ended: its seats and spectators hold nothing of it any more."""
        for seat in match.seats:
            held = self.members.get(seat.conn) if seat.conn is not None else None
            if held is not None:
                held.seats.discard((match, seat.index))
        for spectator in match.spectators:
            held = self.members.get(spectator)
            if held is not None:
                held.watching.discard(match)

    async def _run_match(self, match: Match) -> None:
        try:
            await match.run()
        finally:
            self.matches.pop(match.id, None)
            index = match.tags.index
            if match.tournament and index is not None:
                owner = match.tags.owner or ""
                self.desk.tournament_games.pop((owner, match.tournament, index), None)
            for observer in match.observers:
                held = self.members.get(observer)
                if held is not None:
                    held.observing.discard(match)
            for seat in match.seats:
                self.tokens.pop(seat.token, None)
            if match.tags.ladder is not None:
                self.ladders.match_over(match)

    def seek(self, conn: Connection, message: Seek) -> None:
        if message.ladder:  # beside any other seek: it neither replaces nor is replaced
            self.ladders.seek(conn, message)
            return
        # everything is checked before anything changes: a refused seek keeps the earlier one
        game = self.game_for(message.game, message.options)
        move_time = self.move_time(message.move_time)
        self.require_store()
        pool = None
        if message.pool:
            pool = self.desk.pools.get(message.pool)
            if pool is not None and not pool.admits(conn.name, message.secret):
                raise RequestError(
                    "bad_secret",
                    f"{conn.name!r} is not admitted to pool {message.pool!r} (unknown name or wrong secret)",
                )
            if pool is None:
                self.desk.check_pool_room()
        self.cancel_seeks(conn)
        options = msgspec.json.encode(game.options)
        clock = message.clock
        if clock is None and message.move_time is None:
            clock = self.config.policy.clock  # the server's default time control, if a clock
        key = SeekKey(game.name, options, move_time, clock)
        if message.any_time:
            key = key.with_any_time()
        others = self._open_seeks(game.name, key)
        pairing = None
        if not message.pool:
            self.seeks.setdefault(key, []).append(conn)
            self.member(conn).seek_key = key
            pairing = self._pairing(game, key)
        conn.send(
            Seeking(
                game=game.name,
                options=game.options,
                move_time=move_time,
                clock=clock,
                any_time=message.any_time,
                others=others,
                paired=pairing is not None,
            ),
            urgent=False,  # rides with match_start when the seek pairs at once
        )
        if pairing is not None:
            players, policy, match_clock = pairing
            self.start_match(game, players, policy, clock=match_clock)
            return
        if message.pool:
            if pool is None:
                pool = self.desk.pools[message.pool] = Pool(message.pool)
            pool.seeks.append(PooledSeek(conn, message, game))
            pool.idle_since = None
            self.member(conn).pool_seeks.add(pool.name)
            self.desk.pool_changed(pool.name)

    def _open_seeks(self, game: str, own: SeekKey) -> list[OpenSeek]:
        """The seeks of `game` waiting that `own` does not pair with (shown to a new seeker):
        another time control or other options. Any-time seeks of the same options pair with
        any, so they are not listed (they play this seek, or wait with it)."""

        def compatible(key: SeekKey) -> bool:
            return key[:2] == own[:2] and (key.any_time or own.any_time)

        return [
            OpenSeek(
                game=key.game,
                options=msgspec.json.decode(key.options),
                move_time=key.move_time,
                clock=key.clock,
                players=len(conns),
            )
            for key, conns in self.seeks.items()
            if key.game == game and key != own and conns and not compatible(key)
        ][:16]

    def _pairing(
        self, game: Game[Any, Any], key: SeekKey
    ) -> tuple[list[Connection], MatchPolicy, Clock | None] | None:
        """The players, policy and clock of a match if enough seekers agree (taken out of
        the lobby): same game and options, and the same time control or any (an any-time
        seeker plays the other's; all any-time: the default). None if they do not yet."""
        flexible_key = key.with_any_time()
        flexible = self.seeks.get(flexible_key, [])
        if key.any_time:
            fixed_keys = [k for k in self.seeks if k[:2] == key[:2] and not k.any_time]
            fixed_key = fixed_keys[0] if fixed_keys else None
        else:
            fixed_key = key
        fixed = [] if fixed_key is None else self.seeks.get(fixed_key, [])
        if len(fixed) + len(flexible) < game.num_players:
            return None
        players = fixed[: game.num_players]
        players += flexible[: game.num_players - len(players)]
        for waiting_key, waiting in ((fixed_key, fixed), (flexible_key, flexible)):
            for conn in players:
                if conn in waiting:
                    waiting.remove(conn)
            if waiting_key is not None and waiting_key in self.seeks and not waiting:
                del self.seeks[waiting_key]
        self.rng.shuffle(players)
        if fixed_key is None:  # only any-time seekers: the server's default time control
            move_time, clock = self.config.policy.move_time, self.config.policy.clock
        else:
            move_time, clock = fixed_key.move_time, fixed_key.clock
        return players, replace(self.config.policy, move_time=move_time), clock

    def cancel_seeks(self, conn: Connection) -> None:
        """Withdraw the connection's open seek and its pool seeks (O(what it holds))."""
        if self.cluster_seeks is not None:
            self.cluster_seeks.cancel(conn)
        held = self.member(conn)
        key = held.seek_key
        if key is not None:
            held.seek_key = None
            waiting = self.seeks.get(key)
            if waiting is not None and conn in waiting:
                waiting.remove(conn)
                if not waiting:
                    del self.seeks[key]
        for name in list(held.pool_seeks):
            held.pool_seeks.discard(name)
            pool = self.desk.pools.get(name)
            if pool is None:
                continue
            pool.seeks = [entry for entry in pool.seeks if entry.conn is not conn]
            self.desk.pool_maybe_idle(pool)
            self.desk.pool_changed(name)

    def join(self, conn: Connection, message: Join) -> None:
        """Take a seat in a room (created by the first joiner; gone when its match starts or
        its last seated connection leaves). Everything is checked before anything changes."""
        self.require_store()
        room = self.rooms.get(message.room)
        limit = self.config.max_rooms_per_connection
        rooms = self.member(conn).rooms
        if message.room not in rooms and len(rooms) >= limit:
            raise RequestError("limit_reached", f"a connection may wait in at most {limit} rooms")
        if room is None:
            if len(self.rooms) >= self.config.max_rooms:
                raise RequestError(
                    "limit_reached", f"this server holds {self.config.max_rooms} rooms already"
                )
            game = self.game_for(message.game, message.options)
            room = Room(
                message.room, game, self.move_time(message.move_time), [None] * game.num_players
            )
            if message.move_time is None:
                room.clock = self.config.policy.clock
        elif message.game != room.game.name:
            raise RequestError(
                "room_mismatch", f"room {room.name!r} plays {room.game.name}, not {message.game!r}"
            )
        if conn in room.seats:
            raise RequestError("seat_taken", f"you already hold a seat in room {room.name!r}")
        if message.seat is not None:
            if message.seat >= len(room.seats):
                raise RequestError(
                    "bad_request", f"seat {message.seat} does not exist (0..{len(room.seats) - 1})"
                )
            if room.seats[message.seat] is not None:
                raise RequestError(
                    "seat_taken", f"seat {message.seat} of room {room.name!r} is taken"
                )
            index = message.seat
        else:
            free = [i for i, c in enumerate(room.seats) if c is None]
            if not free:
                raise RequestError("seat_taken", f"room {room.name!r} is full")
            index = free[0]
        room.seats[index] = conn
        self.rooms[room.name] = room
        rooms.add(room.name)
        conn.send(
            Seeking(
                game=room.game.name,
                options=room.game.options,
                move_time=room.move_time,
                room=room.name,
                clock=room.clock,
                paired=all(c is not None for c in room.seats),
            ),
            urgent=False,  # rides with match_start when the room fills now
        )
        if all(c is not None for c in room.seats):
            del self.rooms[room.name]
            players = [c for c in room.seats if c is not None]
            for player in players:
                self.member(player).rooms.discard(room.name)
            self.start_match(
                room.game,
                players,
                replace(self.config.policy, move_time=room.move_time),
                tags=MatchTags(room=room.name),
                clock=room.clock,
            )

    def leave_rooms(self, conn: Connection) -> None:
        rooms = self.member(conn).rooms
        for name in list(rooms):
            room = self.rooms.get(name)
            if room is None:
                continue
            room.seats = [None if c is conn else c for c in room.seats]
            if all(c is None for c in room.seats):
                del self.rooms[name]
        rooms.clear()

    # --- in-match requests -------------------------------------------------------

    def seat_of(self, conn: Connection, match_id: str) -> tuple[Match, int]:
        match = self.matches.get(match_id)
        if match is None:
            raise RequestError("unknown_match", f"no match {match_id!r} is being played")
        for held_match, seat in self.member(conn).seats:
            if held_match is match:
                return match, seat
        raise RequestError("not_in_match", f"you hold no seat in match {match_id!r}")

    def resign(
        self, conn: Connection, match_id: str, reason: str | None = None, fault: str | None = None
    ) -> None:
        match, seat = self.seat_of(conn, match_id)
        match.on_resign(seat, reason, fault)

    def rejoin(self, conn: Connection, token: str) -> None:
        found = self.tokens.get(token)
        if found is None:
            raise RequestError("bad_token", "unknown or expired reconnect token")
        match, seat_index = found
        seat = match.seats[seat_index]
        previous = seat.conn
        seat.conn = conn
        seat.disconnected_at = None
        self.member(conn).seats.add((match, seat_index))
        if previous is not None and previous is not conn:
            self.member(previous).seats.discard((match, seat_index))
            previous.send_error(
                "replaced", "another connection took this seat with its token", fatal=True
            )
        log.info("seat_rejoined", match=match.id, seat=seat_index, conn=conn.id)
        match.on_rejoin(seat_index, conn)

    def spectate(self, conn: Connection, match_id: str) -> None:
        if match_id == FOLLOW_ALL:
            self.followers.add(conn)
            for playing in list(self.matches.values()):
                if playing.phase != "over" and not self._follow(conn, playing):
                    return
            if self.remote is not None:
                self.remote.follow_all(conn)
            return
        match = self.matches.get(match_id)
        if match is None and self.remote is not None:
            self.remote.spectate(conn, match_id)
            return
        if match is None:
            raise RequestError("unknown_match", f"no match {match_id!r} is being played")
        limit = self.config.max_spectating
        watching = self.member(conn).watching
        if match not in watching and len(watching) >= limit:
            raise RequestError(
                "limit_reached", f"a connection may watch at most {limit} matches at once"
            )
        match.add_spectator(conn)
        watching.add(match)

    def _follow(self, conn: Connection, match: Match) -> bool:
        """Add a follower to `match`; False (and a non-fatal error) at its limit."""
        watching = self.member(conn).watching
        if conn.closed or match in watching:
            return True
        limit = self.config.max_spectating
        if len(watching) >= limit:
            conn.send_error(
                "limit_reached",
                f"not following match {match.id}: a connection may watch at most {limit}"
                " matches at once",
                match=match.id,
            )
            return False
        match.add_spectator(conn)
        watching.add(match)
        return True

    # --- connection loss ---------------------------------------------------------

    def connection_lost(self, conn: Connection) -> None:
        """Forget the connection everywhere; its seats start their grace period."""
        self.cancel_seeks(conn)
        self.followers.discard(conn)
        held = self.member(conn)
        for name in list(held.directing):
            pool = self.desk.pools.get(name)
            if pool is not None and pool.director is conn:
                pool.director = None
                self.desk.pool_maybe_idle(pool)
                self.desk.pool_changed(name)  # (on a shared database: the pool is released)
        for match in list(held.observing):
            match.observers.discard(conn)
        self.leave_rooms(conn)
        self.ladders.connection_lost(conn, held.ladders)
        for watched in list(held.watching):
            watched.spectators.discard(conn)
        for match, seat_index in list(held.seats):
            seat = match.seats[seat_index]
            if seat.conn is conn:
                seat.conn = None
                seat.disconnected_at = trio.current_time()
                seat.disconnect_code = conn.close_code
                match.on_disconnect(seat_index)
        self.members.pop(conn, None)  # nothing of it is left here


@functools.lru_cache(maxsize=256)
def _cached_game(name: str, options: tuple[tuple[str, str, Any], ...]) -> Game[Any, Any]:
    """Rule objects are immutable: one per (game, options) serves every match."""
    return make_game(name, {key: value for key, _, value in options})
