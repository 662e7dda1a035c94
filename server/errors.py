"""Every error of the server package, under one base class: `ServerError`.

Each names a case its caller answers on its own: a refused request gets an
``error`` frame with its documented code (`RequestError`), a web request an
HTTP status (`ApiError`, `EngineError`), a bad PROXY header closes that
connection (`ProxyHeaderError`); the rest stop `arena serve` or an account
command with one line for the user.
"""

from __future__ import annotations


class ServerError(Exception):
    """Base class of the server package's errors."""


class RequestError(ServerError):
    """A refused (non-fatal) request; `code` is a documented error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class AccountError(ServerError):
    """A refused account operation; `code` is a documented error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class TlsError(ServerError):
    """The TLS certificate or key cannot be used (one readable line)."""


class MarkingError(ServerError, ValueError):
    """A `mark` or `accept` the agreement refuses (the message says why, in one line)."""


class ProxyHeaderError(ServerError):
    """A connection from a trusted proxy did not begin with a usable header.

    `code`: ``proxy_header_invalid`` (not a PROXY header, or a malformed one),
    ``proxy_header_too_large``, ``proxy_header_timeout`` or
    ``proxy_header_missing`` (the connection closed before its header ended).
    """

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ApiError(ServerError):
    """A web API request that is refused; `status` is the HTTP status to answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class EngineError(ServerError):
    """An engine request that is refused; `status` is the HTTP status to answer."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
