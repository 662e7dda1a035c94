"""Plain-text tables that fit the terminal: long cells wrap, nothing is ever cut.

Why not rich: importing it costs more than the whole `arena matches` start-up
budget, and a records table needs only columns, a header and wrapping.
"""

from __future__ import annotations

import shutil
import textwrap
from collections.abc import Sequence

GAP = "  "


def terminal_width(default: int = 100) -> int:
    """Columns of the terminal ($COLUMNS first), or `default` when not a terminal."""
    return shutil.get_terminal_size((default, 24)).columns


def _fit(widths: list[int], floor: list[int], room: int) -> list[int]:
    """Shrink the widest columns (never below their floor) until the row fits `room`."""
    widths = list(widths)
    while sum(widths) > room:
        shrinkable = [i for i, w in enumerate(widths) if w > floor[i]]
        if not shrinkable:
            break  # even the floors do not fit: the terminal wraps the lines itself
        widest = max(shrinkable, key=lambda i: widths[i])
        widths[widest] -= 1
    return widths


def render(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int | None = None) -> str:
    """The table as text no wider than `width` (the terminal's by default) where possible.

    A cell too wide for its column wraps onto more lines (at spaces when it
    can, inside a word when it must); every character stays visible.
    """
    total = terminal_width() if width is None else width
    columns = len(headers)
    natural = [max([len(headers[i])] + [len(row[i]) for row in rows]) for i in range(columns)]
    # a column may shrink to its longest word (but at least 6 characters or its header)
    floor = [
        min(natural[i], max(6, len(headers[i]), *(_longest_word(row[i]) for row in rows)))
        if rows
        else natural[i]
        for i in range(columns)
    ]
    floor = [min(f, max(6, len(headers[i]))) if f > 24 else f for i, f in enumerate(floor)]
    room = total - len(GAP) * (columns - 1)
    if sum(floor) > room:  # too narrow for columns: one block per row, one line per cell
        return _cards(headers, rows, total)
    widths = _fit(natural, floor, room)
    lines = [_row(headers, widths), GAP.join("-" * w for w in widths)]
    for row in rows:
        lines.append(_row(row, widths))
    return "\n".join(line.rstrip() for line in lines)


def _cards(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int) -> str:
    """Each row as ``header: value`` lines (values wrap under themselves), rows apart."""
    label = max(len(h) for h in headers) + 2
    blocks = []
    for row in rows:
        lines = []
        for header, cell in zip(headers, row, strict=True):
            wrapped = textwrap.wrap(
                cell, max(8, width - label), break_long_words=True, break_on_hyphens=False
            ) or [""]
            lines.append(f"{header + ':':<{label}}{wrapped[0]}")
            lines.extend(" " * label + more for more in wrapped[1:])
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _longest_word(text: str) -> int:
    return max((len(word) for word in text.split()), default=0)


def _row(cells: Sequence[str], widths: list[int]) -> str:
    wrapped = [
        textwrap.wrap(cell, width, break_long_words=True, break_on_hyphens=False) or [""]
        for cell, width in zip(cells, widths, strict=True)
    ]
    height = max(len(lines) for lines in wrapped)
    out = []
    for index in range(height):
        out.append(
            GAP.join(
                (lines[index] if index < len(lines) else "").ljust(width)
                for lines, width in zip(wrapped, widths, strict=True)
            )
        )
    return "\n".join(out)
