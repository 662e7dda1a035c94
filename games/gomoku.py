"""Freestyle gomoku: 15×15, five or more in a row wins."""

from __future__ import annotations

from typing import ClassVar

from games.mnk import MNKGame


class Gomoku(MNKGame):
    """Freestyle gomoku: Black (X) moves first; an unbroken row of five or more wins."""

    name: ClassVar[str] = "gomoku"
    description: ClassVar[str] = "freestyle gomoku: five or more in a row on 15x15"
    seat_names: ClassVar[tuple[str, ...]] = ("X", "O")
    default_width: ClassVar[int] = 15
    default_height: ClassVar[int] = 15
    default_k: ClassVar[int] = 5
