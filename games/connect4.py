"""Connect four: drop discs into columns; k (default 4) in a row wins.

State: ``(stones0, stones1, ply, status)``, a plain tuple read by the named
indices `STONES0`, `STONES1`, `PLY` and `STATUS`. The stones are the classic
column-major bitboard (John Tromp's layout): the cell in column ``c``, row ``r`` (row 0 = bottom) is
bit ``c * (height + 1) + r``. The extra bit on top of every column is always
empty, so shifting a board by 1 (vertical), ``height + 1`` (horizontal),
``height`` and ``height + 2`` (the diagonals) never wraps a line from one
column into the next. ``status`` is ONGOING, 0 or 1 (the winning seat) or DRAW,
so `outcome` is O(1). A move is a column index.

A line test ANDs the mover's board with shifted copies of itself, doubling the
run length each time: for k = 4, ``m = b & (b >> s)`` then ``m & (m >> 2 * s)``
is non-zero iff ``b`` holds four in a row in direction ``s``. Only the mover
can have just made a line, so only the mover's board is tested.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from games.base import (
    DRAW,
    ONGOING,
    Game,
    InvalidMoveError,
    InvalidStateError,
    Option,
    Outcome,
    column_letters,
    decode_int_move,
    line_game_outcome,
)

#: A plain tuple, read by these named indices: a NamedTuple's constructor made
#: `apply` about a fifth slower (docs/ARCHITECTURE.md, "Game states").
Connect4State = tuple[int, int, int, int]
STONES0, STONES1, PLY, STATUS = range(4)


def line_shifts(height: int, k: int) -> tuple[tuple[int, ...], ...]:
    """Per direction, the right shifts whose successive ANDs leave the starts of k-runs.

    Each stage doubles the run length (1, 2, 4, ...); the last stage tops it up to k
    (a run of L at p and a run of L at p + (k - L) overlap into a run of k).
    """
    multiples: list[int] = []
    length = 1
    while 2 * length <= k:
        multiples.append(length)
        length *= 2
    if length < k:
        multiples.append(k - length)
    directions = (1, height + 1, height, height + 2)  # vertical, horizontal, two diagonals
    return tuple(tuple(m * step for m in multiples) for step in directions)


class Connect4(Game[Connect4State, int]):
    """Connect four on a width×height board; X (seat 0) drops first."""

    name: ClassVar[str] = "connect4"
    description: ClassVar[str] = (
        "connect four: drop discs into columns, k in a row (any direction) wins"
    )
    notation_help: ClassVar[str] = (
        "a column number, 1 = leftmost (e.g. '4'); a column letter ('d') works too"
    )
    option_specs: ClassVar[tuple[Option, ...]] = (
        Option("width", int, 7, "number of columns", minimum=4, maximum=26),
        Option("height", int, 6, "number of rows", minimum=4, maximum=26),
        Option("k", int, 4, "discs in a row needed to win", minimum=3),
    )
    seat_names: ClassVar[tuple[str, ...]] = ("X", "O")

    @classmethod
    def check_options(cls, values: dict[str, Any]) -> None:
        width, height, k = values["width"], values["height"], values["k"]
        if k > max(width, height):
            raise ValueError(
                f"option 'k' ({k}) cannot exceed the board's longer side"
                f" ({max(width, height)}); nobody could ever win"
            )

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.width: int = self.options["width"]
        self.height: int = self.options["height"]
        self.k: int = self.options["k"]
        self.cells = self.width * self.height
        stride = self.height + 1
        self.stride = stride
        self.bottom = tuple(1 << (c * stride) for c in range(self.width))
        self.top = tuple(1 << (c * stride + self.height - 1) for c in range(self.width))
        self.column_mask = tuple(
            ((1 << self.height) - 1) << (c * stride) for c in range(self.width)
        )
        #: the always-empty bit above each column: a disc shifted into it means "column full"
        self.sentinels = sum(1 << (c * stride + self.height) for c in range(self.width))
        self.shifts = line_shifts(self.height, self.k)
        # for encode_state: per row (top first) its mask and its cells' bits
        self._row_bits: list[tuple[int, list[int]]] = []
        for row in range(self.height - 1, -1, -1):
            bits = [1 << (c * stride + row) for c in range(self.width)]
            self._row_bits.append((sum(bits), bits))
        self._empty_row = "." * self.width
        self._row_cache: dict[tuple[int, int], str] = {}  # a row's discs -> its text

    # --- rules -----------------------------------------------------------------

    def has_line(self, stones: int) -> bool:
        """Whether the bitboard `stones` holds k in a row in any direction."""
        for shifts in self.shifts:
            m = stones
            for shift in shifts:
                m &= m >> shift
            if m:
                return True
        return False

    def initial_state(self) -> Connect4State:
        return (0, 0, 0, ONGOING)

    def to_move(self, state: Connect4State) -> int:
        return state[PLY] & 1

    def legal_moves(self, state: Connect4State) -> list[int]:
        if state[STATUS] != ONGOING:
            return []
        occupied = state[STONES0] | state[STONES1]
        top = self.top
        return [c for c in range(self.width) if not occupied & top[c]]

    def apply(self, state: Connect4State, move: int) -> Connect4State:
        stones0, stones1, ply, _ = state
        bit = ((stones0 | stones1) + self.bottom[move]) & self.column_mask[move]
        mover = ply & 1
        ply += 1
        if mover == 0:
            stones0 |= bit
            mine = stones0
        else:
            stones1 |= bit
            mine = stones1
        if self.has_line(mine):
            return (stones0, stones1, ply, mover)
        return (stones0, stones1, ply, DRAW if ply == self.cells else ONGOING)

    def outcome(self, state: Connect4State) -> Outcome | None:
        return line_game_outcome(state[STATUS])

    def is_terminal(self, state: Connect4State) -> bool:
        return state[STATUS] != ONGOING

    def playout(
        self, state: Connect4State, rng: random.Random, max_moves: int | None = None
    ) -> Connect4State:
        """Random moves to the end (or `max_moves`), with a specialised loop for k <= 4.

        The loop keeps the playable columns as a list of their next free cell's bit;
        a column that fills up is swap-removed. Moves are drawn with
        ``getrandbits(30) % n`` (bias below 1e-8, far cheaper than ``int(random() * n)``).
        """
        stones0, stones1, ply, status = state
        if status != ONGOING:
            return state
        if (max_moves is not None and max_moves < self.cells - ply) or self.k > 4:
            return self._playout_generic(state, rng, max_moves)
        occupied = stones0 | stones1
        free = [
            (occupied + self.bottom[c]) & self.column_mask[c]
            for c in range(self.width)
            if not occupied & self.top[c]
        ]
        n = len(free)
        getrandbits = rng.getrandbits
        sentinels = self.sentinels
        # k = 3 or 4: runs of 2 (shift s), then of k (shift (k - 2) * s).
        ha = self.stride
        da = ha - 1
        ea = ha + 1
        extra = self.k - 2
        vb, hb, db, eb = extra, extra * ha, extra * da, extra * ea
        if ply & 1:
            me, you = stones1, stones0
        else:
            me, you = stones0, stones1
        # Nobody can have k in a row before their k-th disc: skip the line tests.
        for _ in range(max(0, 2 * self.k - 2 - ply)):
            i = getrandbits(30) % n
            bit = free[i]
            me |= bit
            bit <<= 1
            if bit & sentinels:
                n -= 1
                free[i] = free[n]
            else:
                free[i] = bit
            me, you = you, me
        while True:
            i = getrandbits(30) % n
            bit = free[i]
            me |= bit
            m = me & (me >> 1)
            if m & (m >> vb):
                break
            m = me & (me >> ha)
            if m & (m >> hb):
                break
            m = me & (me >> da)
            if m & (m >> db):
                break
            m = me & (me >> ea)
            if m & (m >> eb):
                break
            bit <<= 1
            if bit & sentinels:
                n -= 1
                if n == 0:
                    return self._final(me, you, won=False)
                free[i] = free[n]
            else:
                free[i] = bit
            me, you = you, me
        return self._final(me, you, won=True)

    def _final(self, last: int, other: int, *, won: bool) -> Connect4State:
        """Rebuild a state from the last mover's board and the other one."""
        ply = (last | other).bit_count()
        last_seat = (ply - 1) & 1
        status = last_seat if won else DRAW
        if last_seat == 0:
            return (last, other, ply, status)
        return (other, last, ply, status)

    def _playout_generic(
        self, state: Connect4State, rng: random.Random, max_moves: int | None
    ) -> Connect4State:
        """Random playout for any k and move budget: one `apply` per move."""
        moves_left = -1 if max_moves is None else max_moves
        getrandbits = rng.getrandbits
        while moves_left != 0 and state[STATUS] == ONGOING:
            moves = self.legal_moves(state)
            state = self.apply(state, moves[getrandbits(30) % len(moves)])
            moves_left -= 1
        return state

    # --- notation and wire -----------------------------------------------------

    def parse_move(self, text: str) -> int:
        cleaned = text.strip().lower()
        letters = column_letters(self.width)
        if cleaned.isdigit():
            column = int(cleaned)
            if 1 <= column <= self.width:
                return column - 1
        elif len(cleaned) == 1 and cleaned in letters:
            return letters.index(cleaned)
        raise InvalidMoveError(f"{text!r} is not a column (1-{self.width} or a-{letters[-1]})")

    def format_move(self, move: int) -> str:
        return str(move + 1)

    def decode_move(self, data: Any) -> int:
        return decode_int_move(data, self.width, "column")

    def _rows(self, state: Connect4State) -> list[str]:
        """The board as strings, top row first (the server encodes one per move)."""
        stones0, stones1 = state[STONES0], state[STONES1]
        occupied = stones0 | stones1
        empty = self._empty_row
        cache = self._row_cache
        rows = []
        for mask, bits in self._row_bits:
            if not occupied & mask:
                rows.append(empty)
                continue
            key = (stones0 & mask, stones1 & mask)  # rows' bits are disjoint: unique per row
            text = cache.get(key)
            if text is None:
                if len(cache) >= 65_536:
                    cache.clear()
                text = "".join(["X" if stones0 & b else "O" if stones1 & b else "." for b in bits])
                cache[key] = text
            rows.append(text)
        return rows

    def encode_state(self, state: Connect4State) -> dict[str, Any]:
        return {"board": self._rows(state), "to_move": self.to_move(state)}

    def decode_state(self, data: Any) -> Connect4State:
        if not isinstance(data, dict) or not isinstance(data.get("board"), list):
            raise InvalidStateError(f"state must be a map with a 'board' list, not {data!r}")
        rows = data["board"]
        if len(rows) != self.height or any(
            not isinstance(r, str) or len(r) != self.width for r in rows
        ):
            raise InvalidStateError(f"board must be {self.height} strings of length {self.width}")
        stones = [0, 0]
        for index, text in enumerate(rows):
            row = self.height - 1 - index
            for col, char in enumerate(text):
                bit = 1 << (col * self.stride + row)
                if char == "X":
                    stones[0] |= bit
                elif char == "O":
                    stones[1] |= bit
                elif char != ".":
                    raise InvalidStateError(f"bad cell {char!r} (expected '.', 'X' or 'O')")
        occupied = stones[0] | stones[1]
        for col in range(self.width):
            column = (occupied & self.column_mask[col]) >> (col * self.stride)
            if column & (column + 1):
                raise InvalidStateError(f"column {col + 1} has a disc floating above a gap")
        count0, count1 = stones[0].bit_count(), stones[1].bit_count()
        if count0 - count1 not in (0, 1):
            raise InvalidStateError(f"impossible disc counts X={count0}, O={count1}")
        ply = count0 + count1
        lines = [self.has_line(stones[0]), self.has_line(stones[1])]
        status = ONGOING
        if lines[0] or lines[1]:
            winner = 0 if lines[0] else 1
            if (
                lines[1 - winner]
                or winner != (ply - 1) & 1
                or not self._last_disc_made_line(stones[winner], occupied)
            ):
                raise InvalidStateError("the lines on this board cannot come from one game")
            status = winner
        elif ply == self.cells:
            status = DRAW
        state = (stones[0], stones[1], ply, status)
        if data.get("to_move", self.to_move(state)) != self.to_move(state):
            raise InvalidStateError("'to_move' does not match the disc counts")
        return state

    def _last_disc_made_line(self, mine: int, occupied: int) -> bool:
        """Whether removing one of `mine`'s top discs leaves it without a line."""
        for col in range(self.width):
            column = occupied & self.column_mask[col]
            if column:
                top_bit = 1 << (column.bit_length() - 1)
                if mine & top_bit and not self.has_line(mine & ~top_bit):
                    return True
        return False

    def render(self, state: Connect4State) -> str:
        pad = len(str(self.width))
        lines = [" ".join(c.rjust(pad) for c in row) for row in self._rows(state)]
        lines.append(" ".join(str(c + 1).rjust(pad) for c in range(self.width)))
        return "\n".join(lines)
