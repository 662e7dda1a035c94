"""`arena tournament --out FILE`: result files, checked before any game and written atomically.

Why this shape: a tournament may run for hours, so every reason a file could
not be written that can be known before the first game is (the format, the
directory, a file actually created there and removed). What can only fail at
the end (a full disk, a directory removed meanwhile) fails one file, with one
line naming it and the reason: the file is written to a temporary name beside
it and renamed into place, so it is never half-written and an older file of
that name is kept. The games themselves are already in the database.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena_cli.errors import OutputError as OutputError

__all__ = [
    "OUT_FORMATS",
    "STANDING_COLUMNS",
    "OutputError",
    "check_out_paths",
    "format_number",
    "write_outputs",
]

OUT_FORMATS = (".json", ".csv", ".md")

STANDING_COLUMNS = [
    "rank",
    "name",
    "games",
    "wins",
    "draws",
    "losses",
    "points",
    "score",
    "draw_ratio",
    "elo",
    "elo_margin",
]


def _parent(target: Path) -> Path:
    return target.parent if str(target.parent) else Path(".")


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def check_out_paths(paths: Sequence[str]) -> None:
    """Refuse (ValueError, one line) an output file that cannot be written, before any game."""
    for path in paths:
        suffix = Path(path).suffix.lower()
        if suffix not in OUT_FORMATS:
            raise ValueError(
                f"--out {path!r}: unknown format {suffix or '(no extension)'!r};"
                f" use {', '.join(OUT_FORMATS)}"
            )
        target = Path(path)
        if target.is_dir():
            raise ValueError(f"--out {path!r} is a directory")
        parent = _parent(target)
        if not parent.is_dir():
            raise ValueError(f"--out {path!r}: no directory {str(parent)!r}")
        if target.exists() and not os.access(target, os.W_OK):
            raise ValueError(f"--out {path!r} is not writable")
        try:  # what the permissions say is not all (root, read-only or special file systems)
            handle, probe = tempfile.mkstemp(dir=parent, prefix=f".{target.name}.", suffix=".tmp")
        except OSError as exc:
            raise ValueError(
                f"--out {path!r}: cannot create files in {str(parent)!r} ({_reason(exc)})"
            ) from None
        os.close(handle)
        os.remove(probe)


def _text(path: str, document: dict[str, Any]) -> str:
    suffix = Path(path).suffix.lower()
    if suffix == ".csv":
        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer)
        writer.writerow(STANDING_COLUMNS)
        for row in document["standings"]:
            writer.writerow([row[c] for c in STANDING_COLUMNS])
        return buffer.getvalue()
    if suffix == ".md":
        return _markdown(document)
    return json.dumps(document, indent=2) + "\n"


def _mode(target: Path) -> int:
    """The permissions of the file `target` replaces, else the umask's for a new file."""
    with contextlib.suppress(OSError):
        return target.stat().st_mode & 0o777
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def write_atomically(path: str, text: str) -> None:
    """`text` into `path` through a temporary file beside it (OutputError if it fails)."""
    target = Path(path)
    temporary = None
    try:
        handle, temporary = tempfile.mkstemp(
            dir=_parent(target), prefix=f".{target.name}.", suffix=".tmp"
        )
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, _mode(target))  # as a file written in place would be
        os.replace(temporary, target)
        temporary = None
    except OSError as exc:
        raise OutputError(path, _reason(exc)) from None
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.remove(temporary)


def write_outputs(paths: Sequence[str], document: dict[str, Any]) -> list[OutputError]:
    """Write every file that can be; the errors of those that could not (one line each)."""
    errors: list[OutputError] = []
    for path in paths:
        try:
            write_atomically(path, _text(path, document))
        except OutputError as exc:
            errors.append(exc)
    return errors


def format_number(value: float | None, spec: str = ".0f") -> str:
    """`value` formatted, or ``-`` for None (no margin, an unbounded side, no games).

    A value that rounds to zero is shown as zero, never as ``-0.0``.
    """
    if value is None:
        return "-"
    return format(0.0 if abs(value) < 1e-9 else value, spec)


def _markdown(document: dict[str, Any]) -> str:
    lines = [
        f"# Tournament {document['tournament']}",
        "",
        f"{document['format']}, {document['game']}, {document['move_time']:g}s/move,"
        f" {len(document['games'])} games ({document['status']})",
        "",
        "| # | player | games | W | D | L | points | Elo | ±95% |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for row in document["standings"]:
        lines.append(
            f"| {row['rank']} | {row['name']} | {row['games']} | {row['wins']} | {row['draws']}"
            f" | {row['losses']} | {row['points']:g} | {row['elo']:+.0f}"
            f" | {format_number(row['elo_margin'])} |"
        )
    if "sprt" in document:
        lines += ["", f"SPRT: {document['sprt']['summary']}"]
    return "\n".join(lines) + "\n"
