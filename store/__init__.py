"""Game records: the storage interface, its backends, and the server's recorder.

Match code talks only to `Recorder`; the recorder to a `MatchWriter`, the
writing part of a `Database` (`store.interface`). Two backends implement it,
each a sub-package: `SqliteDatabase` (`store.sqlite`) and `PostgresDatabase`
(`store.postgres`), chosen by `store.open.open_database` from `--db` (a file
or a ``postgresql://`` URL). The CLI opens a records database the same way.
Every error the store raises is a `StoreError` (`store.errors`).

The names below load on first use (PEP 562), so a command that only reads the
database (`arena matches`) does not import the recorder's trio and structlog.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from store.errors import StoreError as StoreError
    from store.errors import StoreUnavailable as StoreUnavailable
    from store.interface import Database as Database
    from store.interface import MatchWriter as MatchWriter
    from store.interface import StoredGame as StoredGame
    from store.interface import StoredTournament as StoredTournament
    from store.journal import Journal as Journal
    from store.matches import BatchReport as BatchReport
    from store.matches import MatchRecord as MatchRecord
    from store.matches import MatchWrite as MatchWrite
    from store.matches import MoveRecord as MoveRecord
    from store.matches import ResultRecord as ResultRecord
    from store.matches import from_json as from_json
    from store.matches import move_row as move_row
    from store.matches import to_json as to_json
    from store.open import open_database as open_database
    from store.recorder import MOVE_FLUSH as MOVE_FLUSH
    from store.recorder import Recorder as Recorder
    from store.recorder import StoreStatus as StoreStatus
    from store.recorder import TournamentGame as TournamentGame
    from store.recorder import import_journal as import_journal
    from store.rows import result_of as result_of
    from store.sqlite import SqliteDatabase as SqliteDatabase
    from store.version import SCHEMA_VERSION as SCHEMA_VERSION

_HOMES = {
    "Journal": "journal",
    "MOVE_FLUSH": "recorder",
    "Recorder": "recorder",
    "StoreStatus": "recorder",
    "TournamentGame": "recorder",
    "import_journal": "recorder",
    "Database": "interface",
    "StoredGame": "interface",
    "StoredTournament": "interface",
    "MatchWriter": "interface",
    "BatchReport": "matches",
    "MatchRecord": "matches",
    "MatchWrite": "matches",
    "MoveRecord": "matches",
    "ResultRecord": "matches",
    "StoreError": "errors",
    "StoreUnavailable": "errors",
    "from_json": "matches",
    "move_row": "matches",
    "to_json": "matches",
    "open_database": "open",
    "SCHEMA_VERSION": "version",
    "SqliteDatabase": "sqlite",
    "result_of": "rows",
}

__all__ = sorted(_HOMES)


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'store' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"store.{home}"), name)
    globals()[name] = value
    return value
