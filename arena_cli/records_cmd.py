"""`arena matches` and `arena show MATCH`: read the records database.

Both only read: a database that does not exist is an error, never created.
Imports are kept to the SQLite store (no trio, no logging) so `arena matches`
starts fast; the games are imported by `show` only.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import sys
from typing import TYPE_CHECKING, Any

from arena_cli.errors import RecordsError as RecordsError
from arena_cli.options import DB_HELP
from arena_cli.options import db_path as db_path

if TYPE_CHECKING:
    from store.interface import Database
    from store.matches import MatchRecord


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    matches = subparsers.add_parser(
        "matches",
        help="list recorded matches",
        description="List recorded matches, most recent first. Ids are unique in a database;"
        " `arena show` takes any unique prefix of one.",
        epilog="examples:\n  arena matches --limit 10\n  arena matches --status finished --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    matches.add_argument("--db", default=None, help=DB_HELP)
    matches.add_argument("--limit", type=int, default=30, help="how many, most recent first [30]")
    matches.add_argument(
        "--status",
        choices=("running", "finished", "aborted"),
        default=None,
        help="only the matches in this state [all]",
    )
    matches.add_argument("--tournament", default=None, help="only this tournament's matches")
    matches.add_argument("--json", action="store_true", help="print JSON (one array) for scripts")
    matches.set_defaults(func=run_matches, logs=False)
    show = subparsers.add_parser(
        "show",
        help="replay a recorded match, board after each move",
        description="Replay a recorded match: its players, time control and the board after"
        " every move. MATCH is a match id or any unique prefix of one (see `arena matches`).",
    )
    show.add_argument("match", help="match id (or a unique prefix)")
    show.add_argument("--db", default=None, help=DB_HELP)
    show.add_argument("--json", action="store_true", help="print the record and moves as JSON")
    show.set_defaults(func=run_show, logs=False)


def open_existing(path: str | None) -> Database:
    """The records database named by `--db` / $ARENA_DB, which must exist (never created)."""
    from store.open import open_database

    return open_database(db_path(path), create=False)


def _when(timestamp: float | None) -> str:
    if timestamp is None:
        return "-"
    return datetime.datetime.fromtimestamp(timestamp).strftime("%Y-%m-%d %H:%M:%S")


def _time_control(record: MatchRecord) -> str:
    clock = record.tags.clock
    if clock is not None:
        return f"{clock.initial / 60:g}+{clock.increment:g}"
    return f"{record.move_time:g}s/move"


def _result(record: MatchRecord, result: str) -> str:
    """``1-0 line``, ``1/2-1/2 board_full``, ``aborted`` or ``running``: one column, not three;
    a failure with its reason, ``0-1 crash {e crashed: engine exited (code 3)}``."""
    from arena_cli.replay_view import reason_note

    if record.status == "finished" and record.scores is not None:
        if not record.termination:
            return result
        return f"{result} {record.termination}" + reason_note(record.termination, record.reason)
    return record.status


def _as_json(record: MatchRecord) -> dict[str, Any]:
    from arena_cli.replay_view import result_text

    data = record.as_json()
    data["result"] = result_text(record)
    return data


def _open(args: argparse.Namespace, command: str) -> Database | None:
    from store.errors import StoreError

    try:
        return open_existing(args.db)
    except StoreError as exc:
        print(f"arena {command}: {exc}", file=sys.stderr)
        return None


def run_matches(args: argparse.Namespace) -> int:
    if args.limit < 1:
        print(f"arena matches: --limit must be >= 1, not {args.limit}", file=sys.stderr)
        return 2
    store = _open(args, "matches")
    if store is None:
        return 2
    try:
        records = store.list_matches(args.limit, status=args.status, tournament=args.tournament)
    finally:
        store.close()
    if args.json:
        print(json.dumps([_as_json(r) for r in records], indent=1))
        return 0
    from textwrap import fill

    from arena_cli.replay_view import result_text
    from arena_cli.table import render, terminal_width

    headers = ("id", "started", "game", "players", "time", "plies", "result")
    rows = [
        (
            record.id,
            _when(record.started_at),
            record.game,
            " vs ".join(record.players),
            _time_control(record),
            str(record.plies),
            _result(record, result_text(record)),
        )
        for record in records
    ]
    width = terminal_width()  # None when piped: as wide as the table, the same layout
    title = f"Matches in {store.path}"
    print(title if width is None else fill(title, width, break_on_hyphens=False))
    if records:
        print(render(headers, rows, width))
        legend = (
            "time: seconds per move, or minutes+increment for a clock;"
            " result: the score and how the game ended (aborted, running), then why"
            " in braces unless the board decided it"
        )
        print(legend if width is None else fill(legend, width))
    else:
        print("no matches recorded yet")
    return 0


def resolve_match(store: Database, text: str) -> MatchRecord:
    """The match whose id is `text` or starts with it; RecordsError names the candidates."""
    record = store.get_match(text)
    if record is not None and record.id == text:
        return record
    candidates = store.match_ids(text, limit=11)
    if not candidates:
        raise RecordsError(f"no match {text!r} in {store.path} (see `arena matches`)")
    if len(candidates) > 1:
        shown = ", ".join(candidates[:10]) + (", ..." if len(candidates) > 10 else "")
        raise RecordsError(f"{text!r} is ambiguous: it starts {shown}; type more of the id")
    found = store.get_match(candidates[0])
    assert found is not None
    return found


def run_show(args: argparse.Namespace) -> int:
    store = _open(args, "show")
    if store is None:
        return 2
    try:
        try:
            record = resolve_match(store, args.match)
        except RecordsError as exc:  # no such match: bad input
            print(f"arena show: {exc}", file=sys.stderr)
            return 2
        moves = store.get_moves(record.id)
    finally:
        store.close()
    if args.json:
        data = _as_json(record)
        data["moves"] = [dataclasses.asdict(move) for move in moves]
        print(json.dumps(data, indent=1))
        return 0
    from arena_cli.replay_view import print_replay

    return print_replay(record, moves)
