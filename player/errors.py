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
from protocol.messages import Fault


class PlayerError(Exception):
    """Base class of the player package's errors."""


class AgentError(PlayerError, ClientError):
    """The agent raised an exception or stayed busy too long.

    `fault` is how the match it ends is recorded (``resign.fault``): ``crash``
    for an exception, ``stalled`` for an agent still busy past its time.
    """

    def __init__(self, message: str, *, fault: Fault = "crash") -> None:
        super().__init__(message)
        self.fault: Fault = fault


class ResignMatch(PlayerError):
    """Raised by `Agent.choose` to resign the current match.

    With ``stop=True`` the client plays no further matches after this one
    (e.g. the human closed standard input). With a `fault` the player gives up
    because its own program failed (an engine that crashed, stalled, played an
    illegal move or broke its protocol): the match is recorded with that
    termination, not as a resignation (docs/PROTOCOL.md, ``resign``).
    """

    def __init__(
        self, reason: str = "resigned", *, stop: bool = False, fault: Fault | None = None
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stop = stop
        self.fault = fault


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


class IllegalChoice(PlayerError):
    """The agent chose a move that is not legal (a bug in the agent, said in one line)."""


class GomocupError(PlayerError):
    """A command that fails: its message follows ``ERROR``."""


class TextError(PlayerError):
    """A command that fails: its message goes out as ``info string error: …``."""


class GameRefused(PlayerError):
    """A ``newgame`` for a game this engine was not started for: the engine exits."""


class KernelSpecError(PlayerError, ValueError):
    """The games' kernel specs cannot make the compiled dispatch (a clash, a missing
    function): `python -m player.mcts.fast.gen` says which."""
