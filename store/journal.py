"""The fallback journal: results the database could not take, in an append-only file.

When a write fails, the recorder keeps every unwritten record in memory and
retries; it also appends each ended match that is still unwritten (its record,
all its moves and its result) to this file, fsynced, when the disk allows. The
next start imports the file before anything else, so a result survives even
a server killed while the database was unavailable. Lines are JSON; a line
torn by a crash or a full disk is skipped on reading, and every append starts
on a fresh line so one torn line never spoils the next.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Sequence
from typing import Any

import msgspec

from store.matches import MatchRecord, MatchWrite, ResultRecord, tags_from_dict


class Journal:
    """An append-only file of `MatchWrite`s (whole matches)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def append(self, writes: Sequence[MatchWrite]) -> None:
        """Append and fsync (raises OSError, e.g. when the disk is full)."""
        data = b"".join(b"\n" + msgspec.json.encode(_entry(w)) for w in writes) + b"\n"
        with open(self.path, "ab") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())

    def read(self) -> tuple[list[MatchWrite], int]:
        """Every whole entry in the file, and how many torn lines were skipped."""
        try:
            with open(self.path, "rb") as file:
                lines = file.read().split(b"\n")
        except FileNotFoundError:
            return [], 0
        writes: list[MatchWrite] = []
        torn = 0
        for line in lines:
            if not line.strip():
                continue
            try:
                writes.append(_from_entry(msgspec.json.decode(line)))
            except (msgspec.DecodeError, KeyError, TypeError, ValueError):
                torn += 1
        return writes, torn

    def exists(self) -> bool:
        return os.path.exists(self.path) and os.path.getsize(self.path) > 0

    def clear(self) -> None:
        """Empty the file (everything in it is in the database)."""
        if os.path.exists(self.path):
            os.truncate(self.path, 0)


def _entry(write: MatchWrite) -> dict[str, Any]:
    return {
        "v": 1,
        "match": None if write.record is None else dataclasses.asdict(write.record),
        "moves": [list(row) for row in write.moves],
        "result": None if write.result is None else dataclasses.asdict(write.result),
    }


def _from_entry(entry: dict[str, Any]) -> MatchWrite:
    match = entry["match"]
    if not isinstance(match, dict):
        raise ValueError("a journal entry needs its match record")
    legacy = match.pop("extra", None)  # a journal written before the tags were typed
    match["tags"] = tags_from_dict(match.get("tags", legacy))
    record = MatchRecord(**match)
    result = entry.get("result")
    return MatchWrite(
        match_id=record.id,
        record=record,
        moves=[tuple(row) for row in entry["moves"]],
        result=None if result is None else ResultRecord(**result),
    )
