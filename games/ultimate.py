"""Ultimate tic-tac-toe: nine tic-tac-toe boards in a 3×3 grid of boards.

Rules: a move in cell (r, c) of a sub-board sends the opponent to sub-board
(r, c). A sub-board is closed once won or full; a player sent to a closed
sub-board may play in any open cell of any open sub-board (the first move is
free too). Three won sub-boards in a line win the game. A full sub-board
without a line counts for nobody; when every sub-board is closed and nobody
has three in a line, the game is drawn (Termination.BOARD_FULL).

Moves are global cells ``row * 9 + col`` (row 0 = top), written like
tic-tac-toe squares ``a1``..``i9`` (a1 = bottom left).

State: ``(stones0, stones1, won0, won1, closed, forced, ply, status)``, a
plain tuple read by the named indices `STONES0` .. `STATUS` below. The stone
boards hold sub-board ``s`` (row-major, 0 = top left) in bits
``9 * s .. 9 * s + 8``, one bit per local cell ``r * 3 + c``; ``won0``,
``won1`` and ``closed`` are 9-bit masks over the sub-boards; ``forced`` is the
sub-board the mover must play in, or -1 for a free choice (and in finished
games); ``status`` is ONGOING, 0 or 1 (the winner) or DRAW. Lines on a 3×3
board are looked up in a 512-entry table indexed by the 9-bit mask.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from games.base import (
    DRAW,
    ONGOING,
    Game,
    InvalidStateError,
    Outcome,
    decode_int_move,
    format_square,
    line_game_outcome,
    parse_square,
)

#: A plain tuple, read by these named indices: a NamedTuple's constructor made
#: `apply` about a fifth slower (docs/ARCHITECTURE.md, "Game states").
UltimateState = tuple[int, int, int, int, int, int, int, int]
STONES0, STONES1, WON0, WON1, CLOSED, FORCED, PLY, STATUS = range(8)

FREE = -1
SYMBOLS = ("X", "O")

LINES = (0o007, 0o070, 0o700, 0o111, 0o222, 0o444, 0o421, 0o124)
"""The eight lines of a 3×3 board as 9-bit masks (bit r * 3 + c)."""

#: WINS[mask]: does the 9-bit mask contain a line?
WINS: tuple[bool, ...] = tuple(any(m & line == line for line in LINES) for m in range(512))
#: EMPTY[occupied]: the local cells (0..8) not in the 9-bit mask `occupied`, ascending
EMPTY: tuple[tuple[int, ...], ...] = tuple(
    tuple(i for i in range(9) if not (m >> i) & 1) for m in range(512)
)
#: global cell -> sub-board, local cell, and the bit of the internal layout
CELL_SUB: tuple[int, ...] = tuple((cell // 27) * 3 + (cell % 9) // 3 for cell in range(81))
CELL_LOCAL: tuple[int, ...] = tuple(((cell // 9) % 3) * 3 + cell % 3 for cell in range(81))
CELL_BIT: tuple[int, ...] = tuple(9 * CELL_SUB[c] + CELL_LOCAL[c] for c in range(81))
#: internal bit (9 * sub + local) -> global cell
BIT_CELL: tuple[int, ...] = tuple(sorted(range(81), key=lambda cell: CELL_BIT[cell]))


def sub_board_name(sub: int) -> str:
    """A sub-board as its bottom-left and top-right squares, e.g. ``d4-f6`` for the centre."""
    row, col = (sub // 3) * 3, (sub % 3) * 3
    return f"{format_square(row + 2, col, 9)}-{format_square(row, col + 2, 9)}"


def _sub_masks(stones: int) -> list[int]:
    return [(stones >> (9 * s)) & 511 for s in range(9)]


def _pack(masks: list[int]) -> int:
    stones = 0
    for sub in range(8, -1, -1):
        stones = (stones << 9) | masks[sub]
    return stones


class UltimateTicTacToe(Game[UltimateState, int]):
    """Ultimate tic-tac-toe; X (seat 0) moves first, anywhere."""

    name: ClassVar[str] = "ultimate"
    description: ClassVar[str] = (
        "ultimate tic-tac-toe: your cell picks your opponent's sub-board; win three in a line"
    )
    notation_help: ClassVar[str] = (
        "a square of the 9x9 grid, column letter + row number, e.g. 'e5' (a1 = bottom left);"
        " play in the sub-board your opponent's last cell points to, anywhere if it is closed"
    )
    seat_names: ClassVar[tuple[str, ...]] = ("X", "O")

    # --- rules -----------------------------------------------------------------

    def initial_state(self) -> UltimateState:
        return (0, 0, 0, 0, 0, FREE, 0, ONGOING)

    def to_move(self, state: UltimateState) -> int:
        return state[PLY] & 1

    def legal_moves(self, state: UltimateState) -> list[int]:
        stones0, stones1, _, _, closed, forced, _, status = state
        if status != ONGOING:
            return []
        occupied = stones0 | stones1
        if forced != FREE:
            base = 9 * forced
            return [BIT_CELL[base + i] for i in EMPTY[(occupied >> base) & 511]]
        moves: list[int] = []
        for sub in range(9):
            if not (closed >> sub) & 1:
                base = 9 * sub
                moves.extend(BIT_CELL[base + i] for i in EMPTY[(occupied >> base) & 511])
        moves.sort()
        return moves

    def apply(self, state: UltimateState, move: int) -> UltimateState:
        stones0, stones1, won0, won1, closed, _, ply, status = state
        sub = CELL_SUB[move]
        local = CELL_LOCAL[move]
        base = 9 * sub
        bit = 1 << (base + local)
        mover = ply & 1
        if mover == 0:
            stones0 |= bit
            mine, theirs = (stones0 >> base) & 511, (stones1 >> base) & 511
        else:
            stones1 |= bit
            mine, theirs = (stones1 >> base) & 511, (stones0 >> base) & 511
        ply += 1
        if WINS[mine]:
            closed |= 1 << sub
            if mover == 0:
                won0 |= 1 << sub
                if WINS[won0]:
                    status = 0
            else:
                won1 |= 1 << sub
                if WINS[won1]:
                    status = 1
        elif mine | theirs == 511:
            closed |= 1 << sub
        if status == ONGOING and closed == 511:
            status = DRAW
        forced = FREE if status != ONGOING or (closed >> local) & 1 else local
        return (stones0, stones1, won0, won1, closed, forced, ply, status)

    def outcome(self, state: UltimateState) -> Outcome | None:
        return line_game_outcome(state[STATUS])

    def is_terminal(self, state: UltimateState) -> bool:
        return state[STATUS] != ONGOING

    def playout(
        self, state: UltimateState, rng: random.Random, max_moves: int | None = None
    ) -> UltimateState:
        """Random moves to the end (or `max_moves`) on per-sub-board 9-bit masks.

        Moves are drawn with ``getrandbits(30) % n`` (bias below 1e-8). A free move
        picks uniformly among all open cells of all open sub-boards.
        """
        stones0, stones1, won0, won1, closed, forced, ply, status = state
        if status != ONGOING:
            return state
        if max_moves is not None and max_moves < 81 - ply:
            return self._playout_generic(state, rng, max_moves)
        getrandbits = rng.getrandbits
        wins = WINS
        empty = EMPTY
        masks0, masks1 = _sub_masks(stones0), _sub_masks(stones1)
        if ply & 1:
            mine, theirs, my_won, their_won = masks1, masks0, won1, won0
        else:
            mine, theirs, my_won, their_won = masks0, masks1, won0, won1
        while True:
            if forced == FREE:
                # Count the open cells of the open sub-boards, then find the r-th one.
                total = 0
                for sub in range(9):
                    if not (closed >> sub) & 1:
                        total += len(empty[mine[sub] | theirs[sub]])
                r = getrandbits(30) % total
                for sub in range(9):
                    if not (closed >> sub) & 1:
                        cells = empty[mine[sub] | theirs[sub]]
                        if r < len(cells):
                            local = cells[r]
                            break
                        r -= len(cells)
            else:
                sub = forced
                cells = empty[mine[sub] | theirs[sub]]
                local = cells[getrandbits(30) % len(cells)]
            m = mine[sub] | (1 << local)
            mine[sub] = m
            if wins[m]:
                closed |= 1 << sub
                my_won |= 1 << sub
                if wins[my_won]:
                    won = True
                    break
                if closed == 511:
                    won = False
                    break
            elif m | theirs[sub] == 511:
                closed |= 1 << sub
                if closed == 511:
                    won = False
                    break
            forced = FREE if (closed >> local) & 1 else local
            mine, theirs, my_won, their_won = theirs, mine, their_won, my_won
        # `mine` made the last move.
        last_seat = 0 if mine is masks0 else 1
        status = last_seat if won else DRAW
        won0, won1 = (my_won, their_won) if last_seat == 0 else (their_won, my_won)
        stones0, stones1 = _pack(masks0), _pack(masks1)
        ply = (stones0 | stones1).bit_count()
        return (stones0, stones1, won0, won1, closed, FREE, ply, status)

    def _playout_generic(
        self, state: UltimateState, rng: random.Random, max_moves: int | None
    ) -> UltimateState:
        """Random playout for any move budget: one `apply` per move."""
        moves_left = -1 if max_moves is None else max_moves
        getrandbits = rng.getrandbits
        while moves_left != 0 and state[STATUS] == ONGOING:
            moves = self.legal_moves(state)
            state = self.apply(state, moves[getrandbits(30) % len(moves)])
            moves_left -= 1
        return state

    # --- notation and wire -----------------------------------------------------

    def parse_move(self, text: str) -> int:
        row, col = parse_square(text, 9, 9)
        return row * 9 + col

    def format_move(self, move: int) -> str:
        row, col = divmod(move, 9)
        return format_square(row, col, 9)

    def decode_move(self, data: Any) -> int:
        return decode_int_move(data, 81)

    def _rows(self, state: UltimateState) -> list[str]:
        """The 9×9 board as strings, top row first."""
        stones0, stones1 = state[STONES0], state[STONES1]
        cells = []
        for cell in range(81):
            bit = 1 << CELL_BIT[cell]
            cells.append("X" if stones0 & bit else "O" if stones1 & bit else ".")
        return ["".join(cells[row * 9 : row * 9 + 9]) for row in range(9)]

    def _macro_rows(self, state: UltimateState) -> list[str]:
        """The 3×3 board of sub-boards: 'X'/'O' won, '-' full without a line, '.' open."""
        won0, won1, closed = state[WON0], state[WON1], state[CLOSED]
        marks = [
            "X"
            if (won0 >> s) & 1
            else "O"
            if (won1 >> s) & 1
            else "-"
            if (closed >> s) & 1
            else "."
            for s in range(9)
        ]
        return ["".join(marks[r * 3 : r * 3 + 3]) for r in range(3)]

    def encode_state(self, state: UltimateState) -> dict[str, Any]:
        """``board`` (9 rows, top first), ``to_move``, ``forced`` (sub-board 0..8, row-major
        from the top left, or None for a free choice) and ``sub_boards`` (3 rows of
        'X'/'O' won, '-' drawn, '.' open)."""
        forced = state[FORCED]
        return {
            "board": self._rows(state),
            "to_move": self.to_move(state),
            "forced": None if forced == FREE else forced,
            "sub_boards": self._macro_rows(state),
        }

    def decode_state(self, data: Any) -> UltimateState:
        if not isinstance(data, dict) or not isinstance(data.get("board"), list):
            raise InvalidStateError(f"state must be a map with a 'board' list, not {data!r}")
        rows = data["board"]
        if len(rows) != 9 or any(not isinstance(r, str) or len(r) != 9 for r in rows):
            raise InvalidStateError("board must be 9 strings of length 9")
        stones = [0, 0]
        for cell, char in enumerate("".join(rows)):
            if char == "X":
                stones[0] |= 1 << CELL_BIT[cell]
            elif char == "O":
                stones[1] |= 1 << CELL_BIT[cell]
            elif char != ".":
                raise InvalidStateError(f"bad cell {char!r} (expected '.', 'X' or 'O')")
        count0, count1 = stones[0].bit_count(), stones[1].bit_count()
        if count0 - count1 not in (0, 1):
            raise InvalidStateError(f"impossible stone counts X={count0}, O={count1}")
        ply = count0 + count1
        masks = (_sub_masks(stones[0]), _sub_masks(stones[1]))
        won = [0, 0]
        closed = 0
        for sub in range(9):
            lines = (WINS[masks[0][sub]], WINS[masks[1][sub]])
            if lines[0] and lines[1]:
                raise InvalidStateError(f"both players have a line in sub-board {sub}")
            if lines[0] or lines[1]:
                won[0 if lines[0] else 1] |= 1 << sub
                closed |= 1 << sub
            elif masks[0][sub] | masks[1][sub] == 511:
                closed |= 1 << sub
        status = ONGOING
        if WINS[won[0]] and WINS[won[1]]:
            raise InvalidStateError("both players have three sub-boards in a line")
        if WINS[won[0]] or WINS[won[1]]:
            status = 0 if WINS[won[0]] else 1
            if status != (ply - 1) & 1:
                raise InvalidStateError(f"{SYMBOLS[status]} won but did not move last")
        elif closed == 511:
            status = DRAW
        forced = self._decode_forced(data.get("forced"), masks, closed, ply, status)
        state = (stones[0], stones[1], won[0], won[1], closed, forced, ply, status)
        if data.get("to_move", self.to_move(state)) != self.to_move(state):
            raise InvalidStateError("'to_move' does not match the stone counts")
        if "sub_boards" in data and data["sub_boards"] != self._macro_rows(state):
            raise InvalidStateError("'sub_boards' does not match the board")
        return state

    @staticmethod
    def _decode_forced(
        value: Any, masks: tuple[list[int], list[int]], closed: int, ply: int, status: int
    ) -> int:
        """Check `forced` against the board: the last move must have pointed there."""
        last = masks[(ply - 1) & 1]
        # local cells where the last mover has a stone: one of them was the last move
        pointed = 0
        for sub in range(9):
            pointed |= last[sub]
        if value is None:
            if status == ONGOING and ply > 0 and not pointed & closed:
                raise InvalidStateError(
                    "'forced' is null but no move of the last player points to a closed sub-board"
                )
            return FREE
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 8:
            raise InvalidStateError(f"'forced' must be a sub-board 0..8 or null, not {value!r}")
        if status != ONGOING:
            raise InvalidStateError("'forced' must be null in a finished game")
        if (closed >> value) & 1:
            raise InvalidStateError(f"'forced' sub-board {value} is closed")
        if ply == 0 or not (pointed >> value) & 1:
            raise InvalidStateError(
                f"'forced' sub-board {value} is not where any move of the last player points"
            )
        return value

    def render(self, state: UltimateState) -> str:
        rows = self._rows(state)
        lines = []
        for row, text in enumerate(rows):
            if row in (3, 6):
                lines.append("  ------+-------+------")
            cells = [" ".join(text[i : i + 3]) for i in (0, 3, 6)]
            lines.append(f"{9 - row} " + " | ".join(cells))
        lines.append("  a b c   d e f   g h i")
        forced, status = state[FORCED], state[STATUS]
        if status == ONGOING:
            where = (
                f"sub-board {sub_board_name(forced)}" if forced != FREE else "any open sub-board"
            )
            lines.append(f"{SYMBOLS[self.to_move(state)]} to play in {where}")
        return "\n".join(lines)
