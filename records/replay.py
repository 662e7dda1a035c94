"""Check an exchange record against the game's rules by replaying every move.

Nothing read from a file is trusted: the game and its options must exist, the
players must fill the seats, every ply must be the next one, played by the
seat to move, legal in its position and written as the game writes it; the
opening must be the start of the moves; and the stored result must be the one
the final position gives (or, for a game stopped by the server — a timeout, a
forfeit — the final position must not be a finished one).
"""

from __future__ import annotations

import math
from typing import Any

from games import Game, GameError, Termination, make_game
from games.go import Go, agreed_dead
from records.schema import SCHEMA_VERSION, GameEntry, RecordError

__all__ = ["BOARD_ENDINGS", "STATUSES", "check_entry"]

#: terminations only a finished board can give
BOARD_ENDINGS = frozenset(
    {
        Termination.LINE.value,
        Termination.BOARD_FULL.value,
        Termination.NO_MOVES.value,
        Termination.SCORE.value,
    }
)

STATUSES = ("finished", "aborted", "running")


def _check_header(entry: GameEntry) -> Game[Any, Any]:
    if entry.schema != SCHEMA_VERSION:
        raise RecordError(f"schema version {entry.schema!r} is not {SCHEMA_VERSION}")
    if not entry.id or entry.id != entry.id.strip():
        raise RecordError(f"bad match id {entry.id!r}")
    if entry.status not in STATUSES:
        raise RecordError(f"status must be one of {', '.join(STATUSES)}, not {entry.status!r}")
    try:
        game = make_game(entry.game, entry.options)
    except ValueError as exc:
        raise RecordError(f"game {entry.game!r}: {exc}") from None
    if len(entry.players) != game.num_players:
        raise RecordError(
            f"{game.name} needs {game.num_players} players, not {len(entry.players)}:"
            f" {entry.players!r}"
        )
    for name in ("move_time", "lag_margin"):
        value = getattr(entry.time_control, name)
        if not math.isfinite(value) or value < 0:
            raise RecordError(f"time control {name} must be a number >= 0, not {value!r}")
    return game


def _replay(game: Game[Any, Any], entry: GameEntry) -> Any:
    state = game.initial_state()
    for index, played in enumerate(entry.moves):
        where = f"ply {index + 1} ({played.notation!r})"
        if played.ply != index:
            raise RecordError(f"{where}: numbered ply {played.ply + 1}, expected {index + 1}")
        if game.is_terminal(state):
            raise RecordError(f"{where}: the game was already over")
        mover = game.to_move(state)
        if played.seat != mover:
            raise RecordError(f"{where}: played by seat {played.seat}, but seat {mover} is to move")
        try:
            move = game.decode_move(played.move)
            state = game.play(state, move)
        except GameError as exc:
            raise RecordError(f"{where}: {exc}") from None
        written = game.format_move(move)
        if played.notation != written:
            raise RecordError(f"{where}: the move {played.move!r} is written {written!r}")
        if not math.isfinite(played.think_time) or played.think_time < 0:
            raise RecordError(f"{where}: think time must be >= 0, not {played.think_time!r}")
    return state


def _check_opening(entry: GameEntry) -> None:
    opening = entry.opening
    if len(opening.notation) != len(opening.moves):
        raise RecordError(
            f"the opening has {len(opening.moves)} moves but {len(opening.notation)} in notation"
        )
    played = [(m.move, m.notation) for m in entry.moves[: len(opening.moves)]]
    if played != list(zip(opening.moves, opening.notation, strict=True)):
        raise RecordError(
            f"the opening {' '.join(opening.notation)!r} is not how the game starts"
            f" ({' '.join(n for _, n in played)!r})"
        )


def _check_result(game: Game[Any, Any], entry: GameEntry, state: Any) -> None:
    result = entry.result
    outcome = game.outcome(state)
    if isinstance(game, Go) and outcome is not None and result is not None:
        dead = agreed_dead(game, result.reason)  # two people agreed these off before the count
        if dead:
            outcome = game.score(game.removing(state, dead))
    if entry.status == "running":
        if result is not None:
            raise RecordError("a running game cannot have a result")
        return
    if result is None:
        raise RecordError(f"a {entry.status} game needs a result (it may hold null scores)")
    if result.scores is None:
        if entry.status == "finished":
            raise RecordError("a finished game needs scores")
        return
    if len(result.scores) != game.num_players:
        raise RecordError(f"scores {result.scores!r} do not have one entry per seat")
    if result.winner is not None and not 0 <= result.winner < game.num_players:
        raise RecordError(f"winner {result.winner!r} is not a seat")
    if outcome is not None:
        expected = (list(outcome.scores), outcome.winner, outcome.termination.value)
        stored = (result.scores, result.winner, result.termination)
        if stored != expected:
            raise RecordError(
                f"the result {stored!r} is not the final position's {expected!r}"
                f" after {len(entry.moves)} plies"
            )
    elif result.termination in BOARD_ENDINGS:
        raise RecordError(
            f"termination {result.termination!r} but the game is not over"
            f" after {len(entry.moves)} plies"
        )


def check_entry(entry: GameEntry) -> Game[Any, Any]:
    """Replay `entry` through the rules; return its game, or raise RecordError saying why."""
    game = _check_header(entry)
    state = _replay(game, entry)
    _check_opening(entry)
    _check_result(game, entry, state)
    return game
