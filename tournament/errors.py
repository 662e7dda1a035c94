"""Every error of the tournament package, under one base class: `TournamentError`.

The director raises `TournamentError` itself when the tournament cannot go on
(with the server's error code when the server refused); the subclasses name
the cases a caller answers on its own: a bad opening book or SPRT setting
(also ValueErrors: bad input) and records another process is directing.
"""

from __future__ import annotations


class TournamentError(Exception):
    """The tournament cannot go on (bad configuration, server refused, ...); the base class.

    `code` is the server's error code when the server refused (e.g. ``not_owner``).
    """

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


class OpeningError(TournamentError, ValueError):
    """An opening cannot be built or read (one line, naming the line and the move)."""


class SprtError(TournamentError, ValueError):
    """Bad SPRT parameters (the message names the bad key or value)."""


class TournamentRunning(TournamentError):
    """Another process is directing this tournament on these records."""
