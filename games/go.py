"""Go on an N×N board under the Tromp–Taylor rules, as CGOS plays it.

Rules: Black (seat 0, X) moves first on an empty board. A move places a stone
on an empty point or passes. Opposing chains left without a liberty are
captured; then a move that would leave its own chain without a liberty is
illegal (no suicide). Positional superko: a placement that recreates any
earlier whole-board position (stones only, whoever is to move) is illegal;
passes are always legal. Two passes in a row end the game, and so does the
move cap of 3·N² plies (passes included). Either way the board is scored as
it stands, by area: a side's stones plus the empty regions that touch only
its stones. White gets `komi` points. There is no dead-stone removal: stones
on the board count, so a player who wants dead stones off the board captures
them before passing. The larger area wins; equal area is a draw (integer komi).

`Outcome.points` is Black's margin from each seat's side, e.g. ``(3.5, -3.5)``
for B+3.5; the termination is `Termination.SCORE`.

Moves are ints: ``row * N + col`` with row 0 the top row (the m,n,k games'
convention, so the GTP mapping is shared), and `PASS` (-1). They are written
as GTP vertices: a column letter A… skipping I, then the row counted from the
bottom (``A1`` is the bottom-left corner, ``T19`` the top-right of 19×19), or
``pass``.

State: the named tuple `GoState` ``(black, white, ply, passes, key, history,
last, captured_by_black, captured_by_white)``. The side to move is ``ply % 2``
(a pass is a move). ``black`` and ``white`` are bitboards with a guard
column: the point (row, col) is bit ``row * (N + 1) + col``, and bit
``row * (N + 1) + N`` is always empty, so a shift by one never wraps from one
row into the next and a flood fill is a few shifts and masks of Python ints. ``key`` is the Zobrist hash
(64 bits, fixed per board size) of the position; ``history`` is the frozenset
of the keys of every position so far, the current one included: superko is a
set lookup, and the state stays immutable and hashable. Two positions with
the same 64-bit key would be taken for one (odds of about 2⁻⁶⁴ per pair).
``passes`` counts the passes in a row that end the game at 2, ``last`` is the
last move (`NO_MOVE` at the start), and the capture counts are for display.

Board sizes: the `size` option is 5–19. `Go.unchecked` builds any size from 2
to 25 with an optional move cap, for tests of the rules on tiny boards (the
legal-position counts of 2×2 and 3×3); the registry never does.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, NamedTuple

from games.base import (
    Game,
    InvalidMoveError,
    InvalidStateError,
    Option,
    Outcome,
    Termination,
    colour_result_text,
    decode_int_move,
)


class GoState(NamedTuple):
    """A Go position with what the rules need of its past (hashable, a plain tuple too)."""

    black: int  #: Black's stones, bit `tables.position[move]` per point
    white: int  #: White's stones, same layout
    ply: int  #: moves played (passes included); the mover is ``ply & 1``
    passes: int  #: consecutive passes just played (two end the game)
    key: int  #: the Zobrist key of the position
    history: frozenset[int]  #: the keys of every position so far (positional superko)
    last: int  #: the last move, `PASS`, or `NO_MOVE` before the first
    captured_by_black: int  #: White stones Black has taken
    captured_by_white: int  #: Black stones White has taken


#: the pass move
PASS = -1
#: `last` of a position where nobody has moved yet
NO_MOVE = -2

#: column letters of GTP vertices (Go skips I)
LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
SYMBOLS = ("X", "O")


@dataclass(frozen=True, slots=True)
class _Tables:
    """Masks and hashes for one board size, indexed by bit position (row * stride + col)."""

    size: int
    stride: int
    on_board: int
    #: move index -> bit position, and back (-1 on guard bits)
    position: tuple[int, ...]
    move_at: tuple[int, ...]
    #: per bit position: the mask of its on-board neighbours, and their positions
    neighbours: tuple[int, ...]
    neighbour_positions: tuple[tuple[int, ...], ...]
    #: per bit position: the mask of its on-board diagonal points; whether it is on the edge
    diagonals: tuple[int, ...]
    on_edge: tuple[bool, ...]
    #: per colour, per bit position: the Zobrist key of a stone there (0 on guard bits)
    zobrist: tuple[tuple[int, ...], tuple[int, ...]]


@lru_cache(maxsize=32)
def _tables(size: int) -> _Tables:
    stride = size + 1
    span = size * stride
    position = tuple(row * stride + col for row in range(size) for col in range(size))
    move_at = [-1] * span
    for move, pos in enumerate(position):
        move_at[pos] = move
    on_board = sum(1 << pos for pos in position)
    neighbours = [0] * span
    neighbour_positions: list[tuple[int, ...]] = [()] * span
    diagonals = [0] * span
    on_edge = [False] * span
    for row in range(size):
        for col in range(size):
            pos = row * stride + col
            near = [
                r * stride + c
                for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
                if 0 <= r < size and 0 <= c < size
            ]
            neighbour_positions[pos] = tuple(near)
            neighbours[pos] = sum(1 << p for p in near)
            diagonals[pos] = sum(
                1 << (r * stride + c)
                for r, c in (
                    (row - 1, col - 1),
                    (row - 1, col + 1),
                    (row + 1, col - 1),
                    (row + 1, col + 1),
                )
                if 0 <= r < size and 0 <= c < size
            )
            on_edge[pos] = len(near) < 4
    rng = random.Random(f"go-zobrist-{size}")  # fixed: keys cross the wire in `history`
    zobrist = tuple(
        tuple(rng.getrandbits(64) if move_at[pos] >= 0 else 0 for pos in range(span))
        for _ in range(2)
    )
    return _Tables(
        size,
        stride,
        on_board,
        position,
        tuple(move_at),
        tuple(neighbours),
        tuple(neighbour_positions),
        tuple(diagonals),
        tuple(on_edge),
        (zobrist[0], zobrist[1]),
    )


def _chain(seed: int, stones: int, stride: int) -> int:
    """The stones of `stones` connected to `seed` (a flood fill by shifts)."""
    chain = seed
    while True:
        grown = (chain | chain << 1 | chain >> 1 | chain << stride | chain >> stride) & stones
        if grown == chain:
            return chain
        chain = grown


def _around(mask: int, stride: int) -> int:
    """The points next to `mask` (guard bits included: mask them with the board's points)."""
    return mask << 1 | mask >> 1 | mask << stride | mask >> stride


def _key_of(stones: int, keys: tuple[int, ...]) -> int:
    """The Zobrist key of `stones` of one colour."""
    key = 0
    while stones:
        low = stones & -stones
        key ^= keys[low.bit_length() - 1]
        stones ^= low
    return key


def _captures(pos: int, me: int, opp: int, tables: _Tables) -> int:
    """The stones of `opp` a stone of `me` at `pos` (already in `me`) leaves without a liberty."""
    empty = tables.on_board & ~(me | opp)
    stride, neighbours = tables.stride, tables.neighbours
    captured = 0
    for near in tables.neighbour_positions[pos]:
        bit = 1 << near
        if opp & bit and not captured & bit:
            if neighbours[near] & empty:  # the stone itself has a liberty
                continue
            chain = _chain(bit, opp, stride)
            if not _around(chain, stride) & empty:
                captured |= chain
    return captured


def _area(black: int, white: int, tables: _Tables) -> tuple[int, int]:
    """Each side's area: its stones plus the empty regions that touch only its stones."""
    stride = tables.stride
    empty = tables.on_board & ~(black | white)
    black_area, white_area = black.bit_count(), white.bit_count()
    rest = empty
    while rest:
        region = _chain(rest & -rest, empty, stride)
        rest ^= region
        border = _around(region, stride)
        if border & black:
            if not border & white:
                black_area += region.bit_count()
        elif border & white:
            white_area += region.bit_count()
    return black_area, white_area


def _liberty_points(stones: int, empty: int, stride: int) -> dict[int, int]:
    """For the chains of `stones` with one liberty: that liberty's bit -> the chains' stones."""
    single: dict[int, int] = {}
    rest = stones
    while rest:
        chain = _chain(rest & -rest, stones, stride)
        rest ^= chain
        liberties = _around(chain, stride) & empty
        if not liberties & (liberties - 1):
            single[liberties] = single.get(liberties, 0) | chain
    return single


class Go(Game[GoState, int]):
    """Tromp–Taylor Go (area scoring, positional superko, no suicide); Black (X) moves first."""

    name: ClassVar[str] = "go"
    description: ClassVar[str] = (
        "Go, Tromp-Taylor rules as on CGOS: area scoring, positional superko, no suicide"
    )
    notation_help: ClassVar[str] = (
        "a GTP vertex: column letter (A-T, no I) + row number counted from the bottom,"
        " e.g. 'D4' (A1 = bottom left), or 'pass'"
    )
    option_specs: ClassVar[tuple[Option, ...]] = (
        Option("size", int, 9, "board side", minimum=5, maximum=19),
        Option(
            "komi",
            float,
            None,
            "points given to White, a multiple of 0.5 (default: 7 up to 9x9, 7.5 above)",
            minimum=-1000,
            maximum=1000,
        ),
    )
    seat_names: ClassVar[tuple[str, ...]] = ("Black", "White")

    @classmethod
    def check_options(cls, values: dict[str, Any]) -> None:
        if values["komi"] is None:
            values["komi"] = default_komi(values["size"])
        if (values["komi"] * 2) % 1:
            raise ValueError(f"option 'komi' must be a multiple of 0.5, not {values['komi']:g}")

    @classmethod
    def unchecked(cls, size: int, komi: float = 0.0, move_cap: int | None = None) -> Go:
        """A board of any size 2–25 and any move cap, outside the options' bounds.

        For tests of the rules on tiny boards (2×2, 3×3, 4×4 legal-position
        counts); such a game is never registered or offered to players.
        """
        if not 2 <= size <= len(LETTERS):
            raise ValueError(f"size must be 2..{len(LETTERS)}, not {size}")
        game = cls.__new__(cls)
        game.options = {"size": size, "komi": float(komi)}
        game._setup(move_cap)
        return game

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._setup(None)

    def _setup(self, move_cap: int | None) -> None:
        self.size: int = self.options["size"]
        self.komi: float = self.options["komi"]
        self.cells = self.size * self.size
        self.move_cap: int = 3 * self.cells if move_cap is None else move_cap
        self.tables = _tables(self.size)
        self._scores: dict[tuple[int, int], Outcome] = {}

    # --- rules -----------------------------------------------------------------

    def initial_state(self) -> GoState:
        return GoState(0, 0, 0, 0, 0, frozenset((0,)), NO_MOVE, 0, 0)

    def to_move(self, state: GoState) -> int:
        return state.ply & 1

    def is_terminal(self, state: GoState) -> bool:
        return state.passes >= 2 or state.ply >= self.move_cap

    def legal_moves(self, state: GoState) -> list[int]:
        """Every legal placement in increasing move order, then `PASS`; [] when the game is over."""
        black, white, ply, passes, key, history = state[:6]
        if passes >= 2 or ply >= self.move_cap:
            return []
        tables = self.tables
        stride, neighbours, move_at = tables.stride, tables.neighbours, tables.move_at
        mover = ply & 1
        me, opp = (white, black) if mover else (black, white)
        empty = tables.on_board & ~(black | white)
        capturable = _liberty_points(opp, empty, stride)
        in_atari = _liberty_points(me, empty, stride)
        my_keys, their_keys = tables.zobrist[mover], tables.zobrist[1 - mover]
        moves: list[int] = []
        rest = empty
        while rest:
            low = rest & -rest
            rest ^= low
            pos = low.bit_length() - 1
            near = neighbours[pos]
            captured = capturable.get(low, 0)
            # suicide: no empty neighbour, no capture, and every own neighbour's chain dies
            if not captured and not near & empty and not near & me & ~in_atari.get(low, 0):
                continue
            new_key = key ^ my_keys[pos]
            if captured:
                new_key ^= _key_of(captured, their_keys)
            if new_key in history:  # positional superko
                continue
            moves.append(move_at[pos])
        moves.append(PASS)
        return moves

    def apply(self, state: GoState, move: int) -> GoState:
        black, white, ply, passes, key, history, _, by_black, by_white = state
        if move == PASS:
            return GoState(
                black, white, ply + 1, passes + 1, key, history, PASS, by_black, by_white
            )
        tables = self.tables
        pos = tables.position[move]
        mover = ply & 1
        key ^= tables.zobrist[mover][pos]
        if mover:
            white |= 1 << pos
            captured = _captures(pos, white, black, tables)
            if captured:
                black ^= captured
                key ^= _key_of(captured, tables.zobrist[0])
                by_white += captured.bit_count()
        else:
            black |= 1 << pos
            captured = _captures(pos, black, white, tables)
            if captured:
                white ^= captured
                key ^= _key_of(captured, tables.zobrist[1])
                by_black += captured.bit_count()
        return GoState(black, white, ply + 1, 0, key, history | {key}, move, by_black, by_white)

    def outcome(self, state: GoState) -> Outcome | None:
        if state.passes < 2 and state.ply < self.move_cap:
            return None
        board = (state.black, state.white)
        found = self._scores.get(board)
        if found is None:
            if len(self._scores) > 50_000:  # a cache, not a record: keep it bounded
                self._scores.clear()
            found = self._scores[board] = self.score(state)
        return found

    def area(self, state: GoState) -> tuple[int, int]:
        """Black's and White's area (stones plus territory) as the board stands."""
        return _area(state.black, state.white, self.tables)

    def score(self, state: GoState) -> Outcome:
        """The result if the game ended now: area difference less komi, by `Termination.SCORE`."""
        black_area, white_area = self.area(state)
        margin = black_area - white_area - self.komi
        points = (float(margin), float(-margin))
        if margin == 0:
            return Outcome.draw(2, Termination.SCORE, points)
        return Outcome.win(0 if margin > 0 else 1, 2, Termination.SCORE, points)

    def chain(self, state: GoState, move: int) -> frozenset[int]:
        """The stones (as moves) of the chain on point `move`; empty if the point is empty."""
        tables = self.tables
        bit = 1 << tables.position[move]
        black, white = state.black, state.white
        stones = black if black & bit else white if white & bit else 0
        if not stones:
            return frozenset()
        found = _chain(bit, stones, tables.stride)
        return frozenset(m for m, pos in enumerate(tables.position) if found >> pos & 1)

    def removing(self, state: GoState, dead: frozenset[int]) -> GoState:
        """`state` with the stones on the points `dead` taken off, for counting them as
        the players agreed (docs/PROTOCOL.md "Dead stones"); not a position of play."""
        position = self.tables.position
        off = sum(1 << position[move] for move in dead)
        return state._replace(black=state.black & ~off, white=state.white & ~off)

    def result_text(self, outcome: Outcome) -> str:
        """``B+3.5`` (the count), ``W+R`` (resignation), ``B+T`` (time), ``0``: see `result_text`."""
        return result_text(outcome)

    def playout(self, state: GoState, rng: random.Random, max_moves: int | None = None) -> GoState:
        """A random playout that never fills a side's own eye, so that games end.

        Each turn tries the empty points in a random order (sampling without
        replacement) and plays the first that is legal and not an eye of the
        mover: a point whose neighbours are all the mover's stones, with at
        most one opposing stone on its diagonals (none on the edge). With no
        such point the mover passes; two passes in a row (or the move cap)
        end the game. Each move is one the rules allow (`legal_moves`), so
        the state reached is the one `apply` would give.
        """
        black, white, ply, passes, key, history, last, by_black, by_white = state
        budget = -1 if max_moves is None else max_moves
        cap = self.move_cap
        if budget == 0 or passes >= 2 or ply >= cap:
            return state
        tables = self.tables
        stride, on_board = tables.stride, tables.on_board
        neighbours, near_positions = tables.neighbours, tables.neighbour_positions
        diagonals, on_edge, zobrist, move_at = (
            tables.diagonals,
            tables.on_edge,
            tables.zobrist,
            tables.move_at,
        )
        seen = set(history)
        captures = [by_black, by_white]
        mover = ply & 1
        me, opp = (white, black) if mover else (black, white)
        occupied = black | white
        empties = [pos for pos in tables.position if not (occupied >> pos) & 1]
        rand = rng.random
        while budget != 0 and passes < 2 and ply < cap:
            budget -= 1
            empty = on_board & ~(me | opp)
            my_keys = zobrist[mover]
            count = len(empties)
            found = -1
            captured = 0
            new_key = 0
            while count:
                index = int(rand() * count)
                pos = empties[index]
                near = neighbours[pos]
                if not near & ~me:  # every neighbour is ours: an eye unless the diagonals say not
                    enemy = diagonals[pos] & opp
                    if not enemy or (not on_edge[pos] and not enemy & (enemy - 1)):
                        count -= 1
                        empties[index], empties[count] = empties[count], pos
                        continue
                bit = 1 << pos
                after = empty ^ bit
                captured = 0
                if near & opp:
                    for other in near_positions[pos]:
                        other_bit = 1 << other
                        if opp & other_bit and not captured & other_bit:
                            if neighbours[other] & after:
                                continue
                            chain = _chain(other_bit, opp, stride)
                            if not _around(chain, stride) & after:
                                captured |= chain
                legal = True
                if not captured and not near & empty:
                    friends = near & me
                    legal = bool(friends) and bool(
                        _around(_chain(friends | bit, me | bit, stride), stride) & after
                    )
                if legal:
                    new_key = key ^ my_keys[pos]
                    if captured:
                        new_key ^= _key_of(captured, zobrist[1 - mover])
                    if new_key not in seen:
                        found = index
                        break
                count -= 1
                empties[index], empties[count] = empties[count], pos
            if found >= 0:
                pos = empties[found]
                empties[found] = empties[-1]
                empties.pop()
                me |= 1 << pos
                if captured:
                    opp ^= captured
                    captures[mover] += captured.bit_count()
                    rest = captured
                    while rest:
                        low = rest & -rest
                        rest ^= low
                        empties.append(low.bit_length() - 1)
                key = new_key
                seen.add(key)
                passes = 0
                last = move_at[pos]
            else:
                passes += 1
                last = PASS
            me, opp = opp, me
            mover ^= 1
            ply += 1
        black, white = (opp, me) if mover else (me, opp)
        return GoState(
            black, white, ply, passes, key, frozenset(seen), last, captures[0], captures[1]
        )

    # --- notation and wire -----------------------------------------------------

    def parse_move(self, text: str) -> int:
        word = text.strip().upper()
        if word == "PASS":
            return PASS
        letter, digits = word[:1], word[1:]
        letters = LETTERS[: self.size]
        if not letter or letter not in letters or not digits.isdigit():
            raise InvalidMoveError(
                f"{text!r} is not a vertex like 'D4' (columns A-{letters[-1]}, no I) or 'pass'"
            )
        rank = int(digits)
        if not 1 <= rank <= self.size:
            raise InvalidMoveError(
                f"{text!r} is off the board (columns A-{letters[-1]}, rows 1-{self.size})"
            )
        return (self.size - rank) * self.size + letters.index(letter)

    def format_move(self, move: int) -> str:
        if move == PASS:
            return "pass"
        row, col = divmod(move, self.size)
        return f"{LETTERS[col]}{self.size - row}"

    def decode_move(self, data: Any) -> int:
        return decode_int_move(data, self.cells, pass_move=PASS)

    def _symbols(self, state: GoState) -> list[str]:
        black, white = state.black, state.white
        return [
            "X" if (black >> pos) & 1 else "O" if (white >> pos) & 1 else "."
            for pos in self.tables.position
        ]

    def encode_state(self, state: GoState) -> dict[str, Any]:
        """The board, the counters, and the superko history.

        ``{"board": rows top first ('.', 'X' Black, 'O' White), "ply", "passes",
        "last": move or null, "captures": [by Black, by White], "history": the
        positions so far as one string of 16-hex-digit keys, sorted}``; once the game is
        over, also ``"area": [Black's, White's]`` as it is counted (`decode_state`
        ignores it).
        """
        data = self.encode_view(state)
        data["history"] = "".join(f"{key:016x}" for key in sorted(state.history))
        return data

    def encode_view(self, state: GoState) -> dict[str, Any]:
        """`encode_state` without the superko history (which grows with every ply)."""
        n = self.size
        symbols = self._symbols(state)
        last = state.last
        data: dict[str, Any] = {
            "board": ["".join(symbols[r * n : (r + 1) * n]) for r in range(n)],
            "ply": state.ply,
            "passes": state.passes,
            "last": None if last == NO_MOVE else last,
            "captures": [state.captured_by_black, state.captured_by_white],
        }
        if self.is_terminal(state):
            data["area"] = list(self.area(state))
        return data

    def decode_state(self, data: Any) -> GoState:
        n = self.size
        if not isinstance(data, dict) or not isinstance(data.get("board"), list):
            raise InvalidStateError(f"state must be a map with a 'board' list, not {data!r}")
        rows = data["board"]
        if len(rows) != n or any(not isinstance(r, str) or len(r) != n for r in rows):
            raise InvalidStateError(f"board must be {n} strings of length {n}")
        tables = self.tables
        stones = [0, 0]
        for move, char in enumerate("".join(rows)):
            if char in SYMBOLS:
                stones[SYMBOLS.index(char)] |= 1 << tables.position[move]
            elif char != ".":
                raise InvalidStateError(f"bad point {char!r} (expected '.', 'X' or 'O')")
        black, white = stones
        empty = tables.on_board & ~(black | white)
        for colour in (black, white):
            rest = colour
            while rest:
                chain = _chain(rest & -rest, colour, tables.stride)
                rest ^= chain
                if not _around(chain, tables.stride) & empty:
                    raise InvalidStateError("a chain on the board has no liberty")
        ply, passes = data.get("ply"), data.get("passes")
        for name, value, top in (("ply", ply, self.move_cap), ("passes", passes, 2)):
            if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= top:
                raise InvalidStateError(f"{name!r} must be an integer 0..{top}, not {value!r}")
        assert isinstance(ply, int) and isinstance(passes, int)
        last = data.get("last")
        if last is None:
            last = NO_MOVE
        else:
            try:
                last = self.decode_move(last)
            except InvalidMoveError as exc:
                raise InvalidStateError(f"'last': {exc}") from None
        if (last == NO_MOVE) != (ply == 0) or passes > ply or (passes > 0) != (last == PASS):
            raise InvalidStateError(
                f"'last' {data.get('last')!r}, 'ply' {ply} and 'passes' {passes} disagree"
            )
        captures = data.get("captures")
        if (
            not isinstance(captures, list)
            or len(captures) != 2
            or any(isinstance(c, bool) or not isinstance(c, int) or c < 0 for c in captures)
        ):
            raise InvalidStateError(f"'captures' must be two integers >= 0, not {captures!r}")
        text = data.get("history")
        if not isinstance(text, str) or len(text) % 16 or len(text) > 16 * (ply + 1):
            raise InvalidStateError("'history' must be up to ply + 1 keys of 16 hex digits")
        try:
            history = frozenset(int(text[i : i + 16], 16) for i in range(0, len(text), 16))
        except ValueError:
            raise InvalidStateError("'history' must be hex digits") from None
        key = _key_of(black, tables.zobrist[0]) ^ _key_of(white, tables.zobrist[1])
        if key not in history or 0 not in history:
            raise InvalidStateError("'history' lacks the empty board or the current position")
        return GoState(black, white, ply, passes, key, history, last, captures[0], captures[1])

    def render(self, state: GoState, *, dead: frozenset[int] | None = None) -> str:
        """The board with coordinates on every side; the last stone played in parentheses.

        `dead` (while people mark dead stones): those stones in lower case (``x``,
        ``o``), and the count with them taken off.
        """
        n = self.size
        symbols = self._symbols(state)
        for move in dead or ():
            symbols[move] = symbols[move].lower()
        letters = " ".join(LETTERS[:n])
        pad = len(str(n))
        last = state.last
        lines = [f"{'':>{pad}} {letters}"]
        for row in range(n):
            cells = symbols[row * n : (row + 1) * n]
            text = " " + " ".join(cells) + " "
            if last >= 0 and last // n == row:
                col = last % n
                text = text[: 2 * col] + "(" + cells[col] + ")" + text[2 * col + 3 :]
            lines.append(f"{n - row:>{pad}}{text}{n - row}")
        lines.append(lines[0])
        captured = (
            f"captures: Black (X) {state.captured_by_black}, White (O) {state.captured_by_white}"
        )
        played = "" if last == NO_MOVE else f"; last move {self.format_move(last)}"
        outcome = self.outcome(state)
        if dead is not None:
            counted = self.removing(state, dead)
            black_area, white_area = self.area(counted)
            lines.append(f"{captured}; komi {self.komi:g}{played}")
            count = (
                f"area Black {black_area}, White {white_area}: {result_text(self.score(counted))}"
            )
            if self.is_terminal(state):  # the count the two people agreed on
                lines.append(
                    f"game over: {len(dead)} dead stone{'s' if len(dead) != 1 else ''} (x, o)"
                    f" taken off; {count}"
                )
            else:
                lines.append(
                    f"marking dead stones (x, o): {len(dead)} marked; counted without them: {count}"
                )
        elif outcome is None:
            side = self.seat_names[state.ply & 1]
            lines.append(f"{captured}; komi {self.komi:g}{played}; {side} to move")
        else:
            black_area, white_area = self.area(state)
            lines.append(f"{captured}; komi {self.komi:g}{played}")
            lines.append(
                f"game over: area Black {black_area}, White {white_area}: {result_text(outcome)}"
            )
        return "\n".join(lines)


#: how a result's reason names the dead stones two people agreed on (docs/PROTOCOL.md)
_TAKEN_OFF = re.compile(r"with \d+ dead stones? taken off \(([A-HJ-Z0-9 ]+)\)")


def taken_off_text(game: Go, dead: frozenset[int]) -> str:
    """``with 2 dead stones taken off (A3 B3)``: the agreed dead stones, as a result's
    reason keeps them (`agreed_dead` reads them back)."""
    stones = " ".join(game.format_move(point) for point in sorted(dead))
    return f"with {len(dead)} dead stone{'s' if len(dead) != 1 else ''} taken off ({stones})"


def agreed_dead(game: Go, reason: str | None) -> frozenset[int]:
    """The dead stones a stored result's `reason` says were taken off (none if it names
    none, or names a point that is not on this board)."""
    found = _TAKEN_OFF.search(reason or "")
    if found is None:
        return frozenset()
    try:
        return frozenset(game.parse_move(word) for word in found.group(1).split())
    except InvalidMoveError:
        return frozenset()


def default_komi(size: int) -> float:
    """CGOS's komi: 7 on boards up to 9×9, 7.5 on larger ones."""
    return 7.0 if size <= 9 else 7.5


def result_text(outcome: Outcome) -> str:
    """A Go result as Go players and SGF write it: ``B+3.5``, ``W+R``, ``B+T``, ``0`` (a draw)."""
    return colour_result_text(outcome)
