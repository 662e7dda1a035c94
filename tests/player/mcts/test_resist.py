"""`longest_resistance`: in a lost position, the moves whose loss is furthest off.

Held to an exact minimax over every tic-tac-toe position the side to move has
lost, and to a connect four position where one defence loses at once.
"""

from __future__ import annotations

import functools
from typing import Any

from games import make_game
from player.mcts.resist import longest_resistance

TTT = make_game("tictactoe")


@functools.cache
def value(state: Any) -> tuple[int, int]:
    """(result for the side to move: 1, 0 or -1; plies to the end under perfect play,
    the winner hurrying and the loser holding out)."""
    result = TTT.outcome(state)
    if result is not None:
        me = TTT.to_move(state)
        if result.winner is None:
            return 0, 0
        return (1 if result.winner == me else -1), 0
    best: tuple[int, int] | None = None
    for move in TTT.legal_moves(state):
        score, plies = value(TTT.apply(state, move))
        mine = (-score, plies + 1)
        # a win sooner, a loss later: order by score, then by -plies (win) or +plies (loss)
        key = (mine[0], -mine[1] if mine[0] > 0 else mine[1])
        if best is None or key > (best[0], -best[1] if best[0] > 0 else best[1]):
            best = mine
    assert best is not None
    return best


def lost_positions() -> list[Any]:
    seen: set[Any] = set()
    lost: list[Any] = []
    frontier = [TTT.initial_state()]
    while frontier:
        state = frontier.pop()
        if state in seen or TTT.outcome(state) is not None:
            continue
        seen.add(state)
        if value(state)[0] < 0:
            lost.append(state)
        frontier.extend(TTT.apply(state, m) for m in TTT.legal_moves(state))
    return lost


def test_every_lost_tictactoe_position_gets_the_longest_defences() -> None:
    positions = lost_positions()
    assert len(positions) > 100
    differing = 0
    for state in positions:
        moves = list(TTT.legal_moves(state))
        lasts = {m: value(TTT.apply(state, m))[1] + 1 for m in moves}
        longest = max(lasts.values())
        expected = {m for m in moves if lasts[m] == longest}
        differing += len(set(lasts.values())) > 1
        assert set(longest_resistance(TTT, state, moves)) == expected, TTT.render(state)
    assert differing > 50  # the positions where the choice matters are many


def test_a_connect4_defence_that_loses_at_once_is_never_kept() -> None:
    game = make_game("connect4")
    state = game.initial_state()
    # X holds columns 1, 2, 3 of the bottom row, O holds 0: every move of O but
    # the block at 4 loses at once.
    for move in (1, 0, 2, 6, 3):
        state = game.apply(state, move)
    moves = list(game.legal_moves(state))
    assert longest_resistance(game, state, moves) == [4]


def test_a_spent_budget_keeps_the_survivors_so_far() -> None:
    game = make_game("connect4")
    state = game.initial_state()
    for move in (1, 0, 2, 6, 3):
        state = game.apply(state, move)
    moves = list(game.legal_moves(state))
    assert longest_resistance(game, state, moves, budget=1) == moves
    assert longest_resistance(game, state, moves, deadline=0.0, clock=lambda: 1.0) == moves
