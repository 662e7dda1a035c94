"""Every error the games library raises, under one base class: `GameError`.

Syntax and legality are different errors, as in python-chess: text that is not
a move of this game (`InvalidMoveError`) is not a move the position forbids
(`IllegalMoveError`). Each is also a ValueError, for callers that treat every
bad input alike.
"""

from __future__ import annotations


class GameError(Exception):
    """Base class of the games library's errors."""


class InvalidMoveError(GameError, ValueError):
    """The text or wire value is not a syntactically valid move for this game."""


class IllegalMoveError(GameError, ValueError):
    """The move is well formed but not legal in the given position."""


class InvalidStateError(GameError, ValueError):
    """An encoded state could not be decoded into a valid state of this game."""


class UnknownGameError(GameError, ValueError):
    """No game is registered under the requested name."""
