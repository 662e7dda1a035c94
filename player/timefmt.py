"""How clocks look on a terminal (the human player and the spectator use the same words)."""

from __future__ import annotations

from collections.abc import Sequence


def format_seconds(seconds: float) -> str:
    """``4:53`` from a minute up, ``12.3s`` below (tenths matter when the flag is near)."""
    seconds = max(0.0, seconds)
    if seconds >= 60:
        whole = int(seconds)
        hours, rest = divmod(whole, 3600)
        minutes, secs = divmod(rest, 60)
        return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"
    return f"{seconds:.1f}s"


def clocks_line(labels: Sequence[str], clocks: Sequence[float], to_move: int | None) -> str:
    """``clock: X (alice) 4:53 | O (bob) 4:58 *`` (the star marks the clock that runs)."""
    parts = []
    for seat, label in enumerate(labels):
        left = format_seconds(clocks[seat]) if seat < len(clocks) else "?"
        parts.append(f"{label} {left}" + (" *" if seat == to_move else ""))
    return "clock: " + " | ".join(parts)
