"""Move a whole arena from one database to another (`arena import OLD.sqlite --db URL`).

Everything is copied through the `store.interface.Database` methods, so any
backend can be the source or the destination: matches with their moves and
tags, tournaments with their owner keys and results, and accounts with their
password hashes. A match, tournament game or account already in the
destination is kept as it is and counted as skipped, so an interrupted copy
can simply be run again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from store.interface import Database

#: a progress callback: (what, done, total)
Progress = Callable[[str, int, int], None]


@dataclass(slots=True)
class CopyReport:
    """What `copy_database` copied, and what the destination had already."""

    matches: int = 0
    skipped_matches: int = 0
    tournaments: int = 0
    tournament_games: int = 0
    accounts: int = 0
    skipped_accounts: int = 0


def copy_database(source: Database, dest: Database, progress: Progress | None = None) -> CopyReport:
    """Copy every record of `source` into `dest`; raises `StoreError` at the first failure."""
    report = CopyReport()
    matches = source.list_matches(limit=2**62)
    for done, record in enumerate(reversed(matches), start=1):  # oldest first
        if dest.import_match(record, source.get_moves(record.id)):
            report.matches += 1
        else:
            report.skipped_matches += 1
        if progress is not None and (done % 100 == 0 or done == len(matches)):
            progress("matches", done, len(matches))
    for stored in reversed(source.tournaments.all()):
        dest.tournaments.save(stored.id, stored.config, stored.status)
        if stored.owner_key:
            dest.tournaments.owner_key(stored.id, stored.owner_key)
        for game in source.tournaments.games(stored.id):
            dest.tournaments.add_game(stored.id, game)
            report.tournament_games += 1
        report.tournaments += 1
    for name, _created in source.accounts.entries():
        digest = source.accounts.password_hash(name)
        if digest is not None and dest.accounts.add(name, digest):
            report.accounts += 1
        else:
            report.skipped_accounts += 1
    return report


__all__ = ["CopyReport", "Progress", "copy_database"]
