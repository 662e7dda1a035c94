"""Errors of the player runtime: every failure a user can meet, with a readable message."""

from __future__ import annotations


class ClientError(Exception):
    """The client cannot go on; ``str(exc)`` is a message for the user."""


class ServerUnreachable(ClientError):
    """No connection to the server could be made within the allowed time."""


class ConnectionLost(ClientError):
    """The connection dropped (retried internally; raised when retries run out)."""


class ServerRejected(ClientError):
    """The server refused a request or closed the connection with an error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"server error {code}: {message}")
        self.code = code
        self.message = message


class ServerProtocolError(ClientError):
    """The server sent something that breaks the protocol."""


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
