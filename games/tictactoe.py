"""Tic-tac-toe and its m,n,k generalisation (default 3×3, three in a row)."""

from __future__ import annotations

from typing import ClassVar

from games.mnk import MNKGame


class TicTacToe(MNKGame):
    """The m,n,k-game: X and O alternate; k (or more) in a row wins; a full board draws."""

    name: ClassVar[str] = "tictactoe"
    description: ClassVar[str] = "m,n,k-game (tic-tac-toe): k in a row on a width x height board"
    default_width: ClassVar[int] = 3
    default_height: ClassVar[int] = 3
    default_k: ClassVar[int] = 3
