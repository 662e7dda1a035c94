"""`arena import FILE...`: read game records, or a whole arena, into the records database.

JSON Lines / SGF files: every game is replayed through the rules before
anything is written; one bad game stops the import with one line naming the
file, the line (JSON Lines) or game (SGF) and the ply, and nothing is
imported. Games whose id is already in the database are skipped and reported.

An SQLite records file (``arena import arena.sqlite --db postgresql://...``)
moves a whole arena: matches, tournaments and accounts (`store.copy`). The
destination is created if missing.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from arena_cli.options import DB_HELP
from arena_cli.records_cmd import db_path
from records.jsonl import read_jsonl
from records.replay import check_entry
from records.schema import GameEntry, RecordError, entry_to_store
from records.sgf import entry_from_sgf, parse_sgf
from store import StoreError
from store.open import open_database


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "import",
        help="read JSON Lines or SGF game records, or a whole SQLite arena, into the database",
        description=(
            "Read games written by `arena export` (.jsonl: one game per line; .sgf: one or"
            " more games per file), check every move against the rules, and store them."
            " Games already stored (same id) are skipped. An SQLite records file moves a"
            " whole arena (matches, tournaments, accounts) into --db, e.g. PostgreSQL."
        ),
    )
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help=".jsonl or .sgf files, or one SQLite records file"
    )
    parser.add_argument(
        "--db",
        default=None,
        help=DB_HELP + " (created if missing)",
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


def is_sqlite_file(path: str) -> bool:
    """Whether `path` is an SQLite database file (by its header, whatever its name)."""
    try:
        with open(path, "rb") as file:
            return file.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def _move_arena(source_path: str, target: str) -> int:
    """Copy a whole SQLite arena into `target`; exit status."""
    from store.copy import copy_database

    def progress(what: str, done: int, total: int) -> None:
        print(f"  {what}: {done}/{total}", file=sys.stderr, flush=True)

    try:
        source = open_database(source_path, create=False)
    except StoreError as exc:
        print(f"arena import: {exc}", file=sys.stderr)
        return 2
    try:
        dest = open_database(target)
    except StoreError as exc:
        source.close()
        print(f"arena import: {exc}", file=sys.stderr)
        return 2
    try:
        report = copy_database(source, dest, progress)
    except StoreError as exc:
        print(
            f"arena import: {exc} (run it again to go on: what is copied is kept)", file=sys.stderr
        )
        return 2
    finally:
        source.close()
        dest.close()
    print(
        f"imported {report.matches} matches, {report.tournaments} tournaments"
        f" ({report.tournament_games} results) and {report.accounts} accounts"
        f" from {source_path} into {dest.path}"
    )
    if report.skipped_matches or report.skipped_accounts:
        print(
            f"skipped {report.skipped_matches} matches and {report.skipped_accounts} accounts"
            " already stored"
        )
    return 0


def run(args: argparse.Namespace) -> int:
    arenas = [path for path in args.files if is_sqlite_file(path)]
    if arenas:
        if len(args.files) != 1:
            print(
                "arena import: an SQLite records file is imported alone (one per command)",
                file=sys.stderr,
            )
            return 2
        if os.path.abspath(arenas[0]) == os.path.abspath(db_path(args.db)):
            print("arena import: the source and --db are the same database", file=sys.stderr)
            return 2
        return _move_arena(arenas[0], db_path(args.db))
    try:
        entries: list[tuple[str, GameEntry]] = []
        for path in args.files:
            entries.extend((path, entry) for entry in read_records(path))
        store = open_database(db_path(args.db))
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
