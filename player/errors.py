"""Errors of the player runtime: every failure a user can meet, with a readable message."""

from __future__ import annotations

# the protocol client's errors, re-exported: the player's callers meet them too
from protocol.errors import ClientError as ClientError
from protocol.errors import ConnectionLost as ConnectionLost
from protocol.errors import ServerProtocolError as ServerProtocolError
from protocol.errors import ServerRejected as ServerRejected
from protocol.errors import ServerUnreachable as ServerUnreachable


class AgentError(ClientError):
    """The agent raised an exception or stayed busy too long."""


class ResignMatch(Exception):
    """Raised by `Agent.choose` to resign the current match.

    With ``stop=True`` the client plays no further matches after this one
    (e.g. the human closed standard input).
    """

    def __init__(self, reason: str = "resigned", *, stop: bool = False) -> None:
        super().__init__(reason)
        self.reason = reason
        self.stop = stop
