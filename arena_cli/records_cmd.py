"""`arena matches` and `arena show MATCH`: read the records database."""

from __future__ import annotations

import argparse
import datetime
import os
import sys

from rich.console import Console
from rich.table import Table

from games import GameError, make_game
from records.schema import opening_of
from server.store import MatchRecord, Store, StoreError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    matches = subparsers.add_parser("matches", help="list recorded matches")
    matches.add_argument("--db", default=None, help="SQLite records file [$ARENA_DB, arena.sqlite]")
    matches.add_argument("--limit", type=int, default=30, help="how many (most recent first)")
    matches.add_argument("--status", choices=("running", "finished", "aborted"), default=None)
    matches.add_argument("--tournament", default=None, help="only this tournament's matches")
    matches.set_defaults(func=run_matches)
    show = subparsers.add_parser("show", help="replay a recorded match, board after each move")
    show.add_argument("match", help="match id (or a unique prefix)")
    show.add_argument("--db", default=None, help="SQLite records file [$ARENA_DB, arena.sqlite]")
    show.set_defaults(func=run_show)


def db_path(path: str | None) -> str:
    """The records file: `--db`, else $ARENA_DB, else arena.sqlite."""
    return path or os.environ.get("ARENA_DB") or "arena.sqlite"


def open_existing(path: str | None) -> Store:
    """The records database named by `--db` / $ARENA_DB, which must exist (never created)."""
    db = db_path(path)
    if not os.path.exists(db):
        raise StoreError(f"no records database at {db!r} (use --db or $ARENA_DB)")
    return Store(db)


def _when(timestamp: float | None) -> str:
    if timestamp is None:
        return "-"
    return datetime.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")


def _result(record: MatchRecord) -> str:
    if record.status == "aborted":
        return "aborted"  # its scores are a placeholder, not a draw
    if record.scores is None:
        return "-"
    if len(record.scores) == 2:
        table = {1.0: "1", 0.0: "0", 0.5: "1/2"}
        return "-".join(table.get(s, f"{s:g}") for s in record.scores)
    return "-".join(f"{s:g}" for s in record.scores)


def run_matches(args: argparse.Namespace) -> int:
    try:
        store = open_existing(args.db)
    except StoreError as exc:
        print(f"arena matches: {exc}", file=sys.stderr)
        return 2
    records = store.list_matches(args.limit, status=args.status, tournament=args.tournament)
    table = Table(title=f"Matches in {store.path}")
    for column in ("id", "started", "game", "players", "plies", "status", "result", "termination"):
        table.add_column(column)
    for record in records:
        table.add_row(
            record.id,
            _when(record.started_at),
            record.game,
            " vs ".join(record.players),
            str(record.plies),
            record.status,
            _result(record),
            record.termination or "-",
        )
    Console().print(table)
    if not records:
        print("no matches recorded yet")
    return 0


def run_show(args: argparse.Namespace) -> int:
    try:
        store = open_existing(args.db)
    except StoreError as exc:
        print(f"arena show: {exc}", file=sys.stderr)
        return 2
    record = store.get_match(args.match)
    if record is None:
        print(f"arena show: no match {args.match!r} (or the prefix is ambiguous)", file=sys.stderr)
        return 1
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
    print(f"  time control: {record.move_time:g}s per move (+{record.lag_margin:g}s margin)")
    moves = store.get_moves(record.id)
    book = len(opening_of(record))
    if book:
        notation = " ".join(move.notation for move in moves[:book])
        print(f"  opening: {notation} ({book} plies, played by the server before the first turn)")
    if record.tournament:
        print(f"  tournament: {record.tournament}, game {record.extra.get('index', '?')}")
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
        print(
            f"\n{move.ply + 1}. {label} ({record.players[move.seat]}) plays {move.notation}"
            f"  [{timing}]"
        )
        print(game.render(state))
    print()
    if record.status == "aborted":
        print(f"result: aborted, no result ({record.reason or 'stopped'})")
    elif record.scores is None:
        print(f"result: none ({record.status})")
    else:
        print(f"result: {_result(record)} ({record.termination}) {record.reason or ''}".rstrip())
    return 0
