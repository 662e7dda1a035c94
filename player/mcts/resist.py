"""The longest resistance in a lost position: which moves put the loss furthest off.

Why a room of its own: when the search proves the root lost, every move is
marked lost alike and the tree says nothing of how long each one holds out
(MCTS-Solver's proofs carry no distance, and an exact search's proof of a
child may cost it no visit). A player that then picks the most visited move
may walk into a loss in one where the opponent had to find a long
combination. Real opponents miss long wins, so the move that resists
longest is the one to play.

The method is game-independent, on the `Game` protocol alone: iterative
deepening of an AND/OR search "can the opponents force our loss within d
plies?" for each move, d = 1, 3, 5, ... The moves not refuted at the deepest
depth completed within the node budget and the deadline are kept; when
every move is refuted at some depth, the survivors of the depth before stay
the answer. The search's own statistics then choose among them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

from games.base import Game

__all__ = ["longest_resistance"]

#: positions the resistance search may visit for one move choice
NODE_BUDGET = 50_000
#: the deepest refutation asked for, in plies
MAX_PLIES = 15


class _Spent(Exception):
    """The node budget or the deadline ran out."""


def longest_resistance(
    game: Game[Any, Any],
    state: Any,
    moves: Sequence[Any],
    *,
    deadline: float | None = None,
    budget: int = NODE_BUDGET,
    clock: Callable[[], float] = time.perf_counter,
) -> list[Any]:
    """The moves of `moves` (legal in the lost `state`) whose loss is furthest off.

    The result is never empty: at worst it is `moves` itself (no depth
    separated them, or the budget ran out before the first one did).
    """
    me = game.to_move(state)
    left = [budget]

    def lost_within(s: Any, plies: int) -> bool:
        """Whether the other seats can force `me` a loss in `s` within `plies` plies."""
        result = game.outcome(s)
        if result is not None:
            return result.scores[me] <= 0.0 and result.winner is not None
        if plies <= 0:
            return False
        left[0] -= 1
        if left[0] < 0 or (deadline is not None and left[0] % 256 == 0 and clock() >= deadline):
            raise _Spent
        replies = game.legal_moves(s)
        if game.to_move(s) == me:
            return all(lost_within(game.apply(s, m), plies - 1) for m in replies)
        return any(lost_within(game.apply(s, m), plies - 1) for m in replies)

    survivors = list(moves)
    plies = 1
    while len(survivors) > 1 and plies <= MAX_PLIES:
        if deadline is not None and clock() >= deadline:
            break
        try:
            held = [m for m in survivors if not lost_within(game.apply(state, m), plies)]
        except _Spent:
            break
        if not held:
            break  # every move loses within `plies`: those that lasted to here are the answer
        survivors = held
        plies += 2
    return survivors
