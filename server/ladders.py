"""Ladders: bots that stay, paired continuously, one game after another (docs/LADDER.md).

Why pairing the server owns, beside the lobby's seeks: a ladder has no
director and no schedule. Each bot says it is ready with a ``seek`` that
names the ladder (again after each game: a bot whose program must restart
after a crash says so only when it is back), and the ladder's pairing task
pairs whoever is ready, at once:

* at random among the ready;
* never a pair whose either bot's last game was against the other, while the
  ladder holds another bot who may become ready; such a pair plays only when
  nobody else is in the ladder, or after both waited `ladder_repeat_wait`;
* colours balanced: of two bots, the one that moved first less often against
  the other moves first (a tie: at random).

A bot is in the ladder while its connection is open: a lost connection (a
killed process, or one silent past the idle timeout) leaves the ladder at
once, and its running game waits the reconnect grace as any other; a bot
rejoins by connecting and seeking again. A name is one bot: a second
connection of the same name takes the first one's place (it is told
``ladder_replaced``). Everything here runs on the event loop without
waiting, as the lobby does; the matches are the lobby's, tagged with the
ladder's name so that their records say which ladder played them.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
import structlog
import trio

from games import Game
from protocol.messages import Clock, Seek, Seeking
from server.errors import RequestError
from server.ladder_spec import LadderSpec
from store.matches import MatchTags

if TYPE_CHECKING:
    from server.config import MatchPolicy, ServerConfig
    from server.connection import Connection
    from server.match import Match
    from server.membership import Membership

log = structlog.get_logger("arena.server")

#: names a bot of a ladder may not have: in its page's address (``/ladders/L/bots/NAME``)
#: a browser reads them as "this folder" and "the folder above"
DOT_SEGMENTS = frozenset({".", ".."})


class LadderHost(Protocol):
    """What the ladders need of the lobby that holds them."""

    config: ServerConfig

    def game_for(self, name: str, options: dict[str, Any]) -> Game[Any, Any]: ...

    def require_store(self) -> None: ...

    def start_match(
        self,
        game: Game[Any, Any],
        players: Sequence[Connection | str],
        policy: MatchPolicy,
        **kwargs: Any,
    ) -> Match: ...

    def member(self, conn: Connection) -> Membership: ...


class LadderSpan(Protocol):
    """Pairing across the nodes of a shared database (server/cluster_ladders.py): told
    which of this node's bots are ready and which left; it pairs in place of `Ladders.pair`."""

    def ready(self, ladder: Ladder, name: str) -> None: ...

    def left(self, ladder: Ladder, name: str) -> None: ...

    async def run(self) -> None: ...


@dataclass(eq=False)
class Ladder:
    """One ladder's bots, who is ready, and what pairing remembers of their games."""

    spec: LadderSpec
    game: Game[Any, Any]
    policy: MatchPolicy
    clock: Clock | None
    #: the seat that moves first in the game
    first_seat: int
    #: the bots in the ladder now, by name: each one's connection
    bots: dict[str, Connection] = field(default_factory=dict)
    #: the bots ready for their next game (an open seek), by name: since when
    ready: dict[str, float] = field(default_factory=dict)
    #: each bot's last opponent in this ladder
    last: dict[str, str] = field(default_factory=dict)
    #: (a, b): the games a moved first against b
    firsts: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: the games being played, by match id
    playing: dict[str, Match] = field(default_factory=dict)
    #: games ended since the server started (the ratings are refitted after new ones)
    ended: int = 0
    wake: trio.Event = field(default_factory=trio.Event)

    @property
    def name(self) -> str:
        return self.spec.name

    def busy(self) -> set[str]:
        return {name for match in self.playing.values() for name in match.players}

    def seats(self, first: str, second: str) -> list[str]:
        """The players by seat, of a game `first` moves first in."""
        return [first, second] if self.first_seat == 0 else [second, first]

    def remember(self, players: Sequence[str]) -> None:
        """A game between `players` (seat order) was paired or played: who met whom, who
        moved first."""
        first = players[self.first_seat]
        second = players[1 - self.first_seat]
        self.last[first], self.last[second] = second, first
        self.firsts[(first, second)] += 1


def repeats(last: dict[str, str], a: str, b: str) -> bool:
    """Whether a game of `a` and `b` repeats either one's last game."""
    return last.get(a) == b or last.get(b) == a


def choose_pairs(
    ready: Sequence[str],
    last: dict[str, str],
    may_repeat: Any,
    rng: random.Random,
    mine: Callable[[str], bool] | None = None,
) -> list[tuple[str, str]]:
    """Pairs of the `ready` bots, at random, none repeating a bot's last game unless
    `may_repeat(a, b)` allows it (a greedy pass over a shuffled order). With `mine`, each
    pair has a bot `mine` accepts (a node pairs its own bots, with any ready bot)."""
    order = list(ready)
    rng.shuffle(order)
    pairs: list[tuple[str, str]] = []
    left = order
    while len(left) >= 2:
        a = next((name for name in left if mine is None or mine(name)), None)
        if a is None:
            break
        left.remove(a)
        partner = next((b for b in left if not repeats(last, a, b)), None)
        if partner is None:
            partner = next((b for b in left if may_repeat(a, b)), None)
        if partner is None:
            continue  # a waits for someone it has not just played
        left.remove(partner)
        pairs.append((a, partner))
    return pairs


def first_mover(
    firsts: Mapping[tuple[str, str], int], a: str, b: str, rng: random.Random
) -> tuple[str, str]:
    """(first mover, second mover): of `a` and `b`, who moved first less often against the
    other (`firsts`) moves first (a tie: at random)."""
    ab, ba = firsts.get((a, b), 0), firsts.get((b, a), 0)
    if ab != ba:
        return (a, b) if ab < ba else (b, a)
    first, second = rng.sample((a, b), 2)
    return first, second


def seat_order(ladder: Ladder, a: str, b: str, rng: random.Random) -> list[str]:
    """The players by seat: of `a` and `b`, who moved first less often against the other
    moves first (a tie: at random)."""
    first, second = first_mover(ladder.firsts, a, b, rng)
    return ladder.seats(first, second)


class Ladders:
    """The server's ladders, held by the lobby (`LadderHost`); `run` pairs them."""

    def __init__(self, host: LadderHost, rng: random.Random) -> None:
        self.host = host
        self.rng = rng
        self.ladders: dict[str, Ladder] = {}
        #: on a shared database: pairs the ladders across the nodes (None: here, in memory)
        self.span: LadderSpan | None = None
        #: set once the ladders' past games are known (`seed`): pairing waits for it
        self.seeded = trio.Event()
        #: a ladder's resident bots for `view` (server/ladder_residents.py), if any
        self.resident_view: Callable[[str], list[dict[str, Any]]] | None = None
        for spec in host.config.ladders:
            game = host.game_for(spec.game, spec.option_dict)
            move_time = spec.move_time
            clock = spec.clock
            policy = host.config.policy
            if move_time is None and clock is None:
                clock = policy.clock  # the server's default time control
            if move_time is not None:
                policy = replace(policy, move_time=move_time)
            self.ladders[spec.name] = Ladder(
                spec, game, policy, clock, first_seat=game.to_move(game.initial_state())
            )

    @property
    def config(self) -> ServerConfig:
        return self.host.config

    # --- requests ------------------------------------------------------------------

    def seek(self, conn: Connection, message: Seek) -> None:
        """A bot is ready for its next game of a ladder (checked before anything changes)."""
        ladder = self.ladders.get(message.ladder)
        if ladder is None:
            known = ", ".join(self.ladders) or "none"
            raise RequestError(
                "unknown_ladder", f"no ladder {message.ladder!r} here (ladders: {known})"
            )
        game = ladder.game
        if message.game != game.name:
            raise RequestError(
                "bad_request", f"ladder {ladder.name!r} plays {game.name}, not {message.game!r}"
            )
        if message.options and self.host.game_for(game.name, message.options).options != (
            game.options
        ):
            raise RequestError(
                "bad_request",
                f"ladder {ladder.name!r} plays {game.describe()}: leave out the options,"
                " or give the ladder's",
            )
        if message.move_time is not None or message.clock is not None or message.any_time:
            raise RequestError(
                "bad_request",
                f"ladder {ladder.name!r} has its own time control: seek it without one",
            )
        if message.pool:
            raise RequestError("bad_request", "a seek names a ladder or a pool, not both")
        self.host.require_store()
        name = conn.name
        if name in DOT_SEGMENTS:
            raise RequestError(
                "bad_request",
                f"a ladder bot cannot be named {name!r}: its page's address would be another's",
            )
        previous = ladder.bots.get(name)
        if previous is not None and previous is not conn:
            self.host.member(previous).ladders.discard(ladder.name)
            previous.send_error(
                "ladder_replaced",
                f"another connection of {name!r} joined ladder {ladder.name!r} in this one's place",
            )
            log.info("ladder_replaced", ladder=ladder.name, bot=name)
        joined = name not in ladder.bots
        ladder.bots[name] = conn
        self.host.member(conn).ladders.add(ladder.name)
        ladder.ready.setdefault(name, trio.current_time())
        if joined:
            log.info("ladder_joined", ladder=ladder.name, bot=name, bots=len(ladder.bots))
        conn.send(
            Seeking(
                game=game.name,
                options=game.options,
                move_time=ladder.policy.move_time,
                clock=ladder.clock,
                ladder=ladder.name,
            ),
            urgent=False,  # rides with match_start when it pairs at once
        )
        if self.span is not None:
            self.span.ready(ladder, name)
        ladder.wake.set()

    def connection_lost(self, conn: Connection, names: Iterable[str]) -> None:
        """The connection leaves the ladders `names` (its running games wait their grace)."""
        for name in names:
            ladder = self.ladders.get(name)
            if ladder is None or ladder.bots.get(conn.name) is not conn:
                continue
            del ladder.bots[conn.name]
            ladder.ready.pop(conn.name, None)
            log.info("ladder_left", ladder=name, bot=conn.name, bots=len(ladder.bots))
            if self.span is not None:
                self.span.left(ladder, conn.name)
            ladder.wake.set()  # who waited for it to play someone else may repeat now

    def match_over(self, match: Match) -> None:
        """A ladder game ended (recorded, or aborted): its bots may be paired again."""
        ladder = self.ladders.get(match.tags.ladder or "")
        if ladder is None or ladder.playing.pop(match.id, None) is None:
            return
        ladder.ended += 1
        ladder.wake.set()

    # --- pairing -------------------------------------------------------------------

    async def run(self) -> None:
        """Pair every ladder's ready bots, for as long as the server runs."""
        if self.span is not None:
            await self.span.run()
            return
        async with trio.open_nursery() as nursery:
            for ladder in self.ladders.values():
                nursery.start_soon(self._pair_loop, ladder, name=f"ladder {ladder.name}")

    async def _pair_loop(self, ladder: Ladder) -> None:
        await self.seeded.wait()  # who moved first against whom, from the records
        while True:
            ladder.wake = trio.Event()
            deadline = self.pair(ladder)
            with trio.move_on_at(deadline):
                await ladder.wake.wait()

    def pair(self, ladder: Ladder) -> float:
        """Start the games of the bots ready now; returns when to look again (at the latest)."""
        now = trio.current_time()
        busy = ladder.busy()
        ready = [
            name
            for name in ladder.ready
            if name not in busy and name in ladder.bots and not ladder.bots[name].closed
        ]
        if len(ready) < 2:
            return float("inf")
        if not self.host_accepting():
            return now + 1.0  # the store's queue is full: look again soon
        wait = self.config.ladder_repeat_wait

        def may_repeat(a: str, b: str) -> bool:
            alone = len(ladder.bots) <= 2
            waited = max(ladder.ready[a], ladder.ready[b]) + wait <= now
            return alone or waited

        for a, b in choose_pairs(ready, ladder.last, may_repeat, self.rng):
            players = seat_order(ladder, a, b, self.rng)
            for name in players:
                del ladder.ready[name]
            ladder.remember(players)
            match = self.host.start_match(
                ladder.game,
                [ladder.bots[name] for name in players],
                ladder.policy,
                tags=MatchTags(ladder=ladder.name),
                clock=ladder.clock,
            )
            ladder.playing[match.id] = match
            log.info("ladder_paired", ladder=ladder.name, match=match.id, players=players)
        # the bots left waiting for a new opponent may play each other once they waited
        later = [since + wait for since in ladder.ready.values() if since + wait > now]
        return min(later, default=float("inf"))

    def host_accepting(self) -> bool:
        try:
            self.host.require_store()
        except RequestError:
            return False
        return True

    def seed(self, name: str, games: Iterable[Sequence[str]]) -> None:
        """The players (seat order) of `name`'s recorded games, oldest first: who last met
        whom and who moved first, as if this server had paired them."""
        ladder = self.ladders.get(name)
        if ladder is None:
            return
        for players in games:
            if len(players) == 2 and players[0] != players[1]:
                ladder.remember(players)

    # --- views ---------------------------------------------------------------------

    def view(self, name: str) -> dict[str, Any] | None:
        """What the ladder is doing now (the web API's live part), None if no such ladder."""
        ladder = self.ladders.get(name)
        if ladder is None:
            return None
        return {
            "bots": sorted(ladder.bots),
            "ready": sorted(ladder.ready),
            "playing": [
                {"match": match.id, "players": match.players, "ply": match.ply}
                for match in ladder.playing.values()
            ],
            "residents": self.residents(name),
        }

    def residents(self, name: str) -> list[dict[str, Any]]:
        """The ladder's resident bots: running or not, restarts, last exit ([] if none)."""
        return [] if self.resident_view is None else self.resident_view(name)

    def describe(self, ladder: Ladder) -> dict[str, Any]:
        """The ladder's terms: game, options, time control, anchors."""
        return {
            "name": ladder.name,
            "game": ladder.game.name,
            "options": ladder.game.options,
            "move_time": ladder.policy.move_time if ladder.clock is None else None,
            "clock": None if ladder.clock is None else msgspec.to_builtins(ladder.clock),
            "anchors": dict(ladder.spec.anchors),
        }
