"""What can go wrong with an engine program: one exception per fault, each a one-line reason.

`str(exc)` is what lands in the match record and the log (``engine exited
(code 3)``), so every message names the fault in the user's terms and quotes
what the engine said, shortened.
"""

from __future__ import annotations


class EngineError(Exception):
    """The engine failed; ``str(exc)`` is the one-line reason."""


class EngineStartError(EngineError):
    """The program could not be started (not found, not executable, bad workdir)."""


class EngineExited(EngineError):
    """The engine's process ended (or closed its output) while the arena was talking to it."""


class EngineTimeout(EngineError):
    """The engine did not answer in time."""


class EngineProtocolError(EngineError):
    """The engine said something its protocol does not allow there (garbage, an error answer)."""


class EngineFlood(EngineError):
    """The engine wrote more than the limits allow: a line too long, or too much for one answer."""


class EngineIllegalMove(EngineError):
    """The engine answered a move that is not legal (or not a move at all) in the position."""


class EngineInterrupted(EngineError):
    """The runtime no longer wants the answer (the match ended while the engine thought)."""


def quote(text: str, limit: int = 60) -> str:
    """`text` for a one-line message: repr-quoted, cut to `limit` characters."""
    if len(text) > limit:
        return repr(text[:limit]) + "…"
    return repr(text)
