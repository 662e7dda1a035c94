"""Errors of a protocol client: every way talking to a server can fail, with a readable message.

They live beside the codec because every client of the protocol (the player
runtime, the tournament director, `arena status`/`ping`/`watch`) meets them.
"""

from __future__ import annotations


class ClientError(Exception):
    """The client cannot go on; ``str(exc)`` is a message for the user."""


class ServerUnreachable(ClientError):
    """No connection to the server could be made within the allowed time."""


class ConnectionLost(ClientError):
    """The connection dropped (retried internally; raised when retries run out)."""


class ServerSilent(ConnectionLost):
    """The connection is open but the server says nothing: no ``welcome``, or no ping for two
    ping intervals. Its host is frozen (SIGSTOP, a hung VM) or the path to it is down."""


class ServerRejected(ClientError):
    """The server refused a request or closed the connection with an error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"server error {code}: {message}")
        self.code = code
        self.message = message


class ServerProtocolError(ClientError):
    """The server sent something that breaks the protocol."""
