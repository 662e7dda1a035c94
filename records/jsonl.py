"""JSON Lines game records: one `GameEntry` per line (docs/RECORDS.md).

Writing is deterministic (fixed key order, no spaces). Reading decodes each
line straight into the typed structs (msgspec: a wrong type or an unknown key
names its JSON path), then replays the game through the rules
(`records.replay.check_entry`). Every error is one line:
``FILE:LINE: what is wrong``.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import IO

import msgspec

from records.replay import check_entry
from records.schema import GameEntry, RecordError

__all__ = ["dump_line", "parse_line", "read_jsonl", "write_jsonl"]

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(GameEntry)


def dump_line(entry: GameEntry) -> str:
    """One game as one line of JSON (with the newline)."""
    return _encoder.encode(entry).decode() + "\n"


def write_jsonl(entries: Iterable[GameEntry], out: IO[str]) -> int:
    """Write every entry as a line; return how many."""
    count = 0
    for entry in entries:
        out.write(dump_line(entry))
        count += 1
    return count


def parse_line(line: str | bytes, *, check: bool = True) -> GameEntry:
    """Decode one line into a GameEntry and (by default) replay it; RecordError if bad."""
    try:
        entry = _decoder.decode(line)
    except msgspec.ValidationError as exc:
        raise RecordError(f"bad record: {exc}") from None
    except msgspec.DecodeError as exc:
        raise RecordError(f"not JSON: {exc}") from None
    if check:
        try:
            check_entry(entry)
        except RecordError as exc:
            raise RecordError(f"game {entry.id!r}: {exc}") from None
    return entry


def read_jsonl(
    lines: Iterable[str | bytes], source: str = "<records>", *, check: bool = True
) -> Iterator[GameEntry]:
    """Every game of a JSON Lines text; blank lines are skipped.

    Errors read ``source:LINE: ...`` and stop the reading.
    """
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield parse_line(line, check=check)
        except RecordError as exc:
            raise RecordError(f"{source}:{number}: {exc}") from None
