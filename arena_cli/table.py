"""Text tables that fit the terminal, drawn like the tournament's (rich's heavy-head box).

Why not rich: importing it costs more than the whole `arena matches` start-up
budget, and a records table needs only columns, a header and wrapping. Why
the same box: `tournament --list` and the tournament's tables are rich's, and
one program should draw one kind of table.

Rules, the same wherever the output goes:
- on a terminal (or with $COLUMNS set) the table fits that width: a long cell
  wraps at a boundary a reader expects (a space, after a comma, before the
  ``@`` of a host), and inside a token only when one token is wider than 24
  characters; nothing is ever cut;
- piped or redirected, the table is as wide as its content (one line a row),
  as `arena_cli.console` does for rich: the layout does not change, lines are
  never folded for a terminal that is not there;
- a terminal too narrow for the columns at all gets one block a row
  (``header: value`` lines), the only other layout.
"""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Sequence

#: where a cell may wrap: after a space or a comma, before an ``@`` (a player's host)
_BREAK = re.compile(r"(?<=[ ,])|(?=@)")
#: a token longer than this may be broken inside to let its column shrink
LONGEST_WHOLE = 24


def terminal_width() -> int | None:
    """Columns of the terminal ($COLUMNS first); None (no limit) when stdout is no terminal."""
    if os.environ.get("COLUMNS") or sys.stdout.isatty():
        return shutil.get_terminal_size((100, 24)).columns
    return None


def wrap(text: str, width: int) -> list[str]:
    """`text` in lines of at most `width`, broken at `_BREAK` where it can."""
    lines: list[str] = []
    line = ""
    for piece in (p for p in _BREAK.split(text) if p):
        if len(line) + len(piece.rstrip()) <= width:
            line += piece
            continue
        if line.strip():
            lines.append(line.rstrip())
        piece = piece.lstrip()
        while len(piece.rstrip()) > width:  # one token wider than the column: break it
            lines.append(piece[:width])
            piece = piece[width:]
        line = piece
    if line.strip() or not lines:
        lines.append(line.rstrip())
    return lines


def _tokens(text: str) -> list[str]:
    return [p.strip() for p in _BREAK.split(text) if p.strip()]


def _fit(widths: list[int], floor: list[int], room: int) -> list[int]:
    """Shrink the widest columns (never below their floor) until the row fits `room`."""
    widths = list(widths)
    while sum(widths) > room:
        shrinkable = [i for i, w in enumerate(widths) if w > floor[i]]
        if not shrinkable:
            break
        widest = max(shrinkable, key=lambda i: widths[i])
        widths[widest] -= 1
    return widths


def render(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int | None) -> str:
    """The table as text no wider than `width` where possible (None: as wide as it needs)."""
    columns = len(headers)
    natural = [max([len(headers[i])] + [len(row[i]) for row in rows]) for i in range(columns)]
    if width is None:
        return _boxed(headers, rows, natural)
    # a column may shrink to its longest token (at least 6 characters or its header)
    floor = []
    for i in range(columns):
        longest = max((len(t) for row in rows for t in _tokens(row[i])), default=0)
        least = max(6, len(headers[i]))
        floor.append(min(natural[i], least if longest > LONGEST_WHOLE else max(least, longest)))
    room = width - (3 * columns + 1)  # "│ " + " │ " between cells + " │"
    if sum(floor) > room:  # too narrow for columns: one block per row
        return _cards(headers, rows, width)
    return _boxed(headers, rows, _fit(natural, floor, room))


def _boxed(headers: Sequence[str], rows: Sequence[Sequence[str]], widths: list[int]) -> str:
    def rule(left: str, fill: str, middle: str, right: str) -> str:
        return left + middle.join(fill * (w + 2) for w in widths) + right

    lines = [rule("┏", "━", "┳", "┓"), *_row(headers, widths, "┃"), rule("┡", "━", "╇", "┩")]
    for row in rows:
        lines += _row(row, widths, "│")
    lines.append(rule("└", "─", "┴", "┘"))
    return "\n".join(lines)


def _row(cells: Sequence[str], widths: list[int], bar: str) -> list[str]:
    wrapped = [wrap(cell, width) for cell, width in zip(cells, widths, strict=True)]
    height = max(len(lines) for lines in wrapped)
    return [
        f"{bar} "
        + f" {bar} ".join(
            (lines[index] if index < len(lines) else "").ljust(width)
            for lines, width in zip(wrapped, widths, strict=True)
        )
        + f" {bar}"
        for index in range(height)
    ]


def _cards(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> str:
    """Each row as ``header: value`` lines (values wrap under themselves), rows apart."""
    label = max(len(h) for h in headers) + 2
    blocks = []
    for row in rows:
        lines = []
        for header, cell in zip(headers, row, strict=True):
            wrapped = wrap(cell, max(8, width - label))
            lines.append(f"{header + ':':<{label}}{wrapped[0]}")
            lines.extend(" " * label + more for more in wrapped[1:])
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


__all__ = ["render", "terminal_width", "wrap"]
