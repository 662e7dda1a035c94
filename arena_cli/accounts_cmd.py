"""`arena accounts`: list, add, reset and delete registered player names, on either backend.

The operator's side of accounts (docs/PROTOCOL.md, ``hello`` with a password):
no SQL needed. A new password is read from the terminal (asked twice, not
echoed) or, when stdin is not a terminal, from its first line, so scripts can
pipe it; it is hashed the way the server hashes at registration (scrypt).
"""

from __future__ import annotations

import argparse
import datetime
import getpass
import sys
from typing import TYPE_CHECKING

from arena_cli.options import DB_HELP, db_path

if TYPE_CHECKING:
    from store.interface import Database

EXAMPLES = """examples:
  arena accounts list
  arena accounts add alice                   asks for the password twice
  echo 'new secret pass' | arena accounts reset alice --db postgresql://arena@db/arena
  arena accounts delete alice

exit status: 0 done; 1 the database failed; 2 bad input (no such name, name taken,
password too short, no database)."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "accounts",
        help="list, add, reset or delete registered player names (no SQL needed)",
        description="Registered player names (docs/PROTOCOL.md: hello with a password), in"
        " the records database of either backend.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="every registered name and when it was registered")
    listing.add_argument("--db", default=None, help=DB_HELP)
    for action, text in (
        ("add", "register a name with a password (read from the terminal or stdin)"),
        ("reset", "give a registered name a new password (read from the terminal or stdin)"),
        ("delete", "forget a registered name (its recorded games stay)"),
    ):
        sub = actions.add_parser(action, help=text)
        sub.add_argument("name", metavar="NAME", help="the player name")
        sub.add_argument("--db", default=None, help=DB_HELP)
    parser.set_defaults(func=run)


class _Refused(Exception):
    """Bad input, for one line on stderr (exit 2)."""


def _read_password(name: str) -> str:
    from server.accounts import MIN_PASSWORD

    if sys.stdin.isatty():
        first = getpass.getpass(f"password for {name}: ")
        if getpass.getpass("again: ") != first:
            raise _Refused("the two passwords differ")
    else:
        first = sys.stdin.readline().rstrip("\r\n")
    if len(first) < MIN_PASSWORD:
        raise _Refused(f"a password has at least {MIN_PASSWORD} characters")
    return first


def _change(args: argparse.Namespace, store: Database) -> str:
    from server.accounts import hash_password

    accounts = store.accounts
    name = args.name
    if args.action == "delete":
        if not accounts.remove(name):
            raise _Refused(f"no registered name {name!r}")
        return f"deleted {name}"
    if args.action == "reset":
        if accounts.password_hash(name) is None:
            raise _Refused(f"no registered name {name!r} (use `arena accounts add`)")
        accounts.set_password(name, hash_password(_read_password(name)))
        return f"new password for {name}"
    if accounts.password_hash(name) is not None:
        raise _Refused(f"{name!r} is registered already (use `arena accounts reset`)")
    if not accounts.add(name, hash_password(_read_password(name))):
        raise _Refused(f"{name!r} is registered already")
    return f"registered {name}"


def run(args: argparse.Namespace) -> int:
    from store.errors import StoreError
    from store.open import open_database

    try:
        store = open_database(db_path(args.db), create=args.action == "add")
    except StoreError as exc:
        print(f"arena accounts: {exc}", file=sys.stderr)
        return 2
    try:
        if args.action == "list":
            entries = store.accounts.entries()
            for name, created in entries:
                when = datetime.datetime.fromtimestamp(created).strftime("%Y-%m-%d %H:%M")
                print(f"{name}\t{when}")
            print(f"{len(entries)} registered names in {store.path}", file=sys.stderr)
            return 0
        print(_change(args, store))
        return 0
    except _Refused as exc:
        print(f"arena accounts: {exc}", file=sys.stderr)
        return 2
    except StoreError as exc:
        print(f"arena accounts: {exc}", file=sys.stderr)
        return 1
    finally:
        store.close()
