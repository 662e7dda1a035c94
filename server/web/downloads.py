"""A stored match as a file to download: its JSON Lines record, or SGF where the game has one.

The same exchange record `arena export` writes (docs/RECORDS.md), built by
`records` from the store's rows. Blocking (it reads the database): call it
from a worker thread.
"""

from __future__ import annotations

import io

from games import make_game
from records.jsonl import write_jsonl
from records.schema import entry_from_store
from records.sgf import entry_to_sgf, sgf_game_number
from server.errors import ApiError
from store import Database


def match_file(store: Database, match_id: str, kind: str) -> str:
    """The match's record as ``jsonl`` or ``sgf`` text; ApiError (404) if there is none."""
    record = store.get_match(match_id)
    if record is None:
        raise ApiError(404, f"no recorded match {match_id!r} (or the prefix is ambiguous)")
    entry = entry_from_store(record, store.get_moves(record.id))
    if kind == "jsonl":
        out = io.StringIO()
        write_jsonl([entry], out)
        return out.getvalue()
    try:
        game = make_game(record.game, record.options)
    except ValueError as exc:
        raise ApiError(404, f"match {record.id}: {exc}") from None
    if sgf_game_number(game) is None:
        raise ApiError(404, f"{record.game} has no SGF standard: take the .jsonl record")
    return entry_to_sgf(entry)
