"""Every error of the command line, under one base class: `CliError`.

Each stops its command with one line for the user (never a traceback); the
packages below raise their own (`GameError`, `StoreError`, ...), which the
commands catch and print the same way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from protocol.errors import ClientError

if TYPE_CHECKING:
    from server.web.config import WebConfig


class CliError(Exception):
    """Base class of the command line's errors."""


class ExportError(CliError):
    """What to tell the user, on one line."""


class RecordsError(CliError):
    """A user error reading the records (one line for the user)."""


class OutputError(CliError):
    """A result file that could not be written (one line: the path and the reason)."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"--out {path!r}: cannot write it: {reason}")
        self.path = path


class WebListenError(CliError):
    """The web app cannot listen on its address."""

    def __init__(self, web: WebConfig, error: OSError) -> None:
        super().__init__(
            f"cannot listen on {web.host}:{web.port} (--web): {error.strerror or error}"
        )


class OpponentFailed(CliError, ClientError):
    """The --vs opponent's process ended before the games were played."""
