"""Every error of the player package, under one base class: `PlayerError`.

The runtime's (an agent that fails or resigns), the engines' (one exception
per fault of an engine program, each a one-line reason: `str(exc)` is what
lands in the match record and the log, e.g. ``engine exited (code 3)``), and
those of `arena gtp` and `arena engines check`. The protocol client's errors
are re-exported here, as the player's callers meet them too; the ones a
player raises over a connection are both a `PlayerError` and a `ClientError`.
"""

from __future__ import annotations

# the protocol client's errors, re-exported: the player's callers meet them too
from protocol.errors import ClientError as ClientError
from protocol.errors import ConnectionLost as ConnectionLost
from protocol.errors import ServerProtocolError as ServerProtocolError
from protocol.errors import ServerRejected as ServerRejected
from protocol.errors import ServerUnreachable as ServerUnreachable


class PlayerError(Exception):
    """Base class of the player package's errors."""


class AgentError(PlayerError, ClientError):
    """The agent raised an exception or stayed busy too long."""


class ResignMatch(PlayerError):
    """Raised by `Agent.choose` to resign the current match.

    With ``stop=True`` the client plays no further matches after this one
    (e.g. the human closed standard input).
    """

    def __init__(self, reason: str = "resigned", *, stop: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stop = stop


class UnknownMatch(PlayerError, ClientError):
    """The server is not playing the requested match."""


class EngineError(PlayerError):
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


class NeedsRestart(EngineError):
    """The engine cannot start another game in this process (a fresh one is needed)."""


class CheckFailed(PlayerError):
    """A step failed (already reported)."""


class GtpError(PlayerError):
    """A command that fails: its message is the answer after ``?``."""
