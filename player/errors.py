"""Errors of the player runtime: every failure a user can meet, with a readable message."""

from __future__ import annotations

# the protocol client's errors, re-exported: the player's callers meet them too
from protocol.errors import ClientError as ClientError
from protocol.errors import ConnectionLost as ConnectionLost
from protocol.errors import ServerProtocolError as ServerProtocolError
from protocol.errors import ServerRejected as ServerRejected
from protocol.errors import ServerUnreachable as ServerUnreachable
from protocol.messages import Fault


class AgentError(ClientError):
    """The agent raised an exception or stayed busy too long.

    `fault` is how the match it ends is recorded (``resign.fault``): ``crash``
    for an exception, ``stalled`` for an agent still busy past its time.
    """

    def __init__(self, message: str, *, fault: Fault = "crash") -> None:
        super().__init__(message)
        self.fault: Fault = fault


class ResignMatch(Exception):
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
