"""The engines' errors, re-exported from `player.errors` (where every player error
lives), and `quote`, which their messages use to cite what an engine said.
"""

from __future__ import annotations

from player.errors import EngineError as EngineError
from player.errors import EngineExited as EngineExited
from player.errors import EngineFlood as EngineFlood
from player.errors import EngineIllegalMove as EngineIllegalMove
from player.errors import EngineInterrupted as EngineInterrupted
from player.errors import EngineProtocolError as EngineProtocolError
from player.errors import EngineStartError as EngineStartError
from player.errors import EngineTimeout as EngineTimeout


def quote(text: str, limit: int = 60) -> str:
    """`text` for a one-line message: repr-quoted, cut to `limit` characters."""
    if len(text) > limit:
        return repr(text[:limit]) + "…"
    return repr(text)
