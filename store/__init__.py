"""Game records: the storage interface, its backends, and the server's recorder.

Match code talks only to `Recorder`; the recorder to a `Backend`: SQLite's
`Store` (`store.sqlite`) or PostgreSQL's (`store.postgres`), chosen by
`store.open.open_database` from `--db` (a file or a ``postgresql://`` URL).
The CLI opens a records database the same way.

The names below load on first use (PEP 562), so a command that only reads the
database (`arena matches`) does not import the recorder's trio and structlog.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from store.interface import Database as Database
    from store.interface import StoredGame as StoredGame
    from store.interface import StoredTournament as StoredTournament
    from store.journal import Journal as Journal
    from store.recorder import MOVE_FLUSH as MOVE_FLUSH
    from store.recorder import Recorder as Recorder
    from store.recorder import StoreStatus as StoreStatus
    from store.recorder import StoreUnavailable as StoreUnavailable
    from store.recorder import TournamentGame as TournamentGame
    from store.recorder import import_journal as import_journal
    from store.records import Backend as Backend
    from store.records import BatchReport as BatchReport
    from store.records import MatchRecord as MatchRecord
    from store.records import MatchWrite as MatchWrite
    from store.records import MoveRecord as MoveRecord
    from store.records import ResultRecord as ResultRecord
    from store.records import StoreError as StoreError
    from store.records import from_json as from_json
    from store.records import move_row as move_row
    from store.records import to_json as to_json
    from store.rows import result_of as result_of
    from store.schema import SCHEMA_VERSION as SCHEMA_VERSION
    from store.sqlite import Store as Store

_HOMES = {
    "Journal": "journal",
    "MOVE_FLUSH": "recorder",
    "Recorder": "recorder",
    "StoreStatus": "recorder",
    "StoreUnavailable": "recorder",
    "TournamentGame": "recorder",
    "import_journal": "recorder",
    "Database": "interface",
    "StoredGame": "interface",
    "StoredTournament": "interface",
    "Backend": "records",
    "BatchReport": "records",
    "MatchRecord": "records",
    "MatchWrite": "records",
    "MoveRecord": "records",
    "ResultRecord": "records",
    "StoreError": "records",
    "from_json": "records",
    "move_row": "records",
    "to_json": "records",
    "SCHEMA_VERSION": "schema",
    "Store": "sqlite",
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
