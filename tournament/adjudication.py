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

Adjudication by the engines' own evaluations is not offered: players do not
report evaluations (the ``move`` message has no such field), and a rule on
numbers nobody sends would be dead code. docs/TOURNAMENTS.md says so.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

from games import Game

__all__ = ["Adjudication", "Proof", "prove"]

_KEYS = ("max_plies", "proven_nodes")


@dataclass(frozen=True, slots=True)
class Adjudication:
    """The opt-in rules (None: off)."""

    max_plies: int | None = None
    proven_nodes: int | None = None

    def __post_init__(self) -> None:
        for name in _KEYS:
            value = getattr(self, name)
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"adjudication {name} must be an integer >= 1, not {value!r}")

    def as_dict(self) -> dict[str, int]:
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
