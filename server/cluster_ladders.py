"""Ladders on a shared database: a ladder's bots may sit on any node, and pair across them.

Why in the database: the ladder's rules are about all its bots (random among
every ready bot of the arena, never the same pair twice in a row, colours
balanced over their whole history), so the ready set and that history live
in the database (`store.interface.LadderTable`), not in one node's memory.

Each node writes which of its bots are ready (a ``seek`` naming the ladder)
and which left, and runs pairing rounds: one transaction under the ladder's
lock, so the rounds of several nodes take turns and a bot is paired once. A
round of node N pairs N's own ready bots, each with a partner at random among
all the ready bots of live nodes (N's or another's) under the same rules as
on one server (`server.ladders.choose_pairs`, `first_mover`); a bot left
without a partner waits in the database, and the next bot that becomes ready,
on any node, takes it. A node runs a round when one of its bots becomes ready,
when a waiting bot's `ladder_repeat_wait` is over, and every `POLL` seconds.

The match is played on N, the pairing node. A partner on another node gets a
seat that waits for it (the reconnect grace) and its node is told, over the
database's notifications, to send it ``redirect`` to N with the seat's token,
as plain seeks do (server/cluster_seeks.py); after the game the bot seeks
again where it is connected. A seat nobody takes (the partner's node died, or
the bot left meanwhile) ends the match aborted: no result, rated for nobody.

A bot taken by another node's round whose ``redirect`` never comes (that node
died between its round and its notification, or could not send it) would
wait for ever: its node still holds it ready, the database does not. So a
node that sees one of its ready bots taken and still not redirected after the
seat's grace (and a round's `POLL`) makes it ready again: by then that seat
has ended. A late ``redirect`` for a bot that is no longer waiting is dropped.

Node death: a dead node's bots leave the ready set once its lease expires
(rounds see only bots of live nodes) and are taken off it when it is reaped;
its running games are aborted by the reaper like every match of a dead node.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal

import msgspec
import structlog
import trio

from protocol.messages import Redirect
from server.cluster import route
from server.ladders import Ladder, Ladders, choose_pairs, first_mover, repeats
from store.errors import StoreError
from store.interface import LadderPairing, LadderRound
from store.matches import MatchTags

if TYPE_CHECKING:
    from server.cluster import Cluster
    from server.connection import Connection
    from server.match import Match

log = structlog.get_logger("arena.cluster")

#: seconds between two rounds of a ladder on a node when nothing wakes it
POLL = 2.0
#: seconds before a round that failed (the database is away) is tried again, at most
RETRY_MAX = 5.0


class _Redirect(msgspec.Struct, frozen=True):
    """What a pairing node tells the node of a bot it paired: send it ``redirect``."""

    ladder: str
    bot: str
    match: str
    token: str
    host: str
    port: int
    kind: Literal["ladder_redirect"] = "ladder_redirect"


class _Pending:
    """One ladder's changes on this node not yet written (sent with the next round)."""

    def __init__(self) -> None:
        self.ready: dict[str, None] = {}
        self.left: dict[str, None] = {}
        self.wake = trio.Event()


class ClusterLadders:
    """This node's part of the arena's ladders (`server.ladders.LadderSpan`)."""

    def __init__(self, ladders: Ladders, cluster: Cluster, nursery: trio.Nursery) -> None:
        self.ladders = ladders
        self.cluster = cluster
        self.nursery = nursery
        #: pairing runs in a worker thread: its own generator, not the lobby's
        self.rng = random.Random(ladders.rng.getrandbits(64))
        self.pending = {name: _Pending() for name in ladders.ladders}
        #: per ladder: our ready bots another node's round took -> when we first saw it
        self.taken: dict[str, dict[str, float]] = {name: {} for name in ladders.ladders}

    # --- what the ladders tell us ------------------------------------------------------

    def ready(self, ladder: Ladder, name: str) -> None:
        pending = self.pending[ladder.name]
        pending.left.pop(name, None)
        pending.ready[name] = None
        pending.wake.set()

    def left(self, ladder: Ladder, name: str) -> None:
        pending = self.pending[ladder.name]
        pending.ready.pop(name, None)
        pending.left[name] = None
        pending.wake.set()

    def republish(self) -> None:
        """This node was declared dead and its bots taken off it in the database: its ready
        bots are ready again (its games were aborted: their bots seek again themselves)."""
        for ladder in self.ladders.ladders.values():
            for name in ladder.ready:
                self.ready(ladder, name)

    # --- pairing -------------------------------------------------------------------------

    async def run(self) -> None:
        """Seed the database's history from the records, then pair every ladder."""
        await self.ladders.seeded.wait()
        async with trio.open_nursery() as nursery:
            for ladder in self.ladders.ladders.values():
                nursery.start_soon(self._pair_loop, ladder, name=f"cluster ladder {ladder.name}")

    async def _seed(self, ladder: Ladder) -> None:
        """A database without this ladder's history gets the one read from the records."""
        while True:
            try:
                await trio.to_thread.run_sync(
                    self.cluster.store.ladders.seed,
                    ladder.name,
                    dict(ladder.firsts),
                    dict(ladder.last),
                )
                return
            except StoreError as exc:
                log.warning("ladder_seed_failed", ladder=ladder.name, error=str(exc))
                await trio.sleep(1.0)

    async def _pair_loop(self, ladder: Ladder) -> None:
        await self._seed(ladder)
        pending = self.pending[ladder.name]
        delay = 0.0
        while True:
            pending.wake = trio.Event()
            ready, left = list(pending.ready), list(pending.left)
            pending.ready.clear()
            pending.left.clear()
            wait = [POLL]
            taken: set[str] = set()
            try:
                pairings = await trio.to_thread.run_sync(
                    self.cluster.store.ladders.pair_round,
                    ladder.name,
                    self.cluster.node,
                    ready,
                    left,
                    self._chooser(ladder, wait, taken),
                )
            except StoreError as exc:  # written with the next round
                log.warning("ladder_round_failed", ladder=ladder.name, error=str(exc))
                for name in ready:
                    if name not in pending.left:
                        pending.ready.setdefault(name, None)
                for name in left:
                    if name not in pending.ready:
                        pending.left.setdefault(name, None)
                delay = min(max(2 * delay, 0.25), RETRY_MAX)
                await trio.sleep(delay)
                continue
            delay = 0.0
            for pairing in pairings:
                self._start(ladder, pairing)
            self._unstrand(ladder, taken)
            with trio.move_on_after(min(wait)):
                await pending.wake.wait()

    def _chooser(
        self, ladder: Ladder, wait: list[float], taken: set[str]
    ) -> Callable[[LadderRound], Sequence[tuple[str, str]]]:
        """The round's decision (run in the worker thread, inside the transaction): this node's
        ready bots, each with a ready bot of any node; `wait` gets when to look again, `taken`
        this node's bots that are not ready in the database."""
        node = self.cluster.node
        repeat_wait = self.ladders.config.ladder_repeat_wait
        rng = self.rng

        def choose(round_: LadderRound) -> list[tuple[str, str]]:
            taken.update(bot.name for bot in round_.bots if bot.node == node and bot.waited is None)
            waited = {bot.name: bot.waited for bot in round_.bots if bot.waited is not None}
            mine = {bot.name for bot in round_.bots if bot.node == node and bot.waited is not None}
            last = {bot.name: bot.last for bot in round_.bots if bot.last}
            alone = len(round_.bots) <= 2

            def may_repeat(a: str, b: str) -> bool:
                return alone or min(waited[a], waited[b]) >= repeat_wait

            pairs = choose_pairs(list(waited), last, may_repeat, rng, mine=mine.__contains__)
            chosen = [first_mover(round_.firsts, a, b, rng) for a, b in pairs]
            paired = {name for pair in pairs for name in pair}
            for name in mine - paired:
                # a bot waiting for someone new: look again when it may repeat
                seconds = waited[name]
                assert seconds is not None
                if (
                    any(repeats(last, name, other) for other in waited if other != name)
                    and seconds < repeat_wait
                ):
                    wait.append(repeat_wait - seconds + 0.05)
            return chosen

        return choose

    def _unstrand(self, ladder: Ladder, taken: set[str]) -> None:
        """Make ready again each bot of ours that waits here but was taken by another node's
        round a seat's grace ago with no ``redirect`` since (module docstring)."""
        now = trio.current_time()
        since = self.taken[ladder.name]
        for name in [name for name in since if name not in taken or name not in ladder.ready]:
            del since[name]
        patience = ladder.policy.reconnect_grace + POLL
        for name in taken:
            if name not in ladder.ready:
                continue
            first = since.setdefault(name, now)
            if now - first > patience:
                del since[name]
                log.warning("ladder_redirect_never_came", ladder=ladder.name, bot=name)
                self.ready(ladder, name)

    def _start(self, ladder: Ladder, pairing: LadderPairing) -> None:
        """Play a paired game here: this node's bots take their seats, another node's bot is
        sent ``redirect`` by its node (a bot gone meanwhile: its seat waits, then aborts)."""
        node = self.cluster.node
        player_of: dict[str, Connection | str] = {}
        remote: list[tuple[str, str]] = []
        for name, where in (
            (pairing.first, pairing.first_node),
            (pairing.second, pairing.second_node),
        ):
            ladder.ready.pop(name, None)
            conn = ladder.bots.get(name) if where == node else None
            player_of[name] = conn if conn is not None and not conn.closed else name
            if where != node:
                remote.append((name, where))
        seats = ladder.seats(pairing.first, pairing.second)
        ladder.remember(seats)
        match = self.ladders.host.start_match(
            ladder.game,
            [player_of[name] for name in seats],
            ladder.policy,
            tags=MatchTags(ladder=ladder.name),
            clock=ladder.clock,
        )
        ladder.playing[match.id] = match
        log.info(
            "ladder_paired",
            ladder=ladder.name,
            match=match.id,
            players=seats,
            across=[where for _, where in remote],
        )
        for name, where in remote:
            self.nursery.start_soon(self._redirect, ladder, match, name, where)

    async def _redirect(self, ladder: Ladder, match: Match, name: str, where: str) -> None:
        """Tell the bot's node to send it ``redirect`` to this node's match."""
        seat = next(s for s in match.seats if s.conn is None and s.name == name)
        host, _, port = self.cluster.address.rpartition(":")
        payload = msgspec.json.encode(
            _Redirect(ladder.name, name, match.id, seat.token, host, int(port))
        ).decode()
        try:
            await trio.to_thread.run_sync(self.cluster.store.nodes.notify, where, payload)
        except StoreError as exc:  # the seat waits out its grace: the match is aborted
            log.warning("ladder_redirect_not_sent", match=match.id, node=where, error=str(exc))

    # --- what other nodes tell us ------------------------------------------------------

    def route(self, other: Callable[[str], None] | None) -> Callable[[str], None]:
        """The node's message handler: ladder redirects here, the rest to `other`."""
        return route(msgspec.json.Decoder(_Redirect).decode, self.on_redirect, other)

    def on_redirect(self, note: _Redirect) -> None:
        """A bot of ours was paired on another node: send it ``redirect`` there."""
        ladder = self.ladders.ladders.get(note.ladder)
        conn = None if ladder is None else ladder.bots.get(note.bot)
        if ladder is None or conn is None or conn.closed:
            log.info("ladder_redirect_for_a_gone_bot", ladder=note.ladder, bot=note.bot)
            return
        if note.bot not in ladder.ready:  # made ready again and paired since: too late
            log.info("ladder_redirect_for_a_busy_bot", ladder=note.ladder, bot=note.bot)
            return
        self.taken[ladder.name].pop(note.bot, None)
        ladder.ready.pop(note.bot, None)
        conn.send(Redirect(match=note.match, host=note.host, port=note.port, token=note.token))
        log.info("ladder_redirected", ladder=ladder.name, bot=note.bot, match=note.match)
