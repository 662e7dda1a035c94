"""Errors of the server's request handling."""

from __future__ import annotations


class RequestError(Exception):
    """A refused (non-fatal) request; `code` is a documented error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
