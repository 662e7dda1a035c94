"""`arena import FILE...`: read JSON Lines / SGF game records into the records database.

Every game is replayed through the rules before anything is written; one bad
game stops the import with one line naming the file, the line (JSON Lines) or
game (SGF) and the ply, and nothing is imported. Games whose id is already in
the database are skipped and reported. The database is created if missing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from arena_cli.records_cmd import db_path
from records.jsonl import read_jsonl
from records.replay import check_entry
from records.schema import GameEntry, RecordError, entry_to_store
from records.sgf import entry_from_sgf, parse_sgf
from store import Store, StoreError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "import",
        help="read JSON Lines or SGF game records into the database",
        description=(
            "Read games written by `arena export` (.jsonl: one game per line; .sgf: one or"
            " more games per file), check every move against the rules, and store them."
            " Games already stored (same id) are skipped."
        ),
    )
    parser.add_argument("files", nargs="+", metavar="FILE", help=".jsonl or .sgf files")
    parser.add_argument(
        "--db",
        default=None,
        help="SQLite records file, created if missing [$ARENA_DB, arena.sqlite]",
    )
    parser.set_defaults(func=run)


def _read_sgf(path: str, text: str) -> list[GameEntry]:
    entries = []
    try:
        games = parse_sgf(text)
    except RecordError as exc:
        raise RecordError(f"{path}: {exc}") from None
    for number, nodes in enumerate(games, start=1):
        try:
            entry = entry_from_sgf(text, nodes)
            check_entry(entry)
        except RecordError as exc:
            raise RecordError(f"{path}: game {number}: {exc}") from None
        entries.append(entry)
    return entries


def read_records(path: str) -> list[GameEntry]:
    """Every game of one file, checked; RecordError (one line) at the first bad one."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RecordError(f"cannot read {path!r}: {exc}") from None
    suffix = Path(path).suffix.lower()
    if suffix == ".sgf":
        return _read_sgf(path, text)
    if suffix in (".jsonl", ".json", ".ndjson"):
        return list(read_jsonl(text.splitlines(), path))
    raise RecordError(f"{path}: unknown record format {suffix!r} (expected .jsonl or .sgf)")


def run(args: argparse.Namespace) -> int:
    try:
        entries: list[tuple[str, GameEntry]] = []
        for path in args.files:
            entries.extend((path, entry) for entry in read_records(path))
        store = Store(db_path(args.db))
    except (RecordError, StoreError) as exc:
        print(f"arena import: {exc}", file=sys.stderr)
        return 2
    imported, skipped = 0, []
    try:
        for _path, entry in entries:
            record, moves = entry_to_store(entry)
            if store.import_match(record, moves):
                imported += 1
            else:
                skipped.append(entry.id)
    except StoreError as exc:
        print(f"arena import: {exc} ({imported} games imported before)", file=sys.stderr)
        return 2
    finally:
        store.close()
    print(f"imported {imported} games into {store.path}")
    if skipped:
        shown = ", ".join(skipped[:10]) + (", ..." if len(skipped) > 10 else "")
        print(f"skipped {len(skipped)} games already stored: {shown}")
    return 0
