"""Adjudication rules of a tournament, and the small solver that proves results.

Why this shape: each rule is opt-in and ends the game with its own
termination, so a record says why a game stopped before its end:

* ``max_plies``: a draw once the game reaches that many plies. The server
  enforces it (the ``pair`` request carries it), so it is exact whatever the
  players' speed.
* ``proven_nodes``: the director, which watches its games as a spectator,
  runs an exact search (iterative deepening) of at most that many nodes on each new
  position; when it proves the result (win, loss or draw under best play) it
  asks the server to end the game with termination ``proven`` (the
  ``adjudicate`` message, accepted only while the game is still at that ply).

* ``resign_moves``/``resign_score`` and ``draw_moves``/``draw_score``: by the
  engines' own evaluations, as cutechess's ``-resign`` and ``-draw``. A player
  may send its expected score with each move (``move.eval``: 0 loss, 0.5
  draw, 1 win), which the server relays in ``update``. When the last
  ``resign_moves`` evaluations in a row (both sides', every ply) all give the
  same seat an expected score of at least ``1 - resign_score``, the director
  adjudicates that seat's win; when the last ``draw_moves`` all lie within
  ``draw_score`` of 0.5, a draw (termination ``evaluation``). A move sent
  without an evaluation breaks the run.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from games import Game

__all__ = ["Adjudication", "Proof", "prove"]

_SLACK = 1e-9  # 0.55 - 0.5 is 0.05000000000000004 in floats: thresholds are inclusive
_COUNTS = ("max_plies", "proven_nodes", "resign_moves", "draw_moves")
_SCORES = ("resign_score", "draw_score")
_KEYS = _COUNTS + _SCORES


@dataclass(frozen=True, slots=True)
class Adjudication:
    """The opt-in rules (None: off)."""

    max_plies: int | None = None
    proven_nodes: int | None = None
    resign_moves: int | None = None
    resign_score: float | None = None
    draw_moves: int | None = None
    draw_score: float | None = None

    def __post_init__(self) -> None:
        for name in _COUNTS:
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"adjudication {name} must be an integer >= 1, not {value!r}")
        for name in _SCORES:
            value = getattr(self, name)
            if value is None:
                continue
            if (
                isinstance(value, bool)
                or not isinstance(value, int | float)
                or not 0 <= value < 0.5
            ):
                raise ValueError(f"adjudication {name} must be in [0, 0.5), not {value!r}")
        for moves, score in (("resign_moves", "resign_score"), ("draw_moves", "draw_score")):
            if (getattr(self, moves) is None) != (getattr(self, score) is None):
                raise ValueError(f"adjudication {moves} and {score} go together")

    @property
    def by_evaluation(self) -> bool:
        return self.resign_moves is not None or self.draw_moves is not None

    def judge_evaluations(self, scores: list[float]) -> tuple[bool, int | None] | None:
        """The verdict on a game's evaluations so far (seat 0's expected score at each ply,
        oldest first): (True, winner or None for a draw), or None to play on."""
        if self.resign_moves is not None and self.resign_score is not None:
            recent = scores[-self.resign_moves :]
            if len(recent) == self.resign_moves:
                if all(s >= 1.0 - self.resign_score - _SLACK for s in recent):
                    return True, 0
                if all(s <= self.resign_score + _SLACK for s in recent):
                    return True, 1
        if self.draw_moves is not None and self.draw_score is not None:
            recent = scores[-self.draw_moves :]
            if len(recent) == self.draw_moves and all(
                abs(s - 0.5) <= self.draw_score + _SLACK for s in recent
            ):
                return True, None
        return None

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _KEYS if getattr(self, name) is not None}

    @classmethod
    def from_dict(cls, data: Any) -> Adjudication:
        if not isinstance(data, dict):
            raise ValueError(f"adjudication rules must be a JSON object, not {data!r}")
        unknown = sorted(set(data) - set(_KEYS))
        if unknown:
            raise ValueError(f"unknown adjudication rule {unknown[0]!r}")
        return cls(**data)

    def describe(self) -> str:
        parts = []
        if self.max_plies is not None:
            parts.append(f"draw at {self.max_plies} plies")
        if self.proven_nodes is not None:
            parts.append(f"proven results ({self.proven_nodes} nodes)")
        if self.resign_moves is not None:
            parts.append(
                f"resign after {self.resign_moves} evaluations at or past"
                f" {1 - (self.resign_score or 0):g}"
            )
        if self.draw_moves is not None:
            parts.append(
                f"draw after {self.draw_moves} evaluations within {self.draw_score:g} of 0.5"
            )
        return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class Proof:
    """A result proven by search: the winning seat, or None for a draw."""

    winner: int | None
    nodes: int


class _OutOfBudget(Exception):
    pass


def prove(game: Game[Any, Any], state: Any, nodes: int) -> Proof | None:
    """The game-theoretic result of a two-player position, or None if not proven in `nodes`.

    Iterative deepening over a three-valued minimax (win for seat 0 = 1, draw
    = 0, loss = -1, or unknown below the depth limit): a position is proven
    when the side to move has a move to a proven win, or when every move leads
    to a proven result. Short forced wins are therefore found first, whatever
    the game's length. Proven positions are kept across iterations; every
    visited position counts against the budget.
    """
    if game.num_players != 2 or game.is_terminal(state):
        return None
    table: dict[Hashable, int] = {}
    count = 0

    def search(position: Any, depth: int) -> int | None:
        nonlocal count
        count += 1
        if count > nodes:
            raise _OutOfBudget
        outcome = game.outcome(position)
        if outcome is not None:
            return 0 if outcome.winner is None else (1 if outcome.winner == 0 else -1)
        known = table.get(position)
        if known is not None or depth == 0:
            return known
        want = 1 if game.to_move(position) == 0 else -1
        best: int | None = None
        unknown = False
        for move in game.legal_moves(position):
            value = search(game.apply(position, move), depth - 1)
            if value is None:
                unknown = True
            elif value == want:
                best = value
                break
            elif best is None or value * want > best * want:
                best = value
        else:
            if unknown:
                return None
        assert best is not None
        table[position] = best
        return best

    depth = 1
    try:
        while True:
            value = search(state, depth)
            if value is not None:
                return Proof(None if value == 0 else (0 if value > 0 else 1), count)
            depth += 1
    except _OutOfBudget:
        return None
