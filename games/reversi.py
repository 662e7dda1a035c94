"""Reversi (Othello) on an n×n board, 8×8 by default.

Rules: Black (seat 0) moves first from the standard start (White on d4 and
e5, Black on d5 and e4). A move places a disc that flanks one or more lines
of opposing discs, which are flipped. A player with no such move must pass,
and the pass is an explicit move (`PASS`, written ``pass``): `legal_moves`
returns ``[PASS]`` then and only then. The game ends when neither side can
move (a full board, a wipe-out or a mutual block), with
`Termination.NO_MOVES`; more discs wins, equal counts draw.

`Outcome.points` is the disc difference from each seat's side, e.g.
``(10.0, -10.0)`` for 37-27 to Black. Empty squares are not counted (the
World Othello Federation would award them to the winner; we report the plain
difference).

Coordinates follow Othello usage, not the m,n,k-games': columns a.. from the
left, rows 1.. from the *top*, so a1 is the top-left corner and Black's four
opening moves are d3, c4, f5 and e6, as in published game transcripts.

State: ``(black, white, to_move, status, moves)``, a plain tuple read by the
named indices `BLACK`, `WHITE`, `TO_MOVE`, `STATUS` and `MOVES`.
``black``/``white`` are bitboards with square ``row * size + col`` (row 0 =
top) at the bit of the same index. ``status`` is NORMAL, AFTER_PASS (the previous move was a pass)
or OVER. ``moves`` caches the bitboard of the legal placements of the side
to move (0 when it must pass or the game is over): `apply` computes it
anyway to settle the status, so `legal_moves` and `outcome` are cheap.

Move generation is the usual shift-and-mask fill (Kogge-Stone style), four
shift amounts in both directions, with the edge columns masked out of the
opponent's discs for the sideways directions so nothing wraps around a row.
A single move's flips use precomputed rays from the square.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from games.base import (
    Game,
    InvalidMoveError,
    InvalidStateError,
    Option,
    Outcome,
    Termination,
    column_letters,
    decode_int_move,
    parse_square,
)

#: (black, white, to_move, status, legal placements of the side to move): a plain
#: tuple read by these named indices, as a NamedTuple made `apply` slower by 5-10%
#: (docs/ARCHITECTURE.md, "Game states")
ReversiState = tuple[int, int, int, int, int]
BLACK, WHITE, TO_MOVE, STATUS, MOVES = range(5)

#: the pass move (the only legal move of a side that cannot place a disc)
PASS = -1

NORMAL = 0
AFTER_PASS = 1
OVER = 2

SYMBOLS = ("X", "O")


@dataclass(frozen=True, slots=True)
class _Tables:
    """Bitmasks for one board size."""

    size: int
    full: int
    #: (shift, mask applied to the opponent's discs) for E/W, N/S, NE/SW, NW/SE
    directions: tuple[tuple[int, int], ...]
    #: fill steps needed: runs of up to 2**steps - 1 opponent discs are found
    steps: int
    #: per square, the rays (length >= 2) toward higher / lower square indices
    rays_up: tuple[tuple[int, ...], ...]
    rays_down: tuple[tuple[int, ...], ...]
    #: per square, its (up to 8) neighbours
    neighbours: tuple[int, ...]


@lru_cache(maxsize=8)
def _tables(size: int) -> _Tables:
    cells = size * size
    full = (1 << cells) - 1
    interior = 0  # every square but the first and last column
    for row in range(size):
        for col in range(1, size - 1):
            interior |= 1 << (row * size + col)
    directions = ((1, interior), (size, full), (size - 1, interior), (size + 1, interior))
    steps = 1
    while (1 << steps) - 1 < size - 2:
        steps += 1
    rays_up: list[tuple[int, ...]] = []
    rays_down: list[tuple[int, ...]] = []
    neighbours: list[int] = []
    for square in range(cells):
        row, col = divmod(square, size)
        up: list[int] = []
        down: list[int] = []
        around = 0
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                if dr == 0 and dc == 0:
                    continue
                ray, length = 0, 0
                r, c = row + dr, col + dc
                while 0 <= r < size and 0 <= c < size:
                    ray |= 1 << (r * size + c)
                    length += 1
                    r, c = r + dr, c + dc
                if length:
                    around |= 1 << ((row + dr) * size + col + dc)
                if length >= 2:  # a flank needs an opponent disc and one of ours beyond it
                    (up if (dr, dc) > (0, 0) else down).append(ray)
        rays_up.append(tuple(up))
        rays_down.append(tuple(down))
        neighbours.append(around)
    return _Tables(
        size, full, directions, steps, tuple(rays_up), tuple(rays_down), tuple(neighbours)
    )


def _mobility(me: int, opp: int, tables: _Tables) -> int:
    """Bitboard of the squares where `me` can place a disc against `opp`."""
    moves = 0
    three_steps = tables.steps <= 3
    for shift, mask in tables.directions:
        prop = opp & mask
        double, quad = shift + shift, 4 * shift
        # toward higher indices: occluded fill of `me` through `prop`
        gen = me | (prop & (me << shift))
        run = prop & (prop << shift)
        gen |= run & (gen << double)
        run &= run << double
        gen |= run & (gen << quad)
        if not three_steps:
            run &= run << quad
            gen |= run & (gen << (quad + quad))
        moves |= (gen & prop) << shift
        # toward lower indices
        gen = me | (prop & (me >> shift))
        run = prop & (prop >> shift)
        gen |= run & (gen >> double)
        run &= run >> double
        gen |= run & (gen >> quad)
        if not three_steps:
            run &= run >> quad
            gen |= run & (gen >> (quad + quad))
        moves |= (gen & prop) >> shift
    return moves & ~(me | opp) & tables.full


def _flips(square: int, me: int, opp: int, tables: _Tables) -> int:
    """The discs of `opp` that a disc of `me` on `square` would flip (0: illegal)."""
    flips = 0
    not_opp = ~opp
    for ray in tables.rays_up[square]:
        stop = ray & not_opp
        first = stop & -stop  # the nearest square on the ray that is not the opponent's
        if first & me:
            flips |= ray & (first - 1)
    for ray in tables.rays_down[square]:
        stop = ray & not_opp
        if stop:
            first = 1 << (stop.bit_length() - 1)
            if first & me:
                flips |= ray & -(first << 1)
    return flips


class Reversi(Game[ReversiState, int]):
    """Othello rules on an even n×n board; Black (X, seat 0) moves first."""

    name: ClassVar[str] = "reversi"
    description: ClassVar[str] = "Othello: flank and flip discs on an 8x8 board; most discs wins"
    notation_help: ClassVar[str] = (
        "a square as column letter + row number counted from the top, e.g. 'd3'"
        " (a1 = top left, Othello style), or 'pass' when you have no move"
    )
    option_specs: ClassVar[tuple[Option, ...]] = (
        Option("size", int, 8, "board side (even)", minimum=4, maximum=16),
    )
    seat_names: ClassVar[tuple[str, ...]] = ("Black", "White")

    @classmethod
    def check_options(cls, values: dict[str, Any]) -> None:
        if values["size"] % 2:
            raise ValueError(f"option 'size' must be even, not {values['size']}")

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.size: int = self.options["size"]
        self.cells = self.size * self.size
        self.tables = _tables(self.size)

    # --- rules -----------------------------------------------------------------

    def initial_state(self) -> ReversiState:
        n, half = self.size, self.size // 2
        white = (1 << ((half - 1) * n + half - 1)) | (1 << (half * n + half))
        black = (1 << (half * n + half - 1)) | (1 << ((half - 1) * n + half))
        return self._position(black, white, 0, passed=False)

    def _position(self, black: int, white: int, to_move: int, passed: bool) -> ReversiState:
        """The state with these discs and side to move, its status and moves settled."""
        me, opp = (black, white) if to_move == 0 else (white, black)
        moves = _mobility(me, opp, self.tables)
        if moves:
            status = AFTER_PASS if passed else NORMAL
        elif _mobility(opp, me, self.tables):
            status = NORMAL  # must pass
        else:
            status = OVER
        return (black, white, to_move, status, moves)

    def to_move(self, state: ReversiState) -> int:
        return state[TO_MOVE]

    def legal_moves(self, state: ReversiState) -> list[int]:
        if state[STATUS] == OVER:
            return []
        moves = state[MOVES]
        if not moves:
            return [PASS]
        squares = []
        while moves:
            bit = moves & -moves
            squares.append(bit.bit_length() - 1)
            moves ^= bit
        return squares

    def apply(self, state: ReversiState, move: int) -> ReversiState:
        black, white, to_move = state[BLACK], state[WHITE], state[TO_MOVE]
        if move == PASS:
            return self._position(black, white, 1 - to_move, passed=True)
        bit = 1 << move
        if to_move == 0:
            flips = _flips(move, black, white, self.tables)
            return self._position(black | bit | flips, white ^ flips, 1, passed=False)
        flips = _flips(move, white, black, self.tables)
        return self._position(black ^ flips, white | bit | flips, 0, passed=False)

    def outcome(self, state: ReversiState) -> Outcome | None:
        if state[STATUS] != OVER:
            return None
        diff = state[BLACK].bit_count() - state[WHITE].bit_count()
        points = (float(diff), float(-diff))
        if diff == 0:
            return Outcome.draw(2, Termination.NO_MOVES, points)
        return Outcome.win(0 if diff > 0 else 1, 2, Termination.NO_MOVES, points)

    def is_terminal(self, state: ReversiState) -> bool:
        return state[STATUS] == OVER

    def playout(
        self, state: ReversiState, rng: random.Random, max_moves: int | None = None
    ) -> ReversiState:
        """Random playout, about twice as fast as generating every move list.

        Each turn tries the empty squares in a random order (sampling without
        replacement) and plays the first that flips something: in a uniformly
        random order every legal square is equally likely to come first, so
        the move is uniform among the legal ones, as in the generic playout.
        A cheap neighbour test rejects most illegal squares before the flips
        are computed. Passes count as moves against `max_moves`.
        """
        black, white, mover, status, _ = state
        if status == OVER:
            return state
        tables = self.tables
        rays_up, rays_down, neighbours = tables.rays_up, tables.rays_down, tables.neighbours
        me, opp = (black, white) if mover == 0 else (white, black)
        passed = status == AFTER_PASS
        occupied = black | white
        empties = [sq for sq in range(self.cells) if not (occupied >> sq) & 1]
        rand = rng.random
        budget = -1 if max_moves is None else max_moves
        while budget != 0:
            budget -= 1
            n = len(empties)
            found = -1
            flips = 0
            not_opp = ~opp
            while n:
                i = int(rand() * n)
                square = empties[i]
                if neighbours[square] & opp:  # no adjacent opponent disc: nothing to flank
                    flips = 0  # `_flips`, inlined: this loop is the playout's hot path
                    for ray in rays_up[square]:
                        stop = ray & not_opp
                        first = stop & -stop
                        if first & me:
                            flips |= ray & (first - 1)
                    for ray in rays_down[square]:
                        stop = ray & not_opp
                        if stop:
                            first = 1 << (stop.bit_length() - 1)
                            if first & me:
                                flips |= ray & -(first << 1)
                    if flips:
                        found = i
                        break
                n -= 1
                empties[i] = empties[n]
                empties[n] = square
            if found >= 0:
                square = empties[found]
                empties[found] = empties[-1]
                empties.pop()
                me, opp = opp ^ flips, me | flips | (1 << square)
                passed = False
            elif _mobility(opp, me, tables):
                me, opp = opp, me
                passed = True
            else:  # neither side can move
                black, white = (me, opp) if mover == 0 else (opp, me)
                return (black, white, mover, OVER, 0)
            mover ^= 1
        black, white = (me, opp) if mover == 0 else (opp, me)
        return self._position(black, white, mover, passed)

    # --- notation and wire -----------------------------------------------------

    def parse_move(self, text: str) -> int:
        if text.strip().lower() == "pass":
            return PASS
        try:
            row, col = parse_square(text, self.size, self.size)
        except InvalidMoveError as exc:
            raise InvalidMoveError(f"{exc} or 'pass'") from None
        # parse_square counts rows from the bottom; Othello counts them from the top
        return (self.size - 1 - row) * self.size + col

    def format_move(self, move: int) -> str:
        if move == PASS:
            return "pass"
        row, col = divmod(move, self.size)
        return f"{column_letters(col + 1)[-1]}{row + 1}"

    def decode_move(self, data: Any) -> int:
        return decode_int_move(data, self.cells, pass_move=PASS)

    def _symbols(self, state: ReversiState) -> list[str]:
        black, white = state[BLACK], state[WHITE]
        return [
            "X" if (black >> sq) & 1 else "O" if (white >> sq) & 1 else "."
            for sq in range(self.cells)
        ]

    def encode_state(self, state: ReversiState) -> dict[str, Any]:
        """``{"board": rows top first ('.', 'X' Black, 'O' White), "to_move", "passed"}``."""
        symbols = self._symbols(state)
        n = self.size
        return {
            "board": ["".join(symbols[r * n : (r + 1) * n]) for r in range(n)],
            "to_move": state[TO_MOVE],
            "passed": state[STATUS] == AFTER_PASS,
        }

    def decode_state(self, data: Any) -> ReversiState:
        n = self.size
        if not isinstance(data, dict) or not isinstance(data.get("board"), list):
            raise InvalidStateError(f"state must be a map with a 'board' list, not {data!r}")
        rows = data["board"]
        if len(rows) != n or any(not isinstance(r, str) or len(r) != n for r in rows):
            raise InvalidStateError(f"board must be {n} strings of length {n}")
        discs = [0, 0]
        for index, char in enumerate("".join(rows)):
            if char == "X":
                discs[0] |= 1 << index
            elif char == "O":
                discs[1] |= 1 << index
            elif char != ".":
                raise InvalidStateError(f"bad cell {char!r} (expected '.', 'X' or 'O')")
        half = n // 2
        centre = sum(1 << (r * n + c) for r in (half - 1, half) for c in (half - 1, half))
        if (discs[0] | discs[1]) & centre != centre:
            raise InvalidStateError("the four centre squares cannot be empty")
        to_move = data.get("to_move")
        if to_move not in (0, 1) or isinstance(to_move, bool):
            raise InvalidStateError(f"'to_move' must be 0 or 1, not {to_move!r}")
        passed = data.get("passed", False)
        if not isinstance(passed, bool):
            raise InvalidStateError(f"'passed' must be a boolean, not {passed!r}")
        state = self._position(discs[0], discs[1], to_move, passed)
        if passed:
            me, opp = (discs[0], discs[1]) if to_move == 0 else (discs[1], discs[0])
            if _mobility(opp, me, self.tables) or not state[MOVES]:
                raise InvalidStateError(
                    "'passed' is set but the previous player had a move"
                    " or the player to move has none"
                )
        return state

    def render(self, state: ReversiState) -> str:
        """The board with a1 at the top left; '*' marks the legal squares."""
        n = self.size
        symbols = self._symbols(state)
        moves = state[MOVES]
        for sq in range(self.cells):
            if (moves >> sq) & 1:
                symbols[sq] = "*"
        pad = len(str(n))
        lines = [" " * (pad + 1) + " ".join(column_letters(n))]
        for row in range(n):
            lines.append(f"{row + 1:>{pad}} " + " ".join(symbols[row * n : (row + 1) * n]))
        count_black, count_white = state[BLACK].bit_count(), state[WHITE].bit_count()
        score = f"Black (X) {count_black}, White (O) {count_white}"
        if state[STATUS] == OVER:
            lines.append(f"{score}; game over")
        else:
            side = self.seat_names[state[TO_MOVE]]
            note = " (must pass)" if not moves else ""
            lines.append(f"{score}; {side} to move{note}")
        return "\n".join(lines)
