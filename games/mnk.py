"""The m,n,k-game family: k (or more) in a row on a width×height board.

Tic-tac-toe (3,3,3) and freestyle gomoku (15,15,5) are both m,n,k-games and
share this implementation.

State: ``(stones0, stones1, ply, status)``, a plain tuple read by the named
indices `STONES0`, `STONES1`, `PLY` and `STATUS`, where ``stones`` are
bitboards with cell ``row * width + col`` at bit of the same index (row 0 =
top row), ``status`` is ONGOING, 0 or 1 (the winning seat) or DRAW. A move is a cell
index. The line test after a move only looks at the k-long windows through
the cell just played, precomputed per board shape.
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any, ClassVar

from games.base import (
    DRAW,
    ONGOING,
    Game,
    InvalidStateError,
    Option,
    Outcome,
    decode_int_move,
    format_square,
    line_game_outcome,
    parse_square,
    render_grid,
)

#: A plain tuple, read by these named indices: a NamedTuple's constructor made
#: `apply` about a fifth slower (docs/ARCHITECTURE.md, "Game states").
MNKState = tuple[int, int, int, int]
STONES0, STONES1, PLY, STATUS = range(4)

SYMBOLS = (".", "X", "O")


@lru_cache(maxsize=32)
def line_windows(width: int, height: int, k: int) -> tuple[tuple[int, ...], ...]:
    """For each cell, the bitmasks of every k-long window (4 directions) containing it."""
    per_cell: list[list[int]] = [[] for _ in range(width * height)]
    for row in range(height):
        for col in range(width):
            for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
                end_r, end_c = row + dr * (k - 1), col + dc * (k - 1)
                if not (0 <= end_r < height and 0 <= end_c < width):
                    continue
                cells = [(row + dr * i) * width + (col + dc * i) for i in range(k)]
                mask = 0
                for cell in cells:
                    mask |= 1 << cell
                for cell in cells:
                    per_cell[cell].append(mask)
    return tuple(tuple(masks) for masks in per_cell)


class MNKGame(Game[MNKState, int]):
    """k in a row on a width×height board; X (seat 0) moves first."""

    seat_names: ClassVar[tuple[str, ...]] = ("X", "O")
    notation_help: ClassVar[str] = (
        "a square as column letter + row number, e.g. 'b2' (a1 = bottom left)"
    )
    default_width: ClassVar[int] = 3
    default_height: ClassVar[int] = 3
    default_k: ClassVar[int] = 3

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.option_specs = (
            Option("width", int, cls.default_width, "board width (columns)", minimum=1, maximum=26),
            Option("height", int, cls.default_height, "board height (rows)", minimum=1, maximum=26),
            Option("k", int, cls.default_k, "stones in a row needed to win", minimum=1),
        )

    @classmethod
    def check_options(cls, values: dict[str, Any]) -> None:
        width, height, k = values["width"], values["height"], values["k"]
        if width * height < 9:
            raise ValueError(f"board {width}x{height} is too small (at least 9 cells)")
        if k > max(width, height):
            raise ValueError(
                f"option 'k' ({k}) cannot exceed the board's longer side ({max(width, height)})"
            )
        if k < 3:
            raise ValueError(f"option 'k' must be >= 3, not {k}")

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.width: int = self.options["width"]
        self.height: int = self.options["height"]
        self.k: int = self.options["k"]
        self.cells = self.width * self.height
        self.full = (1 << self.cells) - 1
        self.windows = line_windows(self.width, self.height, self.k)

    # --- rules -----------------------------------------------------------------

    def initial_state(self) -> MNKState:
        return (0, 0, 0, ONGOING)

    def to_move(self, state: MNKState) -> int:
        return state[PLY] & 1

    def legal_moves(self, state: MNKState) -> list[int]:
        if state[STATUS] != ONGOING:
            return []
        occupied = state[STONES0] | state[STONES1]
        return [cell for cell in range(self.cells) if not (occupied >> cell) & 1]

    def apply(self, state: MNKState, move: int) -> MNKState:
        stones0, stones1, ply, _ = state
        bit = 1 << move
        mover = ply & 1
        if mover == 0:
            stones0 |= bit
            mine = stones0
        else:
            stones1 |= bit
            mine = stones1
        ply += 1
        for mask in self.windows[move]:
            if mine & mask == mask:
                return (stones0, stones1, ply, mover)
        return (stones0, stones1, ply, DRAW if ply == self.cells else ONGOING)

    def outcome(self, state: MNKState) -> Outcome | None:
        return line_game_outcome(state[STATUS])

    def is_terminal(self, state: MNKState) -> bool:
        return state[STATUS] != ONGOING

    def playout(
        self, state: MNKState, rng: random.Random, max_moves: int | None = None
    ) -> MNKState:
        stones0, stones1, ply, status = state
        if status != ONGOING:
            return state
        occupied = stones0 | stones1
        empty = [cell for cell in range(self.cells) if not (occupied >> cell) & 1]
        windows = self.windows
        rand = rng.random
        budget = len(empty) if max_moves is None else min(max_moves, len(empty))
        mover = ply & 1
        for _ in range(budget):
            n = len(empty)
            i = int(rand() * n)
            cell = empty[i]
            empty[i] = empty[n - 1]
            empty.pop()
            bit = 1 << cell
            ply += 1
            if mover == 0:
                stones0 |= bit
                for mask in windows[cell]:
                    if stones0 & mask == mask:
                        return (stones0, stones1, ply, 0)
                mover = 1
            else:
                stones1 |= bit
                for mask in windows[cell]:
                    if stones1 & mask == mask:
                        return (stones0, stones1, ply, 1)
                mover = 0
        return (stones0, stones1, ply, DRAW if ply == self.cells else ONGOING)

    # --- notation and wire -----------------------------------------------------

    def parse_move(self, text: str) -> int:
        row, col = parse_square(text, self.width, self.height)
        return row * self.width + col

    def format_move(self, move: int) -> str:
        row, col = divmod(move, self.width)
        return format_square(row, col, self.height)

    def decode_move(self, data: Any) -> int:
        return decode_int_move(data, self.cells)

    def _cell_symbols(self, state: MNKState) -> list[str]:
        stones0, stones1 = state[STONES0], state[STONES1]
        return [
            "X" if (stones0 >> c) & 1 else "O" if (stones1 >> c) & 1 else "."
            for c in range(self.cells)
        ]

    def encode_state(self, state: MNKState) -> dict[str, Any]:
        symbols = self._cell_symbols(state)
        rows = ["".join(symbols[r * self.width : (r + 1) * self.width]) for r in range(self.height)]
        return {"board": rows, "to_move": self.to_move(state)}

    def decode_state(self, data: Any) -> MNKState:
        if not isinstance(data, dict) or not isinstance(data.get("board"), list):
            raise InvalidStateError(f"state must be a map with a 'board' list, not {data!r}")
        rows = data["board"]
        if len(rows) != self.height or any(
            not isinstance(r, str) or len(r) != self.width for r in rows
        ):
            raise InvalidStateError(f"board must be {self.height} strings of length {self.width}")
        stones = [0, 0]
        for index, char in enumerate("".join(rows)):
            if char == "X":
                stones[0] |= 1 << index
            elif char == "O":
                stones[1] |= 1 << index
            elif char != ".":
                raise InvalidStateError(f"bad cell {char!r} (expected '.', 'X' or 'O')")
        count0, count1 = stones[0].bit_count(), stones[1].bit_count()
        if count0 - count1 not in (0, 1):
            raise InvalidStateError(f"impossible stone counts X={count0}, O={count1}")
        ply = count0 + count1
        status = ONGOING
        for seat in (0, 1):
            mine = stones[seat]
            if any(mine & m == m for masks in self.windows for m in masks):
                status = seat
        if status == ONGOING and ply == self.cells:
            status = DRAW
        state = (stones[0], stones[1], ply, status)
        if data.get("to_move", self.to_move(state)) != self.to_move(state):
            raise InvalidStateError("'to_move' does not match the stone counts")
        return state

    def render(self, state: MNKState) -> str:
        return render_grid(self._cell_symbols(state), self.width, self.height)
