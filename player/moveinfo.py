"""What an agent says about its move (`MoveInfo`), made fit for the wire.

Why here: an agent's report is its own business, and a bug in it (an
evaluation of 1.2, a negative depth, a principal variation of 200 moves) must
not cost the move: the server refuses a `move` whose info is out of range
(docs/PROTOCOL.md, "Move info"), so the client drops what is out of range
before sending and sends the move with the rest.
"""

from __future__ import annotations

import math
import re
from typing import Any

from player.agent import MoveInfo
from protocol.messages import (
    COUNT_PATTERN,
    MAX_DEPTH,
    MAX_PV_MOVE_LENGTH,
    MAX_PV_MOVES,
    MAX_VISITS,
)

__all__ = ["wire_fields"]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def wire_fields(info: MoveInfo | None) -> tuple[dict[str, Any], list[str]]:
    """The `Move` keyword fields of `info` within the protocol's limits, and what was dropped.

    An out-of-range or mistyped `eval`, `depth` or `visits` is left out; a
    principal variation is kept up to its first unusable move (not a string of
    1 to 32 characters) and to at most 64 moves, so what is sent is still the
    start of the line the agent expected.
    """
    fields: dict[str, Any] = {}
    dropped: list[str] = []
    if info is None:
        return fields, dropped
    evaluation = info.eval
    if evaluation is not None:
        number = isinstance(evaluation, int | float) and not isinstance(evaluation, bool)
        if number and math.isfinite(evaluation) and 0.0 <= evaluation <= 1.0:
            fields["eval"] = float(evaluation)
        else:
            dropped.append("eval")
    for name, value, high in (
        ("depth", info.depth, MAX_DEPTH),
        ("visits", info.visits, MAX_VISITS),
    ):
        if value is None:
            continue
        if _is_int(value) and 0 <= value <= high:
            fields[name] = value
        else:
            dropped.append(name)
    line: Any = info.pv
    if not isinstance(line, tuple | list):  # e.g. one string "d3 e6": not a line of moves
        line = ()
        if info.pv:
            dropped.append("pv")
    pv: list[str] = []
    for move in line[:MAX_PV_MOVES]:
        if not isinstance(move, str) or not 1 <= len(move) <= MAX_PV_MOVE_LENGTH:
            break
        pv.append(move)
    if len(pv) < len(line):
        dropped.append("pv")
    if pv:
        fields["pv"] = pv
    count = getattr(info, "count", None)
    if count is not None:
        if isinstance(count, str) and re.match(COUNT_PATTERN, count):
            fields["count"] = count
        else:
            dropped.append("count")
    return fields, dropped
