"""A terminal spectator: watch one match, or every match a server is playing.

One connection in the spectator role. `watch_match` spectates one match
until its end; `watch_all` has the server follow every match for it
(``spectate "*"``: each new match from its start; an older server is asked
for its list every few seconds instead), on the same connection, printing each
match's moves as they come (blocks of different matches interleave, each
headed by its id).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import structlog
import trio

from games import Game, GameError, make_game
from player.client import (
    ClientError,
    Connection,
    Connector,
    ServerRejected,
    open_connection,
)
from player.errors import UnknownMatch as UnknownMatch
from player.timefmt import clocks_line
from protocol.messages import (
    FOLLOW_ALL,
    Error,
    ListMatches,
    MatchEnd,
    Matches,
    MatchInfo,
    MatchStart,
    Resumed,
    Scoring,
    Spectate,
    TimeControl,
    Update,
)

log = structlog.get_logger("arena.watch")

HANDSHAKE_TIMEOUT = 5.0
#: statuses of a listed match that are not worth spectating
OVER = frozenset({"finished", "aborted"})


def _describe(tc: TimeControl) -> str:
    """``5+3 clock`` or ``1 s per move`` (what a spectator is told at the start)."""
    if tc.clock is not None:
        return f"{tc.clock.label()} clock"
    return f"{tc.move_time:g} s per move"


@dataclass
class MatchView:
    """What a spectator knows of one match, and how it is printed."""

    match: str
    game_name: str
    game: Game[Any, Any] | None  # None when the game is not installed here
    players: tuple[str, ...]
    move_time: float
    state: Any
    ply: int
    time_control: str = ""

    @classmethod
    def from_start(cls, start: MatchStart) -> MatchView:
        try:
            game: Game[Any, Any] | None = make_game(start.game, start.options)
        except ValueError:
            game = None
        view = cls(start.match, start.game, game, tuple(start.players), 0.0, None, start.ply)
        view.move_time = start.time_control.move_time
        view.time_control = _describe(start.time_control)
        view.state = view._decode(start.state)
        return view

    def _decode(self, data: Any) -> Any:
        if self.game is None:
            return None
        try:
            return self.game.decode_state(data)
        except GameError:
            return None

    def seat_label(self, seat: int) -> str:
        """``X (alice)``: the seat's symbol and its player's name."""
        names = self.game.seat_names if self.game is not None else ()
        symbol = names[seat] if seat < len(names) else f"seat {seat}"
        player = self.players[seat] if seat < len(self.players) else "?"
        return f"{symbol} ({player})"

    def board(self) -> str:
        if self.game is None:
            return f"(no board: game {self.game_name!r} is not installed here)"
        if self.state is None:
            return "(no board: the server sent a state this client cannot read)"
        return self.game.render(self.state)

    def start_text(self) -> str:
        title = self.game.describe() if self.game is not None else self.game_name
        seats = ", ".join(self.seat_label(s) for s in range(len(self.players)))
        lines = [
            f"=== match {self.match}: {title}; {seats}; {self.time_control or f'{self.move_time:g} s per move'} ===",
            self.board(),
        ]
        if (
            self.game is not None
            and self.state is not None
            and not self.game.is_terminal(self.state)
        ):
            lines.append(
                f"[{self.match}] ply {self.ply}, {self.seat_label(self.game.to_move(self.state))} to move"
            )
        return "\n".join(lines)

    def apply(self, update: Update) -> str:
        """Take in an update; the text to print for it."""
        self.state = self._decode(update.state)
        self.ply = update.ply
        head = (
            f"[{self.match}] ply {update.ply}: {self.seat_label(update.seat)} played"
            f" {update.notation} in {update.think_time:.2f} s"
        )
        if update.clocks is None:
            return f"{head}\n{self.board()}"
        to_move = None
        game, state = self.game, self.state
        if game is not None and state is not None and not game.is_terminal(state):
            to_move = game.to_move(state)
        labels = [self.seat_label(s) for s in range(len(self.players))]
        return f"{head}\n{self.board()}\n{clocks_line(labels, update.clocks, to_move)}"

    def scoring_text(self, scoring: Scoring) -> str:
        """Both people passed: the dead stones marked so far and the count without them."""
        game, state = self.game, self.state
        dead = frozenset(scoring.dead)
        if game is not None and state is not None:
            names = " ".join(game.format_move(point) for point in sorted(dead)) or "none"
        else:
            names = " ".join(str(point) for point in sorted(dead)) or "none"
        accepted = ", ".join(
            f"{self.seat_label(seat)} {'accepted' if ok else 'has not accepted'}"
            for seat, ok in enumerate(scoring.accepted)
        )
        margin = scoring.points[0] if scoring.points else 0.0
        count = "0" if margin == 0 else f"{'BW'[margin < 0]}+{abs(margin):g}"
        return (
            f"[{self.match}] both passed, dead stones: {names}; counted without them:"
            f" {count}; {accepted}"
        )

    def end_text(self, end: MatchEnd) -> str:
        if end.winner is None:
            verdict = "draw"
        else:
            verdict = f"{self.seat_label(end.winner)} wins"
        scores = "-".join({1.0: "1", 0.0: "0", 0.5: "1/2"}.get(s, f"{s:g}") for s in end.scores)
        reason = f" ({end.reason})" if end.reason else ""
        return (
            f"=== match {self.match} over after {end.ply} plies: {scores}, {verdict}"
            f" by {end.termination}{reason} ==="
        )


class Spectator:
    """Turns spectator messages into text on `out`; remembers the matches it follows."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out if out is not None else sys.stdout
        self.views: dict[str, MatchView] = {}
        self.ended: list[MatchEnd] = []

    def write(self, text: str) -> None:
        self.out.write(text + "\n")
        self.out.flush()

    def handle(self, message: Any) -> MatchEnd | None:
        """Print what `message` says; return it if it ends a followed match."""
        if isinstance(message, MatchStart):
            started = MatchView.from_start(message)
            self.views[started.match] = started
            self.write(started.start_text())
        elif isinstance(message, Update) and message.match in self.views:
            self.write(self.views[message.match].apply(message))
        elif isinstance(message, Scoring) and message.match in self.views:
            self.write(self.views[message.match].scoring_text(message))
        elif isinstance(message, Resumed) and message.match in self.views:
            view = self.views[message.match]
            self.write(f"[{message.match}] {view.seat_label(message.seat)} resumed play")
        elif isinstance(message, MatchEnd) and message.match in self.views:
            self.write(self.views.pop(message.match).end_text(message))
            self.ended.append(message)
            return message
        return None


def _name() -> str:
    return f"watch-{os.getpid()}"


def _progress(line: str) -> None:
    """A connect retry, said on standard error (``connecting to HOST:PORT, retry 3 ...``)."""
    print(line, file=sys.stderr, flush=True)


async def _connect(host: str, port: int, connect: Connector | None, wait: float) -> Connection:
    conn = await open_connection(host, port, wait=wait, connect=connect, on_retry=_progress)
    try:
        await conn.handshake_within(HANDSHAKE_TIMEOUT, _name(), "spectator")
    except BaseException:
        await conn.aclose()
        raise
    return conn


async def list_matches(
    host: str, port: int, *, connect: Connector | None = None, connect_wait: float = 0.0
) -> list[MatchInfo]:
    """The matches the server is playing now."""
    conn = await _connect(host, port, connect, connect_wait)
    try:
        await conn.send(ListMatches())
        while True:
            message = await conn.receive()
            if isinstance(message, Matches):
                return list(message.matches)
            if isinstance(message, Error):
                raise ServerRejected(message.code, message.message)
    finally:
        await conn.aclose()


def format_matches(matches: Sequence[MatchInfo]) -> str:
    """A plain table of `matches`, one line each."""
    if not matches:
        return "no match is being played"
    rows = [("match", "game", "players", "ply", "status")]
    rows += [(m.match, m.game, " vs ".join(m.players), str(m.ply), m.status) for m in matches]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    )


async def watch_match(
    host: str,
    port: int,
    match: str,
    *,
    out: TextIO | None = None,
    connect: Connector | None = None,
    connect_wait: float = 0.0,
) -> MatchEnd:
    """Spectate `match` until it ends, printing the board after every move.

    Raises `UnknownMatch` if the server is not playing it.
    """
    spectator = Spectator(out)
    conn = await _connect(host, port, connect, connect_wait)
    try:
        await conn.send(Spectate(match=match))
        while True:
            message = await conn.receive()
            if isinstance(message, Error):
                if message.code == "unknown_match":
                    raise UnknownMatch(
                        f"the server at {host}:{port} is not playing match {match!r}"
                    )
                raise ServerRejected(message.code, message.message)
            elif (end := spectator.handle(message)) is not None:
                return end
    finally:
        await conn.aclose()


async def watch_all(
    host: str,
    port: int,
    *,
    interval: float = 2.0,
    out: TextIO | None = None,
    connect: Connector | None = None,
    connect_wait: float = 0.0,
    max_matches: int | None = None,
) -> int:
    """Spectate every match being played, and each new one from its start.

    The server follows every match for us (``spectate "*"``); a server that
    does not know that is asked for its list every `interval` seconds instead.
    Runs until cancelled, or until `max_matches` followed matches have ended;
    returns the number of followed matches that ended.
    """
    if not interval > 0:
        raise ValueError(f"interval must be > 0 seconds, not {interval!r}")
    spectator = Spectator(out)
    requested: set[str] = set()
    failure: ClientError | None = None
    polling = False
    conn = await _connect(host, port, connect, connect_wait)
    try:
        async with trio.open_nursery() as nursery:
            await conn.send(ListMatches())  # to say so when nothing is being played
            await conn.send(Spectate(match=FOLLOW_ALL))
            try:
                first_list = True
                while True:
                    message = await conn.receive()
                    if isinstance(message, Matches):
                        fresh = [
                            m.match
                            for m in message.matches
                            if m.status not in OVER and m.match not in requested
                        ]
                        if first_list and not message.matches:
                            spectator.write("no match is being played yet; waiting for one")
                        first_list = False
                        if polling:  # else the server follows every match for us
                            for match_id in fresh:
                                requested.add(match_id)
                                await conn.send(Spectate(match=match_id))
                    elif isinstance(message, Error):
                        if message.fatal:
                            raise ServerRejected(message.code, message.message)
                        if message.code == "unknown_match" and message.match == FOLLOW_ALL:
                            polling = True  # an older server: find new matches by listing
                            nursery.start_soon(_poll, conn, interval)
                            continue
                        log.debug("spectate_refused", code=message.code, error=message.message)
                    elif spectator.handle(message) is not None and (
                        max_matches is not None and len(spectator.ended) >= max_matches
                    ):
                        break
            except ClientError as exc:
                failure = exc
            nursery.cancel_scope.cancel()
    finally:
        await conn.aclose()
    if failure is not None:
        raise failure
    return len(spectator.ended)


async def _poll(conn: Connection, interval: float) -> None:
    try:
        while True:
            await conn.send(ListMatches())
            await trio.sleep(interval)
    except ClientError:
        return  # the reader sees the same failure and reports it
