"""Per-game coordinates for the board protocols (GTP, Gomocup): a small table, not a branch per game.

A `BoardMapping` says how one of our games' moves are written in a board
protocol: GTP vertices (``D4``, ``pass``) and Gomocup ``x,y`` pairs. The text
protocol needs none: it speaks the game's own notation.

- go: GTP's own game. Vertices as the game writes them (columns A… skipping I,
  rows from the bottom, the m,n,k boards' convention below); a pass is a move
  sent both ways (``play black pass``, ``= pass``), and the game's komi is told
  to the engine with ``komi``.
- reversi: the Othello convention gtp-rhino uses (columns a–h, rows from the
  top, i.e. our reversi notation); passes are implied by the colour of the next
  command, never sent.
- m,n,k boards (tic-tac-toe, gomoku): Go's convention for GTP (columns A… skipping
  I, rows from the bottom), and for Gomocup x = column from the left, y = row from
  the top (our m,n,k move index is ``row * width + col`` with row 0 at the top).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.base import Game, GameError
from games.go import PASS as GO_PASS
from games.go import Go
from games.mnk import MNKGame
from games.reversi import PASS, Reversi

GO_LETTERS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"  # Go skips I
PASS_WORDS = ("pass",)


@dataclass(frozen=True, slots=True)
class BoardMapping:
    """How the moves of one game are written in GTP and Gomocup."""

    game: Game[Any, Any]
    width: int
    height: int
    #: the game's pass move, if it has one (reversi); GTP never sends it
    pass_move: Any | None
    #: "othello": vertices are the game's own notation; "go": Go letters, rows from the bottom
    vertices: str
    #: whether the Gomocup protocol can play it (five in a row)
    gomocup: bool
    #: whether a pass is a move sent with ``play`` (Go), not implied by the next colour
    sends_pass: bool = False
    #: the komi told to a GTP engine with ``komi`` (0 for games without one)
    komi: float = 0.0

    # --- GTP -----------------------------------------------------------------------

    def vertex(self, move: Any) -> str:
        """`move` as a GTP vertex (``pass`` for the game's pass)."""
        if self.pass_move is not None and move == self.pass_move:
            return "pass"
        if self.vertices == "othello":
            return str(self.game.format_move(move))
        row, col = divmod(int(move), self.width)
        return f"{GO_LETTERS[col]}{self.height - row}"

    def parse_vertex(self, text: str) -> Any:
        """A GTP vertex (or ``pass``) as our move; ValueError if it is not one."""
        word = text.strip()
        if word.lower() in PASS_WORDS:
            if self.pass_move is None:
                raise ValueError(f"{word!r}: this game has no pass")
            return self.pass_move
        if self.vertices == "othello":
            try:
                return self.game.parse_move(word)
            except GameError as exc:
                raise ValueError(str(exc)) from None
        letter, digits = word[:1].upper(), word[1:]
        if not letter or letter not in GO_LETTERS[: self.width] or not digits.isdigit():
            raise ValueError(f"{word!r} is not a vertex of a {self.width}x{self.height} board")
        rank = int(digits)
        if not 1 <= rank <= self.height:
            raise ValueError(f"{word!r} is off a {self.width}x{self.height} board")
        return (self.height - rank) * self.width + GO_LETTERS.index(letter)

    # --- Gomocup ---------------------------------------------------------------------

    def xy(self, move: Any) -> str:
        """`move` as Gomocup's ``x,y``."""
        row, col = divmod(int(move), self.width)
        return f"{col},{row}"

    def parse_xy(self, text: str) -> Any:
        """Gomocup's ``x,y`` as our move; ValueError if it is not a square of the board."""
        parts = text.split(",")
        if len(parts) != 2 or not all(part.strip().isdigit() for part in parts):
            raise ValueError(f"{text!r} is not a move x,y")
        x, y = (int(part) for part in parts)
        if not (0 <= x < self.width and 0 <= y < self.height):
            raise ValueError(f"{text!r} is off the {self.width}x{self.height} board")
        return y * self.width + x


def board_mapping(game: Game[Any, Any], protocol: str) -> BoardMapping:
    """The mapping of `game` for `protocol` (``gtp`` or ``gomocup``), or ValueError if none."""
    if isinstance(game, Go):
        mapping = BoardMapping(
            game, game.size, game.size, GO_PASS, "go", False, sends_pass=True, komi=game.komi
        )
    elif isinstance(game, Reversi):
        mapping = BoardMapping(game, game.size, game.size, PASS, "othello", gomocup=False)
    elif isinstance(game, MNKGame):
        mapping = BoardMapping(
            game, game.width, game.height, None, "go", gomocup=game.options.get("k") == 5
        )
    else:
        raise ValueError(
            f"protocol {protocol} cannot play {game.describe()}: it plays go, reversi"
            " and m,n,k boards (gomoku, tictactoe); protocol=text plays every game"
        )
    if protocol == "gtp":
        if mapping.width != mapping.height or mapping.width > len(GO_LETTERS):
            raise ValueError(
                f"protocol gtp cannot play {game.describe()}: GTP boards are square, at most 25"
            )
    elif protocol == "gomocup" and not mapping.gomocup:
        raise ValueError(
            f"protocol gomocup cannot play {game.describe()}: it plays five in a row"
            " (gomoku, or tictactoe with k=5)"
        )
    return mapping
