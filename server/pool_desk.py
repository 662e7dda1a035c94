"""The director's desk: pools, their owners, pairing on request and tournament games.

Why an object the lobby holds: these requests come from tournament directors
and touch only pools, their seekers and the tournament games they start. The
lobby (open seeks, rooms, seats) owns the desk and lends it the few things it
needs through `PoolHost` (games, the move-time policy, the store's health,
starting a match), so neither reaches into the other's state.

On a database shared by several servers a pool spans them: the desk's
`span` (server/cluster_pools.py) is told of every change of a pool here,
claims pools and pairs their seekers in the database; the desk keeps the
checks and starts the matches, as on a single server.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

import structlog
import trio

from games import Game, InvalidMoveError, Termination
from protocol.messages import Adjudicate, Direct, Directing, MatchEnd, Pair, Paired, PoolStatus
from server.errors import RequestError
from server.pools import Pool, PooledSeek, new_owner_key, owner_digest
from store.matches import MatchTags

if TYPE_CHECKING:
    from server.config import MatchPolicy, ServerConfig
    from server.connection import Connection
    from server.match import Match
    from server.membership import Membership
    from store import TournamentGame

log = structlog.get_logger("arena.server")

#: what a ``pair`` plays: the game, its move time and the opening's moves
PairTerms = tuple[Game[Any, Any], float, list[Any]]


class PoolSpan(Protocol):
    """Pools that span the nodes of a shared database (server/cluster_pools.py): told of
    every change of a pool here, and pairs in the database instead of here."""

    def changed(self, pool: str) -> None: ...

    async def direct(self, conn: Connection, message: Direct) -> None: ...

    async def pair(self, conn: Connection, message: Pair, ended: TournamentGame | None) -> None: ...


class PoolHost(Protocol):
    """What the desk needs of the lobby that holds it."""

    config: ServerConfig
    matches: dict[str, Match]

    def game_for(self, name: str, options: dict[str, Any]) -> Game[Any, Any]: ...

    def move_time(self, requested: float | None) -> float: ...

    def require_store(self) -> None: ...

    def start_match(
        self,
        game: Game[Any, Any],
        players: Sequence[Connection | str],
        policy: MatchPolicy,
        **kwargs: Any,
    ) -> Match: ...

    def member(self, conn: Connection) -> Membership: ...


class PoolDesk:
    """Pools and tournament requests, held by the lobby (`PoolHost`)."""

    def __init__(self, host: PoolHost) -> None:
        self.host = host
        self.pools: dict[str, Pool] = {}
        # live tournament games by (owner, tournament, index): a game is played once
        self.tournament_games: dict[tuple[str, str, int], Match] = {}
        #: on a shared database: the pools span the nodes (None: they are this server's)
        self.span: PoolSpan | None = None

    @property
    def config(self) -> ServerConfig:
        return self.host.config

    def check_pool_room(self) -> None:
        if len(self.pools) >= self.config.max_pools:
            raise RequestError(
                "limit_reached", f"this server holds {self.config.max_pools} pools already"
            )

    def pool_maybe_idle(self, pool: Pool) -> None:
        """A pool left without director and seekers: forgotten now if nobody owns it, else later."""
        if not pool.empty:
            return
        if pool.owner is None:
            self.pools.pop(pool.name, None)
        elif pool.idle_since is None:
            pool.idle_since = trio.current_time()

    def reclaim_pools(self) -> int:
        """Forget owned pools that have been idle for `pool_grace` seconds; returns how many."""
        cutoff = trio.current_time() - self.config.pool_grace
        stale = [
            name
            for name, pool in self.pools.items()
            if pool.empty and pool.idle_since is not None and pool.idle_since <= cutoff
        ]
        for name in stale:
            del self.pools[name]
        if stale:
            log.info("pools_reclaimed", count=len(stale))
        return len(stale)

    # --- pools and their directors (tournaments) ----------------------------------

    def pool_changed(self, pool: str) -> None:
        """Tell the pool's director who is idle now (on a shared database, the span does,
        from every node's seekers)."""
        if self.span is not None:
            self.span.changed(pool)
            return
        found = self.pools.get(pool)
        if found is not None and found.director is not None:
            found.director.send(PoolStatus(pool=pool, idle=found.idle_counts()))

    def direct(self, conn: Connection, message: Direct) -> None:
        """Direct a pool: claim it (new, or never directed) or take it over with its owner key."""
        pool = self.pools.get(message.pool)
        if pool is not None and pool.owner is not None and not pool.owned_by(message.owner):
            raise RequestError(
                "not_owner",
                f"pool {message.pool!r} belongs to another owner: direct it with its owner key",
            )
        self.check_directing(conn, message.pool)
        key = message.owner
        if pool is None or pool.owner is None:
            key = key or new_owner_key()
        self.take_direction(conn, message, key)

    def check_directing(self, conn: Connection, name: str) -> None:
        """Refuse a ``direct`` over this server's limits (pools, pools per connection)."""
        limit = self.config.max_pools_per_connection
        directing = self.host.member(conn).directing
        if name not in directing and len(directing) >= limit:
            raise RequestError("limit_reached", f"a connection may direct at most {limit} pools")
        if name not in self.pools:
            self.check_pool_room()

    def take_direction(self, conn: Connection, message: Direct, key: str) -> None:
        """Make `conn` the director of the pool (made now if new), whose owner key is `key`;
        its previous director is told ``director_replaced``."""
        pool = self.pools.get(message.pool)
        if pool is None:
            pool = self.pools[message.pool] = Pool(message.pool)
        pool.owner = owner_digest(key)
        self.replace_director(pool, conn)
        self.host.member(conn).directing.add(pool.name)
        pool.players = {p.name: p.secret for p in message.players}
        kept = []  # drop waiting seekers the director does not admit
        for entry in pool.seeks:
            if pool.admits(entry.conn.name, entry.seek.secret):
                kept.append(entry)
            else:
                self.host.member(entry.conn).pool_seeks.discard(pool.name)
                entry.conn.send_error(
                    "bad_secret",
                    f"{entry.conn.name!r} is not admitted to pool {pool.name!r}"
                    " (unknown name or wrong secret)",
                )
        pool.seeks = kept
        log.info("pool_directed", pool=pool.name, players=sorted(pool.players))
        conn.send(Directing(pool=pool.name, owner=key))
        self.pool_changed(pool.name)

    def replace_director(self, pool: Pool, conn: Connection | None) -> None:
        """`conn` directs the pool now (None: nobody here); the previous director is told."""
        previous = pool.director
        if previous is not None and previous is not conn:
            self.host.member(previous).directing.discard(pool.name)
            previous.send_error(
                "director_replaced",
                f"pool {pool.name!r} is now directed by another connection with its owner key",
            )
        pool.director = conn
        if conn is None:
            self.pool_maybe_idle(pool)
        else:
            pool.idle_since = None

    def check_director(self, conn: Connection, pool: str) -> Pool:
        found = self.pools.get(pool)
        if found is None or found.director is not conn:
            raise RequestError("not_director", f"you do not direct pool {pool!r}")
        return found

    def pool_owner(self, pool: str) -> str:
        """The owner digest of a pool ("" if it has none): tournament games are the owner's."""
        found = self.pools.get(pool)
        return "" if found is None or found.owner is None else found.owner

    def live_tournament_game(self, message: Pair) -> Match | None:
        if not message.tournament:
            return None
        key = (self.pool_owner(message.pool), message.tournament, message.index)
        return self.tournament_games.get(key)

    def pair(self, conn: Connection, message: Pair, ended: TournamentGame | None = None) -> None:
        """Start the match a director asks for, unless that tournament game exists already.

        A tournament game (``tournament``, ``index``) is played once: while it is
        being played, or once it has a finished result (`ended`, looked up by the
        caller), the director is told which match it is (``paired`` with
        ``existing``) and gets its ``match_end``; no players are taken.
        """
        pool = self.check_director(conn, message.pool)
        if self.answer_existing(conn, message, ended):
            return
        game, move_time, opening = self.pair_terms(message)
        entries = pool.seeks
        chosen: list[PooledSeek] = []
        for name in message.seats:
            entry = next(
                (
                    e
                    for e in entries
                    if e.conn.name == name
                    and e not in chosen
                    and not e.conn.closed
                    and e.game.name == game.name
                    and e.game.options == game.options
                ),
                None,
            )
            if entry is None:
                raise not_available(name, game, message.pool)
            chosen.append(entry)
        pool.seeks = [e for e in entries if e not in chosen]
        for entry in chosen:
            self.host.member(entry.conn).pool_seeks.discard(pool.name)
        self.start_paired(conn, pool, message, (game, move_time, opening), [e.conn for e in chosen])

    def answer_existing(
        self, conn: Connection, message: Pair, ended: TournamentGame | None
    ) -> bool:
        """If the tournament game of a ``pair`` is being played or has ended, tell the
        director (``paired`` with ``existing``, and its ``match_end``): True."""
        live = self.live_tournament_game(message)
        if live is not None:
            live.observers.add(conn)
            self.host.member(conn).observing.add(live)
            conn.send(Paired(pool=message.pool, index=message.index, match=live.id, existing=True))
            self.pool_changed(message.pool)  # no players were taken: a fresh view
            return True
        if ended is None:
            return False
        conn.send(
            Paired(pool=message.pool, index=message.index, match=ended.record.id, existing=True)
        )
        result = ended.result
        conn.send(
            MatchEnd(
                match=ended.record.id,
                ply=result.plies,
                scores=list(result.scores),
                winner=result.winner,
                termination=result.termination,
                reason=result.reason,
                points=None if result.points is None else list(result.points),
                recorded=ended.recorded,
            )
        )
        log.info("pair_existing", pool=message.pool, index=message.index, match=ended.record.id)
        self.pool_changed(message.pool)  # no players were taken: a fresh view
        return True

    def pair_terms(self, message: Pair) -> PairTerms:
        """The game, move time and opening of a ``pair``, checked before any player is taken."""
        game = self.host.game_for(message.game, message.options)
        move_time = self.host.move_time(message.move_time)
        self.host.require_store()
        if len(message.seats) != game.num_players:
            raise RequestError(
                "bad_request",
                f"{game.name} needs {game.num_players} seats, not {len(message.seats)}",
            )
        return game, move_time, _opening_moves(game, message.opening)

    def start_paired(
        self,
        conn: Connection,
        pool: Pool,
        message: Pair,
        terms: PairTerms,
        players: list[Connection | str],
    ) -> Match:
        """Start a paired match with its players (in seat order; a name: a player still to
        come, from another node), and tell the director (``paired``, then its ``match_end``)."""
        game, move_time, opening = terms
        tags = MatchTags(
            index=message.index,
            seats=tuple(message.seats),
            pool=message.pool,
            owner=pool.owner,  # only the pool owner's games are this tournament's
            opening=tuple(message.opening) if opening else (),
        )
        match = self.host.start_match(
            game,
            players,
            replace(self.config.policy, move_time=move_time),
            tournament=message.tournament or None,
            tags=tags,
            seed=message.seed,
            opening=opening,
            max_plies=message.max_plies,
        )
        if message.tournament:
            self.tournament_games[(pool.owner or "", message.tournament, message.index)] = match
        match.observers.add(conn)
        self.host.member(conn).observing.add(match)
        conn.send(Paired(pool=message.pool, index=message.index, match=match.id))
        self.pool_changed(message.pool)
        return match

    def adjudicate(self, conn: Connection, message: Adjudicate) -> None:
        """End a match at the director's word, if it still stands at the ply it judged."""
        match = self.host.matches.get(message.match)
        if match is None:
            raise RequestError("unknown_match", f"no match {message.match!r} is being played")
        name = match.tags.pool
        pool = self.pools.get(name) if name is not None else None
        if pool is None or pool.director is not conn or match.tags.owner != pool.owner:
            raise RequestError("not_director", f"you do not direct match {match.id!r}")
        if message.winner is not None and message.winner >= match.game.num_players:
            raise RequestError("bad_request", f"seat {message.winner} does not exist")
        if match.ply != message.ply or match.phase in ("over", "starting"):
            raise RequestError(
                "stale_position", f"match {match.id} is at ply {match.ply}, not {message.ply}"
            )
        match.on_adjudicate(message.winner, Termination(message.termination), message.reason)


def not_available(name: str, game: Game[Any, Any], pool: str) -> RequestError:
    return RequestError("not_available", f"no idle {name!r} of {game.describe()} in pool {pool!r}")


def _opening_moves(game: Game[Any, Any], wire_moves: list[Any]) -> list[Any]:
    """Decode and check an opening against the rules (a RequestError names the bad move)."""
    state = game.initial_state()
    moves = []
    for number, wire in enumerate(wire_moves, start=1):
        try:
            move = game.decode_move(wire)
        except InvalidMoveError as exc:
            raise RequestError("bad_request", f"opening move {number}: {exc}") from None
        if game.is_terminal(state) or move not in game.legal_moves(state):
            raise RequestError(
                "bad_request",
                f"opening move {number} ({game.format_move(move)}) is not legal in its position",
            )
        state = game.apply(state, move)
        moves.append(move)
    if game.is_terminal(state):
        raise RequestError("bad_request", "the opening ends the game")
    return moves
