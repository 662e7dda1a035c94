"""Openings for engine-testing matches: random, from a file, and played in seat-swapped pairs.

Why this shape: deterministic MCTS players would replay the same game over and
over from the empty board. An opening (a short sequence of moves played
before the players take over) varies the games; playing each opening twice,
with the seats swapped, cancels most of the advantage an opening gives one
side, and makes the *pair* the statistical unit (see `tournament.stats`).

An `OpeningBook` hands out the opening of pair number ``i`` for any ``i`` (an
SPRT does not know in advance how many pairs it will play), cycling through a
file's openings, or generating random ones. Opening ``i`` depends only on the
seed and ``i``, never on what was asked before, so a resumed tournament gets
the same openings for the same pairs.

Openings are kept as game moves and written in the game's notation
(`Game.format_move`); on the wire and in records a move is `Game.encode_move`.
"""

from __future__ import annotations

import random
import re
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games import Game, GameError
from tournament.errors import OpeningError as OpeningError

__all__ = [
    "EMPTY",
    "FileOpenings",
    "NoOpenings",
    "Opening",
    "OpeningBook",
    "OpeningError",
    "PairedGame",
    "RandomOpenings",
    "book_from_dict",
    "load_opening_file",
    "paired_games",
    "parse_openings",
    "random_opening",
    "replay_opening",
]

#: how many random openings may end the game before `random_opening` gives up
MAX_ATTEMPTS = 1000

_SEPARATORS = re.compile(r"[\s,;]+")


@dataclass(frozen=True, slots=True)
class Opening:
    """A sequence of moves from the initial position; the game is not over after them."""

    moves: tuple[Hashable, ...]
    notation: tuple[str, ...]

    @classmethod
    def from_moves(cls, game: Game[Any, Any], moves: Sequence[Hashable]) -> Opening:
        """An opening from game moves (checked against the rules: see `replay_opening`)."""
        replay_opening(game, moves)
        return cls(tuple(moves), tuple(game.format_move(move) for move in moves))

    def __len__(self) -> int:
        return len(self.moves)

    def text(self) -> str:
        """The moves in notation, space separated (one line of an opening file)."""
        return " ".join(self.notation)

    def wire(self, game: Game[Any, Any]) -> list[Any]:
        """The moves encoded for the wire and the records."""
        return [game.encode_move(move) for move in self.moves]


EMPTY = Opening((), ())


def replay_opening(game: Game[Any, Any], moves: Iterable[Hashable]) -> Any:
    """Play `moves` from the initial position; return the state after them.

    Raises OpeningError if a move is illegal or the game ends within the opening.
    """
    state = game.initial_state()
    for ply, move in enumerate(moves):
        if game.is_terminal(state):
            raise OpeningError(f"the game is over before move {ply + 1} ({move!r})")
        try:
            state = game.play(state, move)
        except GameError as exc:
            raise OpeningError(f"move {ply + 1}: {exc}") from None
    if game.is_terminal(state):
        raise OpeningError("the opening ends the game")
    return state


def random_opening(game: Game[Any, Any], plies: int, rng: random.Random) -> Opening:
    """`plies` uniformly random legal moves after which the game is still on.

    Openings that end the game are rejected and drawn again (at most
    `MAX_ATTEMPTS` times; OpeningError after that, e.g. 9 plies of tic-tac-toe).
    """
    if isinstance(plies, bool) or not isinstance(plies, int) or plies < 0:
        raise OpeningError(f"opening length must be an integer >= 0, not {plies!r}")
    for _ in range(MAX_ATTEMPTS):
        state = game.initial_state()
        moves: list[Hashable] = []
        while len(moves) < plies and not game.is_terminal(state):
            legal = game.legal_moves(state)
            move = legal[rng.randrange(len(legal))]
            moves.append(move)
            state = game.apply(state, move)
        if len(moves) == plies and not game.is_terminal(state):
            return Opening(tuple(moves), tuple(game.format_move(m) for m in moves))
    raise OpeningError(
        f"no random opening of {plies} plies leaves {game.describe()} unfinished"
        f" in {MAX_ATTEMPTS} tries"
    )


def parse_openings(game: Game[Any, Any], text: str, source: str = "<openings>") -> list[Opening]:
    """Openings from text: one per line, moves in the game's notation.

    Moves are separated by spaces, commas or semicolons; blank lines and lines
    starting with ``#`` are skipped (as is anything after a ``#``). Every move
    is checked against the rules. Errors read
    ``source:LINE: move N 'xx': why``.
    """
    openings: list[Opening] = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        state = game.initial_state()
        moves: list[Hashable] = []
        for index, token in enumerate(_SEPARATORS.split(line)):
            where = f"{source}:{number}: move {index + 1} {token!r}"
            if game.is_terminal(state):
                raise OpeningError(f"{where}: the game is already over")
            try:
                move = game.parse_move(token)
                state = game.play(state, move)
            except GameError as exc:
                raise OpeningError(f"{where}: {exc}") from None
            moves.append(move)
        if game.is_terminal(state):
            raise OpeningError(f"{source}:{number}: the opening ends the game")
        openings.append(Opening(tuple(moves), tuple(game.format_move(m) for m in moves)))
    return openings


def load_opening_file(game: Game[Any, Any], path: str | Path) -> list[Opening]:
    """`parse_openings` on a file; OpeningError if it is unreadable or holds no opening."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise OpeningError(f"cannot read opening file {str(path)!r}: {exc}") from None
    openings = parse_openings(game, text, str(path))
    if not openings:
        raise OpeningError(f"opening file {str(path)!r} holds no opening")
    return openings


class OpeningBook:
    """Hands out the opening of each pair; `opening(i)` depends only on i and the settings."""

    def opening(self, index: int) -> Opening:
        """The opening of pair number `index` (0-based)."""
        raise NotImplementedError

    def describe(self) -> dict[str, Any]:
        """JSON-ready settings, stored with a tournament to rebuild the book on --resume."""
        raise NotImplementedError


class NoOpenings(OpeningBook):
    """Every pair starts from the initial position."""

    def opening(self, index: int) -> Opening:
        return EMPTY

    def describe(self) -> dict[str, Any]:
        return {"kind": "none"}


class RandomOpenings(OpeningBook):
    """Random openings of `plies` moves; opening i is drawn from a RNG seeded by (seed, i)."""

    def __init__(self, game: Game[Any, Any], plies: int, seed: int) -> None:
        if isinstance(plies, bool) or not isinstance(plies, int) or plies < 0:
            raise OpeningError(f"opening length must be an integer >= 0, not {plies!r}")
        self.game, self.plies, self.seed = game, plies, seed

    def opening(self, index: int) -> Opening:
        # str seeds hash with SHA-512: stable across runs and Python versions
        return random_opening(self.game, self.plies, random.Random(f"{self.seed}/{index}"))

    def describe(self) -> dict[str, Any]:
        return {"kind": "random", "plies": self.plies, "seed": self.seed}


class FileOpenings(OpeningBook):
    """A list of openings, in file order or shuffled once by `seed`, cycled as needed."""

    def __init__(
        self,
        openings: Sequence[Opening],
        *,
        order: str = "sequential",
        seed: int = 0,
        source: str = "",
    ) -> None:
        if not openings:
            raise OpeningError("an opening book needs at least one opening")
        if order not in ("sequential", "random"):
            raise OpeningError(f"opening order must be 'sequential' or 'random', not {order!r}")
        self.order, self.seed, self.source = order, seed, source
        self.in_file_order = list(openings)
        self.openings = list(openings)
        if order == "random":
            random.Random(f"openings/{seed}").shuffle(self.openings)

    def opening(self, index: int) -> Opening:
        return self.openings[index % len(self.openings)]

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "file",
            "file": self.source,
            "order": self.order,
            "seed": self.seed,
            "openings": [opening.text() for opening in self.in_file_order],
        }


@dataclass(frozen=True, slots=True)
class PairedGame:
    """One game of a pair: which pair, which of its two games, seats and opening."""

    pair: int
    game: int  # 0: players in the given order; 1: seats swapped
    seats: tuple[str, str]
    opening: Opening


def paired_games(
    book: OpeningBook, first: str, second: str, pairs: int, start: int = 0
) -> list[PairedGame]:
    """Games of pairs ``start .. start+pairs-1``: each opening twice, seats swapped.

    The first game of pair i seats (first, second); the second seats (second, first).
    """
    games: list[PairedGame] = []
    for index in range(start, start + pairs):
        opening = book.opening(index)
        games.append(PairedGame(index, 0, (first, second), opening))
        games.append(PairedGame(index, 1, (second, first), opening))
    return games


def book_from_dict(game: Game[Any, Any], data: Any) -> OpeningBook:
    """Rebuild a book from its `describe()` (file books carry their openings: no file needed)."""
    if not isinstance(data, dict):
        raise OpeningError(f"opening settings must be a JSON object, not {data!r}")
    kind = data.get("kind")
    if kind == "none":
        return NoOpenings()
    if kind == "random":
        return RandomOpenings(game, data.get("plies"), data.get("seed"))  # type: ignore[arg-type]
    if kind == "file":
        lines = data.get("openings")
        if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
            raise OpeningError(f"opening settings lack the list of openings: {data!r}")
        source = str(data.get("file", ""))
        openings = parse_openings(game, "\n".join(lines), source or "<stored openings>")
        return FileOpenings(
            openings, order=str(data.get("order")), seed=data.get("seed", 0), source=source
        )
    raise OpeningError(f"unknown opening book kind {kind!r}")
