"""`arena show`'s text: the header of a recorded match, then the board after each move
(with what the mover's engine said about it, when it said something)."""

from __future__ import annotations

import datetime
import sys
from collections.abc import Sequence

from games import GameError, make_game, stored_result_text
from games.go import Go, agreed_dead
from records.moveinfo import describe_move_info
from records.replay import BOARD_ENDINGS
from records.schema import opening_of
from store.matches import MatchRecord, MoveRecord


def _when(timestamp: float | None) -> str:
    if timestamp is None:
        return "-"
    return datetime.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")


def describe_time_control(record: MatchRecord) -> str:
    """``5+3 clock (5 min, +3 s a move)`` or ``1s per move``, with the lag margin."""
    clock = record.tags.clock
    margin = f"+{record.lag_margin:g}s margin"
    if clock is not None:
        initial, increment = clock.initial, clock.increment
        return (
            f"{initial / 60:g}+{increment:g} clock ({initial:g}s, +{increment:g}s a move;"
            f" lag compensated)"
        )
    return f"{record.move_time:g}s per move ({margin})"


def reason_note(termination: str | None, reason: str | None) -> str:
    """`` {e crashed: engine pg: engine exited (code 3)}``: the reason beside a result, as
    cutechess writes it (``{Black disconnects}``), for any ending but the board's own
    (``X wins (line)`` says no more than the termination); ``""`` without one."""
    if not reason or termination in BOARD_ENDINGS:
        return ""
    return f" {{{reason}}}"


def result_text(record: MatchRecord) -> str:
    """``1-0``, ``1/2-1/2``, Go's ``B+3.5`` or ``W+R`` (`Game.result_text`), ``aborted``
    or ``-`` (no result) for a record."""
    if record.status == "aborted":
        return "aborted"  # its scores are a placeholder, not a draw
    if record.scores is None:
        return "-"
    try:
        game = make_game(record.game, record.options)
    except ValueError:
        game = None  # a plug-in game not installed here: the generic spelling
    return stored_result_text(game, record.scores, record.winner, record.termination, record.points)


def result_line(record: MatchRecord) -> str:
    """The last line of `arena show`: the result, how it ended, and why, each said once.

    ``result: 1-0, X wins (line)`` when the server's reason names the ending already,
    ``result: 0-1 (timeout): bob ran out of time (5+3 clock)`` when it does not.
    """
    if record.status == "aborted":
        return f"result: aborted, no result ({record.reason or 'stopped'})"
    if record.scores is None:
        return f"result: none ({record.status})"
    result, reason, termination = result_text(record), record.reason or "", record.termination
    if reason and termination and reason.endswith(f"({termination})"):
        return f"result: {result}, {reason}"
    ending = f" ({termination})" if termination else ""
    return f"result: {result}{ending}" + (f": {reason}" if reason else "")


def print_replay(record: MatchRecord, moves: Sequence[MoveRecord]) -> int:
    """Print the replay; 1 if the record cannot be replayed (an error line says why)."""
    try:
        game = make_game(record.game, record.options)
    except ValueError as exc:
        print(f"arena show: cannot load game {record.game!r}: {exc}", file=sys.stderr)
        return 1
    names = game.seat_names
    print(f"match {record.id}: {game.describe()}")
    for seat, player in enumerate(record.players):
        label = names[seat] if seat < len(names) else f"seat {seat}"
        print(f"  {label}: {player}")
    print(f"  time control: {describe_time_control(record)}")
    book = len(opening_of(record))
    if book:
        notation = " ".join(move.notation for move in moves[:book])
        plies = "1 ply" if book == 1 else f"{book} plies"
        print(f"  opening: {notation} ({plies}, played by the server before the first turn)")
    if record.tournament:
        print(
            f"  tournament: {record.tournament}, game {'?' if record.tags.index is None else record.tags.index}"
        )
    print(f"  started {_when(record.started_at)}, status {record.status}\n")
    state = game.initial_state()
    print(game.render(state))
    for move in moves:
        try:
            state = game.play(state, game.decode_move(move.move))
        except GameError as exc:
            print(f"\nply {move.ply + 1}: cannot replay {move.notation!r}: {exc}", file=sys.stderr)
            return 1
        label = names[move.seat] if move.seat < len(names) else f"seat {move.seat}"
        timing = "opening" if move.ply < book else f"{move.think_time * 1000:.0f} ms"
        said = describe_move_info(move.eval, move.depth, move.visits, move.pv)
        print(
            f"\n{move.ply + 1}. {label} ({record.players[move.seat]}) plays {move.notation}"
            f"  [{timing}]" + (f"  ({said})" if said else "")
        )
        if isinstance(game, Go) and move is moves[-1] and record.termination == "score":
            # two people agreed on dead stones: the final board counted without them
            dead = agreed_dead(game, record.reason)
            if dead:
                print(game.render(state, dead=dead))
                continue
        print(game.render(state))
    print()
    print(result_line(record))
    return 0
