"""`arena backup DEST`: a consistent copy of the records database, while the server runs.

SQLite: the online backup API; the copy is a snapshot of one moment, taken
without stopping writers, checked with ``integrity_check`` and renamed into
place only when complete, so DEST is never a half-written file.
PostgreSQL: ``pg_dump`` in its custom format (a consistent snapshot too),
checked with ``pg_restore --list`` and renamed into place; restore it with
``pg_restore --dbname URL DEST`` into an empty database.
"""

from __future__ import annotations

import argparse
import os
import sys

from arena_cli.options import DB_HELP
from arena_cli.records_cmd import open_existing
from store import SqliteDatabase, StoreError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "backup",
        help="copy the records database safely, even while a server writes to it",
        description="Copy the records database: a snapshot of one moment, taken while servers"
        " may write, checked and renamed into place when complete (SQLite: an SQLite file;"
        " PostgreSQL: a pg_dump archive, restored with pg_restore). DEST is a file, or a"
        " directory to put the copy in.",
    )
    parser.add_argument(
        "dest",
        help="the copy: a file, or a directory (the copy takes the database's file name)",
    )
    parser.add_argument("--db", default=None, help=DB_HELP)
    parser.add_argument("--force", action="store_true", help="replace DEST if it exists")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        store = open_existing(args.db)
        sqlite = isinstance(store, SqliteDatabase)
        try:
            name = store.path if sqlite else "arena.pgdump"
            dest = _destination(args.dest, name, force=args.force)
            before = len(store.list_matches(limit=2**62))
            store.backup(dest)
        finally:
            store.close()
        if sqlite:
            copy = SqliteDatabase(dest)
            matches = len(copy.list_matches(limit=-1))
            copy.close()
    except StoreError as exc:
        print(f"arena backup: {exc}", file=sys.stderr)
        return 2
    if not sqlite:
        print(
            f"backed up {store.path} to {dest} (pg_dump archive, {before} matches;"
            f" restore: pg_restore --dbname URL {dest})"
        )
        return 0
    print(f"backed up {store.path} to {dest} ({matches} matches)")
    return 0


def _destination(dest: str, db: str, *, force: bool) -> str:
    """The file to write (DEST, or DEST/<db name> for a directory), checked before any work."""
    if os.path.isdir(dest):
        dest = os.path.join(dest, os.path.basename(db))
    if os.path.exists(dest) and not force:
        raise StoreError(f"{dest} exists; use --force to replace it")
    if os.path.abspath(dest) == os.path.abspath(db):
        raise StoreError("the backup cannot be the database itself")
    parent = os.path.dirname(os.path.abspath(dest))
    if not os.path.isdir(parent):
        raise StoreError(f"directory {parent} does not exist")
    return dest
