"""One line for what an engine said about its move.

``eval 0.62, depth 14, 35,210 visits, pv d3 e6 f4``: shared by `arena show`
and the SGF comments, so a move's info reads the same wherever a person sees
it (the web replay writes the same line in JS).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["describe_move_info"]


def describe_move_info(
    evaluation: float | None, depth: int | None, visits: int | None, pv: Sequence[str]
) -> str:
    """The parts the mover sent, in this order, comma-separated; "" when it sent nothing.

    `evaluation` is the mover's expected score (two decimals), `visits` gets
    thousands separators, `pv` is the continuation, the move itself first.
    """
    parts: list[str] = []
    if evaluation is not None:
        parts.append(f"eval {evaluation:.2f}")
    if depth is not None:
        parts.append(f"depth {depth}")
    if visits is not None:
        parts.append(f"{visits:,} visit" + ("" if visits == 1 else "s"))
    if pv:
        parts.append("pv " + " ".join(pv))
    return ", ".join(parts)
