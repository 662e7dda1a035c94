"""The `Game` interface every game implements, and the value types around it.

Why this shape: the search (MCTS), the server's arbitration and the human
player all see a game only through this class. States are immutable and
hashable (tuples of ints in the built-in games) so they can key tables and be
shared across tasks; moves are hashable values (plain ints in every built-in
game) so they cross the wire and sit in tree nodes cheaply.

`apply` trusts its caller (the search only ever applies legal moves, and it is
the hot path); `play` is the checked version the server uses.
"""

from __future__ import annotations

import enum
import math
import random
from abc import ABC, abstractmethod
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

from games.errors import GameError as GameError
from games.errors import IllegalMoveError as IllegalMoveError
from games.errors import InvalidMoveError as InvalidMoveError
from games.errors import InvalidStateError as InvalidStateError

S = TypeVar("S", bound=Hashable)
M = TypeVar("M", bound=Hashable)


class Termination(enum.Enum):
    """Why a game ended. Board endings first, then server-imposed ones."""

    LINE = "line"  # k in a row / three sub-boards in a line
    BOARD_FULL = "board_full"  # no empty cell left without a line: a draw
    NO_MOVES = "no_moves"  # neither side can move (reversi): decided by count
    SCORE = "score"  # the board was counted (go: two passes or the move cap): decided by margin
    TIMEOUT = "timeout"
    ILLEGAL_MOVE = "illegal_move"
    DISCONNECT = "disconnect"
    PROTOCOL_ERROR = "protocol_error"
    RESIGNATION = "resignation"
    # a player's own program failed and the player said so (``resign`` with a ``fault``):
    # its engine crashed or exited, or stopped answering and its player gave up on it
    CRASH = "crash"
    STALLED = "stalled"
    ABORTED = "aborted"
    WITHDRAWN = "withdrawn"
    # adjudications (tournaments, opt-in): a draw at the ply limit, a solver's
    # proof, the engines' own evaluations
    MAX_PLIES = "max_plies"
    PROVEN = "proven"
    EVALUATION = "evaluation"


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game.

    `scores` holds one entry per seat: 1 for a win, 0 for a loss, 0.5 each for
    a draw (two-player games). `winner` is the winning seat or None for a draw.
    `points` are optional game points per seat (e.g. reversi disc difference).
    """

    scores: tuple[float, ...]
    winner: int | None
    termination: Termination
    points: tuple[float, ...] | None = None

    @classmethod
    def win(
        cls,
        winner: int,
        num_players: int,
        termination: Termination,
        points: tuple[float, ...] | None = None,
    ) -> Outcome:
        scores = tuple(1.0 if seat == winner else 0.0 for seat in range(num_players))
        return cls(scores, winner, termination, points)

    @classmethod
    def draw(
        cls, num_players: int, termination: Termination, points: tuple[float, ...] | None = None
    ) -> Outcome:
        return cls((1.0 / num_players,) * num_players, None, termination, points)

    def result(self) -> str:
        """A short result string like ``1-0``, ``0-1`` or ``1/2-1/2`` (two seats)."""
        return result_text(self.scores)


def result_text(scores: Sequence[float]) -> str:
    """Per-seat scores as a result: ``1-0``, ``0-1``, ``1/2-1/2`` (PGN's spelling), ``1-0-0``.

    The one spelling every command prints (tournament lines, `arena play`, `arena show`).
    """
    if len(scores) == 2:
        table = {1.0: "1", 0.0: "0", 0.5: "1/2"}
        return "-".join(table.get(s, f"{s:g}") for s in scores)
    return "-".join(f"{s:g}" for s in scores)


#: terminations that are a forfeit of the loser rather than a board result or a choice
_FORFEITS = frozenset(
    {
        Termination.ILLEGAL_MOVE,
        Termination.DISCONNECT,
        Termination.PROTOCOL_ERROR,
        Termination.CRASH,
        Termination.STALLED,
        Termination.WITHDRAWN,
        Termination.ABORTED,
    }
)


def colour_result_text(outcome: Outcome) -> str:
    """A two-seat result as SGF's ``RE`` spells it, Black (seat 0) first to move.

    ``B+3.5`` (a count: the winner's margin from `points`), ``W+R``
    (resignation), ``B+T`` (time), ``W+F`` (forfeit: illegal move,
    disconnect...), ``B+`` (a win with no margin), ``0`` (a draw).
    """
    if outcome.winner is None:
        return "0"
    side = "BW"[outcome.winner]
    termination = outcome.termination
    if termination is Termination.RESIGNATION:
        return f"{side}+R"
    if termination is Termination.TIMEOUT:
        return f"{side}+T"
    if termination in _FORFEITS:
        return f"{side}+F"
    if outcome.points is not None:
        return f"{side}+{abs(outcome.points[outcome.winner]):g}"
    return f"{side}+"


#: status codes of the two-player line games' states (tictactoe, gomoku, connect4, ultimate):
#: ONGOING, 0 or 1 (the winning seat), or DRAW
ONGOING = -1
DRAW = 2

# Outcomes are frozen, so the few a line game can end with are built once:
# `outcome()` sits on the MCTS hot path and must not allocate.
_LINE_OUTCOMES: dict[int, Outcome] = {
    0: Outcome.win(0, 2, Termination.LINE),
    1: Outcome.win(1, 2, Termination.LINE),
    DRAW: Outcome.draw(2, Termination.BOARD_FULL),
}


def line_game_outcome(status: int) -> Outcome | None:
    """The outcome of a two-player line game from its state's status code (None: ongoing)."""
    return _LINE_OUTCOMES.get(status)


@dataclass(frozen=True, slots=True)
class Option:
    """One option of a game: its name, type, default, bounds and help."""

    name: str
    type: type[int] | type[bool] | type[str] | type[float]
    default: Any
    help: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] | None = None

    def coerce(self, value: object) -> Any:
        """Convert `value` (possibly a string from a command line) and check bounds."""
        if self.type is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.lower() in {"1", "true", "yes", "on"}:
                return True
            if isinstance(value, str) and value.lower() in {"0", "false", "no", "off"}:
                return False
            raise ValueError(f"option {self.name!r} must be a boolean, not {value!r}")
        if self.type is int:
            if isinstance(value, bool):
                raise ValueError(f"option {self.name!r} must be an integer, not {value!r}")
            if isinstance(value, int):
                number = value
            elif isinstance(value, str):
                try:
                    number = int(value.strip())
                except ValueError:
                    raise ValueError(
                        f"option {self.name!r} must be an integer, not {value!r}"
                    ) from None
            else:
                raise ValueError(f"option {self.name!r} must be an integer, not {value!r}")
            if self.minimum is not None and number < self.minimum:
                raise ValueError(f"option {self.name!r} must be >= {self.minimum}, not {number}")
            if self.maximum is not None and number > self.maximum:
                raise ValueError(f"option {self.name!r} must be <= {self.maximum}, not {number}")
            return number
        if self.type is float:
            return self._coerce_float(value)
        if not isinstance(value, str):
            raise ValueError(f"option {self.name!r} must be a string, not {value!r}")
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"option {self.name!r} must be one of {self.choices}, not {value!r}")
        return value

    def _coerce_float(self, value: object) -> float:
        number: float
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ValueError(f"option {self.name!r} must be a number, not {value!r}")
        try:
            number = float(value.strip() if isinstance(value, str) else value)
        except ValueError:
            raise ValueError(f"option {self.name!r} must be a number, not {value!r}") from None
        if not math.isfinite(number):
            raise ValueError(f"option {self.name!r} must be a finite number, not {value!r}")
        if self.minimum is not None and number < self.minimum:
            raise ValueError(f"option {self.name!r} must be >= {self.minimum}, not {number:g}")
        if self.maximum is not None and number > self.maximum:
            raise ValueError(f"option {self.name!r} must be <= {self.maximum}, not {number:g}")
        return number


class Game(ABC, Generic[S, M]):
    """Rules of one game with fixed options (board size, k, ...).

    Subclasses set the class attributes and implement the abstract methods.
    Seats are numbered 0..num_players-1; seat 0 moves first.
    """

    #: registry name, e.g. "connect4"
    name: ClassVar[str]
    #: one-line description for `arena games`
    description: ClassVar[str] = ""
    #: how moves are written, for `arena games` and the human player
    notation_help: ClassVar[str] = ""
    #: the options this game accepts
    option_specs: ClassVar[tuple[Option, ...]] = ()
    #: display names of the seats, e.g. ("X", "O")
    seat_names: ClassVar[tuple[str, ...]] = ("first", "second")

    num_players: int = 2

    def __init__(self, **options: Any) -> None:
        self.options: dict[str, Any] = self.validate_options(options)

    @classmethod
    def validate_options(cls, options: Mapping[str, Any]) -> dict[str, Any]:
        """Return the complete option dict (defaults filled in) or raise ValueError."""
        specs = {spec.name: spec for spec in cls.option_specs}
        unknown = sorted(set(options) - set(specs))
        if unknown:
            valid = ", ".join(specs) or "none"
            raise ValueError(
                f"unknown option {unknown[0]!r} for game {cls.name!r} (valid options: {valid})"
            )
        values = {name: spec.default for name, spec in specs.items()}
        for key, value in options.items():
            values[key] = specs[key].coerce(value)
        cls.check_options(values)
        return values

    @classmethod
    def check_options(cls, values: dict[str, Any]) -> None:
        """Cross-option checks (e.g. k must fit the board). Raise ValueError."""

    # --- rules -----------------------------------------------------------------

    @abstractmethod
    def initial_state(self) -> S:
        """The starting position."""

    @abstractmethod
    def to_move(self, state: S) -> int:
        """The seat to move (meaningless in a terminal state)."""

    @abstractmethod
    def legal_moves(self, state: S) -> Sequence[M]:
        """All legal moves, in a fixed order; empty iff the state is terminal."""

    @abstractmethod
    def apply(self, state: S, move: M) -> S:
        """The state after `move`. Unchecked: `move` must be legal (see `play`)."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """The outcome if the state is terminal, else None."""

    def is_terminal(self, state: S) -> bool:
        return self.outcome(state) is not None

    def play(self, state: S, move: M) -> S:
        """Apply `move` after checking it is legal; raise IllegalMoveError if not."""
        if self.outcome(state) is not None:
            raise IllegalMoveError(f"the game is over; {self.format_move(move)!r} is illegal")
        if move not in self.legal_moves(state):
            raise IllegalMoveError(
                f"move {self.format_move(move)!r} is illegal in this position"
                f" ({self.seat_names[self.to_move(state)]} to move)"
            )
        return self.apply(state, move)

    def playout(self, state: S, rng: random.Random, max_moves: int | None = None) -> S:
        """Play uniformly random moves until the end (or `max_moves`); return the last state.

        Games override this with a faster version; the search uses it for rollouts.
        """
        moves_left = -1 if max_moves is None else max_moves
        while moves_left != 0 and self.outcome(state) is None:
            moves = self.legal_moves(state)
            state = self.apply(state, moves[int(rng.random() * len(moves))])
            moves_left -= 1
        return state

    # --- notation and wire format ----------------------------------------------

    @abstractmethod
    def parse_move(self, text: str) -> M:
        """Parse human notation; raise InvalidMoveError if malformed (not legality)."""

    @abstractmethod
    def format_move(self, move: M) -> str:
        """Human notation of a move; `parse_move(format_move(m)) == m`."""

    @abstractmethod
    def encode_state(self, state: S) -> Any:
        """A msgpack-friendly value (ints, strings, lists, maps) describing `state`."""

    @abstractmethod
    def decode_state(self, data: Any) -> S:
        """Inverse of `encode_state`; raise InvalidStateError on bad input."""

    def encode_view(self, state: S) -> Any:
        """`encode_state` less what only the rules need: what a page draws (replays send one
        per ply). The default is all of it."""
        return self.encode_state(state)

    def encode_move(self, move: M) -> Any:
        """A msgpack-friendly value for `move` (the move itself for int moves)."""
        return move

    @abstractmethod
    def decode_move(self, data: Any) -> M:
        """Inverse of `encode_move`; raise InvalidMoveError on a malformed value."""

    @abstractmethod
    def render(self, state: S) -> str:
        """A plain-text picture of the board, with coordinates."""

    def result_text(self, outcome: Outcome) -> str:
        """How this game writes a result, wherever one is shown or stored as text.

        The default is the one spelling of every game (`result_text`: ``1-0``,
        ``0-1``, ``1/2-1/2``); a game whose players expect another overrides
        it (Go: ``B+3.5``, ``W+R``, ``W+T``, see `colour_result_text`).
        """
        return outcome.result()

    def describe(self) -> str:
        """The game name with its non-default options, e.g. ``gomoku(size=9, k=5)``."""
        if not self.options:
            return self.name
        inner = ", ".join(f"{k}={v}" for k, v in self.options.items())
        return f"{self.name}({inner})"

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.describe()}>"


def stored_result_text(
    game: Game[Any, Any] | None,
    scores: Sequence[float],
    winner: int | None,
    termination: str | None,
    points: Sequence[float] | None,
) -> str:
    """`Game.result_text` of a result kept as plain fields (a record, a `match_end`).

    Without the game, or with a termination this library does not know, it is
    the generic spelling of the scores (`result_text`).
    """
    try:
        ending = Termination(termination)
    except ValueError:
        ending = None
    if game is None or ending is None:
        return result_text(scores)
    outcome = Outcome(tuple(scores), winner, ending, None if points is None else tuple(points))
    return game.result_text(outcome)


def decode_int_move(data: Any, limit: int, what: str = "move", pass_move: int | None = None) -> int:
    """Validate a wire move that must be an int in range(limit), or the game's `pass_move`."""
    if isinstance(data, bool) or not isinstance(data, int):
        raise InvalidMoveError(f"{what} must be an integer, not {data!r}")
    if data != pass_move and not 0 <= data < limit:
        passing = "" if pass_move is None else f" ({pass_move} is a pass)"
        raise InvalidMoveError(f"{what} {data} is out of range 0..{limit - 1}{passing}")
    return data


def column_letters(n: int) -> str:
    """Column labels a, b, c, ... skipping nothing (boards here are at most 26 wide)."""
    return "abcdefghijklmnopqrstuvwxyz"[:n]


def parse_square(text: str, width: int, height: int) -> tuple[int, int]:
    """Parse ``b3``-style coordinates: column letter, row number (1 = bottom row).

    Returns (row, col) with row 0 the *top* row as rendered.
    """
    cleaned = text.strip().lower()
    if len(cleaned) < 2 or not cleaned[0].isalpha() or not cleaned[1:].isdigit():
        raise InvalidMoveError(f"{text!r} is not a square like 'a1'")
    col = ord(cleaned[0]) - ord("a")
    rank = int(cleaned[1:])
    if not 0 <= col < width or not 1 <= rank <= height:
        raise InvalidMoveError(
            f"{text!r} is off the board (columns a-{column_letters(width)[-1]}, rows 1-{height})"
        )
    return height - rank, col


def format_square(row: int, col: int, height: int) -> str:
    """Inverse of `parse_square`."""
    return f"{column_letters(col + 1)[-1]}{height - row}"


def render_grid(cells: Sequence[str], width: int, height: int) -> str:
    """Render a width×height grid of one-character cells with a1-style labels."""
    pad = len(str(height))
    letters = column_letters(width)
    lines = []
    for row in range(height):
        rank = height - row
        body = " ".join(cells[row * width : (row + 1) * width])
        lines.append(f"{rank:>{pad}} {body}")
    lines.append(" " * (pad + 1) + " ".join(letters))
    return "\n".join(lines)
