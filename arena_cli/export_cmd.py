"""`arena export`: write recorded games as JSON Lines or SGF (docs/RECORDS.md)."""

from __future__ import annotations

import argparse
import collections
import os
import sys
from pathlib import Path

from arena_cli.errors import ExportError as ExportError
from arena_cli.options import DB_HELP
from arena_cli.records_cmd import open_existing
from records.jsonl import write_jsonl
from records.schema import GameEntry, RecordError, entry_from_store
from records.sgf import entry_to_sgf, sgf_game_number
from store import Database, MatchRecord, StoreError

#: every match (SQLite treats the LIMIT as "no limit" in practice)
_ALL = 2**62


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "export",
        help="write recorded games as JSON Lines or SGF",
        description=(
            "Write finished and aborted games (not running ones), oldest first. JSON Lines"
            " (one game per line, every game) goes to the file OUT ('-' for stdout); SGF"
            " writes one MATCH.sgf per game into the directory OUT, and covers the m,n,k"
            " games (tictactoe, gomoku: GM[4]) and reversi (GM[2]) only: other games are"
            " left out and counted (a --match naming one is an error)."
        ),
    )
    parser.add_argument("out", metavar="OUT", help="output file (jsonl, '-' = stdout) or directory")
    parser.add_argument("--db", default=None, help=DB_HELP)
    parser.add_argument(
        "--format",
        choices=("jsonl", "sgf"),
        default="jsonl",
        help="jsonl: one file (or '-'); sgf: one file per game in the directory OUT [jsonl]",
    )
    parser.add_argument("--tournament", default=None, help="only this tournament's games")
    parser.add_argument(
        "--match",
        action="append",
        default=None,
        metavar="ID",
        help="only this match (id or unique prefix; repeatable)",
    )
    parser.set_defaults(func=run)


def _select(store: Database, args: argparse.Namespace) -> list[MatchRecord]:
    if args.match:
        chosen: list[MatchRecord] = []
        for wanted in args.match:
            record = store.get_match(wanted)
            if record is None:
                raise ExportError(f"no match {wanted!r} (or the prefix is ambiguous)")
            if args.tournament is not None and record.tournament != args.tournament:
                raise ExportError(f"match {record.id!r} is not in tournament {args.tournament!r}")
            chosen.append(record)
    else:
        chosen = store.list_matches(_ALL, tournament=args.tournament)
    finished = [record for record in chosen if record.status != "running"]
    return sorted(finished, key=lambda record: (record.started_at, record.id))


def _entries(store: Database, records: list[MatchRecord]) -> list[GameEntry]:
    return [entry_from_store(record, store.get_moves(record.id)) for record in records]


def _sgf_entries(
    entries: list[GameEntry], named: bool
) -> tuple[list[GameEntry], collections.Counter[str]]:
    """The entries SGF can hold, and how many of each other game were left out.

    A game asked for by name (`named`: --match) that SGF cannot hold is an error.
    """
    from games import make_game

    kept: list[GameEntry] = []
    skipped: collections.Counter[str] = collections.Counter()
    for entry in entries:
        try:
            game = make_game(entry.game, entry.options)
        except ValueError as exc:
            raise ExportError(f"match {entry.id!r}: {exc}") from None
        if sgf_game_number(game) is not None:
            kept.append(entry)
        elif named:
            raise ExportError(
                f"match {entry.id!r} is {entry.game!r}, which has no SGF standard"
                " (SGF covers tictactoe, gomoku and reversi); use --format jsonl"
            )
        else:
            skipped[entry.game] += 1
    return kept, skipped


def _write_sgf(entries: list[GameEntry], out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise ExportError(f"{str(out)!r} is not a directory (SGF writes one file per game)")
    out.mkdir(parents=True, exist_ok=True)
    for entry in entries:
        name = "".join(c if c.isalnum() or c in "-_." else "_" for c in entry.id)
        (out / f"{name}.sgf").write_text(entry_to_sgf(entry), encoding="utf-8")


def check_out(out: str, format: str) -> None:
    """OUT is checked before anything is read: its extension, its directory (ExportError)."""
    if out == "-":
        return
    path = Path(out)
    if format == "jsonl":
        if path.suffix.lower() != ".jsonl":
            raise ExportError(
                f"{out!r}: JSON Lines go to a .jsonl file (or '-' for stdout);"
                " for SGF files give --format sgf and a directory"
            )
        parent = path.parent if str(path.parent) else Path(".")
        if not parent.is_dir():
            raise ExportError(f"{out!r}: no directory {str(parent)!r}")
        if not os.access(parent, os.W_OK):
            raise ExportError(f"{out!r}: the directory {str(parent)!r} is not writable")
        if path.is_dir():
            raise ExportError(f"{out!r} is a directory; JSON Lines go to one .jsonl file")


def run(args: argparse.Namespace) -> int:
    try:
        check_out(args.out, args.format)
        store = open_existing(args.db)
        records = _select(store, args)
        entries = _entries(store, records)
        skipped: collections.Counter[str] = collections.Counter()
        if args.format == "sgf":
            if args.out == "-":
                raise ExportError("SGF export needs a directory, not '-'")
            entries, skipped = _sgf_entries(entries, named=bool(args.match))
            _write_sgf(entries, Path(args.out))
        elif args.out == "-":
            write_jsonl(entries, sys.stdout)
        else:
            partial = f"{args.out}.partial"
            with open(partial, "w", encoding="utf-8") as out:
                write_jsonl(entries, out)
            os.replace(partial, args.out)
    except (ExportError, StoreError, RecordError, OSError) as exc:
        print(f"arena export: {exc}", file=sys.stderr)
        return 2
    where = "stdout" if args.out == "-" else repr(args.out)
    print(f"exported {_games(len(entries))} to {where} ({args.format})", file=sys.stderr)
    if skipped:
        left = ", ".join(f"{game} {count}" for game, count in sorted(skipped.items()))
        print(
            f"left out {_games(sum(skipped.values()))} without an SGF standard ({left});"
            " --format jsonl exports every game",
            file=sys.stderr,
        )
    return 0


def _games(count: int) -> str:
    return f"{count} game" if count == 1 else f"{count} games"
