"""A second, independent exact method for connect four: plain minimax over the game's own rules.

No bitboard tricks, no move ordering, no transposition table: `games.connect4`
applies the moves and says who won. Slow, so the tests use it on late
positions (few empty cells), where it checks both compiled solvers.
"""

from __future__ import annotations

import random
from typing import Any

from games.base import DRAW, ONGOING
from games.connect4 import Connect4


def value(game: Connect4, state: Any) -> int:
    """The value of `state` for the side to move: 1 win, 0 draw, -1 loss."""
    status = state[3]
    if status != ONGOING:
        return 0 if status == DRAW else (1 if status == game.to_move(state) else -1)
    best = -1
    for move in game.legal_moves(state):
        best = max(best, -value(game, game.apply(state, move)))
        if best == 1:
            break
    return best


def move_values(game: Connect4, state: Any) -> list[int | None]:
    """Per column: the value for the side to move of playing there (None: full)."""
    legal = set(game.legal_moves(state))
    return [
        -value(game, game.apply(state, column)) if column in legal else None
        for column in range(game.width)
    ]


def late_positions(seed: int, count: int, ply: int) -> list[tuple[int, ...]]:
    """`count` random move lines of `ply` moves whose game is still going on."""
    rng = random.Random(seed)
    game = Connect4()
    found: list[tuple[int, ...]] = []
    while len(found) < count:
        state = game.initial_state()
        moves: list[int] = []
        while len(moves) < ply and not game.is_terminal(state):
            move = rng.choice(game.legal_moves(state))
            moves.append(move)
            state = game.apply(state, move)
        if len(moves) == ply and not game.is_terminal(state):
            found.append(tuple(moves))
    return found


def even_positions(seed: int, count: int, ply: int) -> list[tuple[int, int, int, int]]:
    """Random positions of `ply` random moves, game going on, every column an even height."""
    game = Connect4()
    rng = random.Random(seed)
    found: list[tuple[int, int, int, int]] = []
    while len(found) < count:
        state = game.initial_state()
        heights = [0] * game.width
        for _ in range(ply):
            if game.is_terminal(state):
                break
            column = rng.choice(game.legal_moves(state))
            state = game.apply(state, column)
            heights[column] += 1
        full = sum(heights) == ply and not game.is_terminal(state)
        if full and all(h % 2 == 0 for h in heights):
            found.append(state)
    return found
