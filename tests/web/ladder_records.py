"""A ladder's past games written to a records file, as the server records them.

Each game is played here, move by move, with the real rules (tic-tac-toe by default)
(so every record replays, and exports as JSONL and SGF): a bot of skill `p`
takes a winning square, else blocks the opponent's, with probability `p`,
and plays at random otherwise. A crashing engine loses at its second move
with the termination and reason the server writes for a crash. The seats
alternate between each pair, as the ladder's pairing does.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from games import GameError, make_game
from store import MatchRecord, MoveRecord
from store.matches import MatchTags
from store.open import open_database

#: skill of each bot (None: an engine that crashes at its second move)
SKILLS: dict[str, float | None] = {"strong": 0.95, "medium": 0.6, "weak": 0.0, "crasher": None}


def _choose(game: Any, state: Any, skill: float, rng: random.Random) -> Any:
    moves = list(game.legal_moves(state))
    if rng.random() < skill:
        me = game.to_move(state)
        for want in (me, 1 - me):  # win, else block
            for move in moves:
                after = game.apply(state, move) if want == me else _as_other(game, state, move)
                outcome = game.outcome(after) if after is not None else None
                if outcome is not None and outcome.winner == want:
                    return move
    return rng.choice(moves)


def _as_other(game: Any, state: Any, move: Any) -> Any:
    """The state had the other seat played `move` here (to see a line it must block)."""
    encoded = game.encode_state(state)
    encoded = {**encoded, "to_move": 1 - encoded["to_move"]}
    try:
        return game.apply(game.decode_state(encoded), move)
    except (GameError, KeyError, TypeError, ValueError):  # a state the game cannot take
        return None


def play_game(
    index: int,
    ladder: str,
    players: Sequence[str],
    rng: random.Random,
    at: float,
    game_name: str = "tictactoe",
) -> tuple[MatchRecord, list[MoveRecord]]:
    """One ladder game between `players` (seat order), recorded as the server records it."""
    game = make_game(game_name, {})
    state = game.initial_state()
    match_id = f"{game.name[:3]}{index:04d}-{rng.randrange(16**6):06x}"
    moves: list[MoveRecord] = []
    scores: list[float] | None = None
    winner, termination, reason = None, "", ""
    now = at
    while (outcome := game.outcome(state)) is None:
        seat = game.to_move(state)
        skill = SKILLS.get(players[seat], 0.3)
        if skill is None and len([m for m in moves if m.seat == seat]) == 1:
            name = players[seat]
            winner = 1 - seat
            scores = [1.0, 0.0] if winner == 0 else [0.0, 1.0]
            termination = "crash"
            reason = f"{name} crashed: engine {name}: engine exited (code 5)"
            break
        move = _choose(game, state, skill or 0.0, rng)
        think = round(rng.uniform(0.01, 0.3), 3)
        now += think
        moves.append(
            MoveRecord(match_id, len(moves), seat, game.encode_move(move), game.format_move(move), think, now)
        )  # fmt: skip
        state = game.apply(state, move)
    if outcome is not None:
        scores = list(outcome.scores)
        winner = outcome.winner
        termination = outcome.termination.value
        reason = (
            "draw (board_full)" if winner is None else f"{players[winner]} wins ({termination})"
        )
    record = MatchRecord(
        id=match_id, game=game.name, options=dict(game.options), move_time=2.0, lag_margin=0.2,
        players=list(players), status="finished", scores=scores, winner=winner,
        termination=termination, reason=reason, points=None, plies=len(moves),
        started_at=at, ended_at=now + 0.01, tournament=None, tags=MatchTags(ladder=ladder),
    )  # fmt: skip
    return record, moves


def write_ladder(
    db: Path,
    ladder: str,
    bots: Sequence[str],
    games: int,
    *,
    seed: int = 1,
    gap: float = 600.0,
    game: str = "tictactoe",
) -> list[MatchRecord]:
    """`games` games of `ladder` among `bots`, one every `gap` seconds up to now, each pair in turn
    with the seats swapped each time they meet; returns the records written."""
    rng = random.Random(seed)
    start = time.time() - games * gap  # the last game ended just now
    store = open_database(str(db), check=True, make_directory=True)
    written = []
    try:
        pairs = itertools.cycle(list(itertools.combinations(bots, 2)))
        met: dict[frozenset[str], int] = {}
        for index in range(games):
            a, b = next(pairs)
            count = met.get(frozenset((a, b)), 0)
            met[frozenset((a, b))] = count + 1
            players = (a, b) if count % 2 == 0 else (b, a)
            record, moves = play_game(index, ladder, players, rng, start + index * gap, game)
            assert store.import_match(record, moves)
            written.append(record)
    finally:
        store.close()
    return written
