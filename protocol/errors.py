"""Every error of the protocol package, under one base class: `WireError`.

The codec's two (`ProtocolError`: the peer broke the protocol, a malformed or
refused frame; `ConnectionClosed`: the peer went away) and the protocol
client's (`ClientError` and its kinds: every way talking to a server can fail,
with a readable message). They live together because every end of the
protocol (the server, the player runtime, the tournament director, `arena
status`/`ping`/`watch`) meets them; a caller that only needs to know that the
conversation failed catches `WireError`.
"""

from __future__ import annotations


class WireError(Exception):
    """Base class of the protocol package's errors."""


class ProtocolError(WireError):
    """The peer broke the protocol; `code` is one of the documented error codes."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def __repr__(self) -> str:
        return f"ProtocolError({self.code!r}, {self.message!r})"


class ConnectionClosed(WireError):
    """The peer closed the connection (cleanly, between frames, or mid-frame)."""


class ClientError(WireError):
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
