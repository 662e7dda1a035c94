"""Records of random games played through the rules (no server): sources for export tests."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

from games import Game, make_game
from store import MatchRecord, MoveRecord
from store.matches import MatchTags

#: every built-in game, with small options where the default board is slow to fill
GAME_SETUPS: dict[str, dict[str, Any]] = {
    "connect4": {},
    "tictactoe": {},
    "gomoku": {"width": 9, "height": 7, "k": 4},
    "reversi": {"size": 6},
    "ultimate": {},
}


def random_match(
    name: str,
    seed: int,
    *,
    options: dict[str, Any] | None = None,
    opening_plies: int = 0,
    stop_after: int | None = None,
    tournament: str | None = None,
    move_info: bool = False,
) -> tuple[MatchRecord, list[MoveRecord]]:
    """A finished match of random moves; `stop_after` plies ends it by a timeout instead.

    With `move_info`, seat 0's moves after the opening carry what an engine says
    (`with_move_info`).
    """
    rng = random.Random(seed)
    game: Game[Any, Any] = make_game(name, GAME_SETUPS[name] if options is None else options)
    match_id = f"{name}-{seed:04d}"
    start = 1_700_000_000.0 + seed * 100
    state = game.initial_state()
    moves: list[MoveRecord] = []
    while not game.is_terminal(state) and (stop_after is None or len(moves) < stop_after):
        legal = game.legal_moves(state)
        move = legal[rng.randrange(len(legal))]
        think = 0.0 if len(moves) < opening_plies else round(rng.uniform(0.001, 0.5), 6)
        moves.append(
            MoveRecord(
                match_id=match_id,
                ply=len(moves),
                seat=game.to_move(state),
                move=game.encode_move(move),
                notation=game.format_move(move),
                think_time=think,
                at=start + len(moves),
            )
        )
        state = game.play(state, move)
    if move_info:
        moves = with_move_info(moves, opening_plies, rng)
    outcome = game.outcome(state)
    if outcome is not None:
        scores, winner = list(outcome.scores), outcome.winner
        termination, reason = outcome.termination.value, ""
        points = None if outcome.points is None else list(outcome.points)
    else:  # the side to move ran out of time
        loser = game.to_move(state)
        winner = 1 - loser
        scores = [1.0 if seat == winner else 0.0 for seat in range(2)]
        termination, reason, points = "timeout", f"seat {loser} took too long", None
    tags = MatchTags(
        opening=tuple(m.move for m in moves[:opening_plies]),
        index=seed if tournament else None,
    )
    record = MatchRecord(
        id=match_id,
        game=name,
        options=dict(game.options),
        move_time=0.5,
        lag_margin=0.2,
        players=[f"mcts:seed={seed}", "random"],
        status="finished",
        scores=scores,
        winner=winner,
        termination=termination,
        reason=reason,
        points=points,
        plies=len(moves),
        started_at=start,
        ended_at=start + len(moves) + 1,
        tournament=tournament,
        tags=tags,
    )
    return record, moves


def with_move_info(
    moves: list[MoveRecord], opening_plies: int, rng: random.Random
) -> list[MoveRecord]:
    """`moves` with engine reports on seat 0's moves after the opening: every field, or
    some of them (an engine that reports no depth, only an evaluation...); the
    principal variation is the game's own continuation."""
    result = []
    for index, move in enumerate(moves):
        if move.seat != 0 or index < opening_plies:
            result.append(move)
            continue
        kind = index % 4
        result.append(
            dataclasses.replace(
                move,
                eval=round(rng.random(), 4) if kind != 2 else None,
                depth=rng.randrange(0, 60) if kind in (0, 2) else None,
                visits=rng.randrange(0, 10**7) if kind != 3 else None,
                pv=tuple(m.notation for m in moves[index : index + 1 + kind]),
            )
        )
    return result
