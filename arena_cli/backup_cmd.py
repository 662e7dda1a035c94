"""`arena backup DEST`: a consistent copy of the records database, while the server runs.

Uses SQLite's online backup: the copy is a snapshot of one moment, taken
without stopping writers, checked with ``integrity_check`` and renamed into
place only when complete, so DEST is never a half-written file.
"""

from __future__ import annotations

import argparse
import os
import sys

from arena_cli.records_cmd import open_existing
from store import Store, StoreError


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "backup",
        help="copy the records database safely, even while a server writes to it",
        description="Copy the records database with SQLite's online backup: a snapshot of one"
        " moment, taken while a server may write, checked and renamed into place when"
        " complete. DEST is a file, or a directory to put the copy in.",
    )
    parser.add_argument(
        "dest",
        help="the copy: a file, or a directory (the copy takes the database's file name)",
    )
    parser.add_argument("--db", default=None, help="SQLite records file [$ARENA_DB, arena.sqlite]")
    parser.add_argument("--force", action="store_true", help="replace DEST if it exists")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        store = open_existing(args.db)
        try:
            dest = _destination(args.dest, store.path, force=args.force)
            store.backup(dest)
        finally:
            store.close()
        copy = Store(dest)
        matches = len(copy.list_matches(limit=-1))
        copy.close()
    except StoreError as exc:
        print(f"arena backup: {exc}", file=sys.stderr)
        return 2
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
