"""Properties every registered game must have, checked on random games.

Runs over whatever `games.available_games()` returns (built-ins and plugins),
with default options, plus a few non-default option sets for the built-ins.
Each example is a whole random game driven by a seed; every state reached is
checked (outcome vs legal moves, wire and notation round trips, no mutation,
illegal moves refused), and the fast `playout` is checked against the rules.

Board-based checks read the ``board`` rows of `encode_state` (strings of
'.', 'X', 'O' in every built-in game) and are skipped for games without them.
"""

from __future__ import annotations

import copy
import importlib
import pickle
import random
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games import Game, IllegalMoveError, Termination, available_games, make_game

AnyGame = Game[Any, Any]

EXTRA_OPTIONS: list[tuple[str, dict[str, Any]]] = [
    ("tictactoe", {"width": 4, "height": 4, "k": 3}),
    ("tictactoe", {"width": 5, "height": 3, "k": 3}),
    ("gomoku", {"width": 9, "height": 9}),
    ("connect4", {"width": 5, "height": 4, "k": 3}),
    ("reversi", {"size": 4}),
    ("reversi", {"size": 6}),
    ("go", {"size": 5}),
]

BOARD_ENDINGS = {
    Termination.LINE,
    Termination.BOARD_FULL,
    Termination.NO_MOVES,
    Termination.SCORE,
}
#: games where a move can take stones off the board and two passes in a row end the
#: game: the stone-counting checks (one stone per move, no double pass) do not apply
CAPTURE_GAMES = {"go"}


def game_configs() -> list[Any]:
    registered = available_games()
    configs: list[Any] = [pytest.param(name, {}, id=name) for name in registered]
    for name, options in EXTRA_OPTIONS:
        if name in registered:
            label = ",".join(f"{k}={v}" for k, v in options.items())
            configs.append(pytest.param(name, options, id=f"{name}({label})"))
    return configs


CONFIGS = game_configs()
SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
# Whole games per example: few examples, no deadline, reproducible across runs.
GAMES = settings(
    max_examples=8, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
PLAYOUTS = settings(GAMES, max_examples=20)


def wire(value: Any) -> Any:
    """`value` after a msgpack round trip, decoded the way the protocol decodes."""
    return msgpack.unpackb(msgpack.packb(value), raw=False, strict_map_key=True)


def board_rows(game: AnyGame, state: Any) -> list[str] | None:
    """The encoded ``board`` rows, or None if the game encodes no such board."""
    board = game.encode_state(state).get("board")
    if not isinstance(board, list) or not all(isinstance(row, str) for row in board):
        return None
    return [str(row) for row in board]


def stones(game: AnyGame, state: Any) -> int | None:
    """Occupied cells of the encoded board, or None if the game has no such board."""
    rows = board_rows(game, state)
    return None if rows is None else sum(len(row) - row.count(".") for row in rows)


def cells(game: AnyGame) -> int | None:
    rows = board_rows(game, game.initial_state())
    return None if rows is None else sum(len(row) for row in rows)


def check_outcome(game: AnyGame, state: Any) -> None:
    outcome = game.outcome(state)
    moves = game.legal_moves(state)
    assert (outcome is None) == (len(moves) > 0), "terminal iff no legal moves"
    assert game.is_terminal(state) == (outcome is not None)
    if outcome is None:
        assert 0 <= game.to_move(state) < game.num_players
        return
    assert len(outcome.scores) == game.num_players
    assert sum(outcome.scores) == pytest.approx(1.0)
    assert outcome.termination in BOARD_ENDINGS
    if outcome.winner is None:
        assert outcome.scores == (1.0 / game.num_players,) * game.num_players
    else:
        assert outcome.scores[outcome.winner] == 1.0
        assert sum(outcome.scores) - outcome.scores[outcome.winner] == 0.0
    if outcome.points is not None:
        assert len(outcome.points) == game.num_players


def check_value(state: Any) -> None:
    """A state is a value: a hashable tuple that pickles (to process workers) to an equal one."""
    assert isinstance(state, tuple)
    copied = pickle.loads(pickle.dumps(state))
    assert copied == state and hash(copied) == hash(state) and type(copied) is type(state)


def check_wire_and_notation(game: AnyGame, state: Any) -> None:
    encoded = game.encode_state(state)
    assert game.decode_state(encoded) == state
    assert game.decode_state(wire(encoded)) == state
    for move in game.legal_moves(state):
        text = game.format_move(move)
        assert game.parse_move(text) == move, text
        assert game.decode_move(game.encode_move(move)) == move
        assert game.decode_move(wire(game.encode_move(move))) == move


@pytest.mark.parametrize(("name", "options"), CONFIGS)
@GAMES
@given(seed=SEEDS)
def test_random_games_obey_the_rules(name: str, options: dict[str, Any], seed: int) -> None:
    game = make_game(name, options)
    rng = random.Random(seed)
    size = cells(game)
    state = game.initial_state()
    seen_moves: set[Any] = set()
    steps, passes_in_a_row = 0, 0
    while True:
        check_value(state)
        check_outcome(game, state)
        check_wire_and_notation(game, state)
        moves = game.legal_moves(state)
        # Any move legal earlier but not now (an occupied square, a full column, a
        # finished game) must be refused by `play`.
        for stale in sorted(seen_moves - set(moves), key=repr)[:4]:
            with pytest.raises(IllegalMoveError):
                game.play(state, stale)
        if not moves:
            break
        seen_moves.update(moves)
        move = moves[rng.randrange(len(moves))]
        snapshot = copy.deepcopy(state)
        after = game.play(state, move)
        assert state == snapshot, "play/apply must not mutate the state"
        assert game.apply(state, move) == after
        before, now = stones(game, state), stones(game, after)
        if (
            size is not None
            and before is not None
            and now is not None
            and name not in CAPTURE_GAMES
        ):
            added = now - before
            # One stone per move, except passes, which never come twice in a row.
            assert added in (0, 1)
            passes_in_a_row = passes_in_a_row + 1 if added == 0 else 0
            assert passes_in_a_row < 2
            assert steps < 2 * size
        state = after
        steps += 1


@pytest.mark.parametrize(("name", "options"), CONFIGS)
@PLAYOUTS
@given(seed=SEEDS, opening=st.integers(0, 30), budget=st.integers(0, 8))
def test_playout_ends_the_game_by_the_rules(
    name: str, options: dict[str, Any], seed: int, opening: int, budget: int
) -> None:
    game = make_game(name, options)
    rng = random.Random(seed)
    state = game.playout(game.initial_state(), rng, max_moves=opening)
    assert game.decode_state(game.encode_state(state)) == state
    snapshot = copy.deepcopy(state)

    end = game.playout(state, rng)
    assert state == snapshot
    check_outcome(game, end)
    assert game.outcome(end) is not None
    assert game.decode_state(game.encode_state(end)) == end, "playout left inconsistent state"
    assert game.playout(end, rng) == end

    generic_end = Game.playout(game, state, rng)  # the reference implementation
    assert game.outcome(generic_end) is not None

    assert game.playout(state, rng, max_moves=0) == state
    one = game.playout(state, rng, max_moves=1)
    if game.is_terminal(state):
        assert one == state
    else:
        assert one in {game.apply(state, m) for m in game.legal_moves(state)}

    partial = game.playout(state, rng, max_moves=budget)
    assert game.decode_state(game.encode_state(partial)) == partial
    before, after = stones(game, state), stones(game, partial)
    if before is not None and after is not None and name not in CAPTURE_GAMES:
        # At most `budget` moves, each adding one stone bar non-consecutive passes;
        # an unfinished playout used its whole budget.
        assert after - before <= budget
        if not game.is_terminal(partial):
            assert after - before >= budget // 2


#: the built-in games whose states are plain tuples read by named indices (a
#: NamedTuple slowed their `apply`), with those indices in the state's order
NAMED_INDICES = [
    ("connect4", "games.connect4", ("STONES0", "STONES1", "PLY", "STATUS")),
    ("tictactoe", "games.mnk", ("STONES0", "STONES1", "PLY", "STATUS")),
    ("reversi", "games.reversi", ("BLACK", "WHITE", "TO_MOVE", "STATUS", "MOVES")),
    (
        "ultimate",
        "games.ultimate",
        ("STONES0", "STONES1", "WON0", "WON1", "CLOSED", "FORCED", "PLY", "STATUS"),
    ),
]


@pytest.mark.parametrize(("name", "module", "fields"), NAMED_INDICES)
def test_named_indices_cover_the_state(name: str, module: str, fields: tuple[str, ...]) -> None:
    names = importlib.import_module(module)
    game = make_game(name)
    state = game.initial_state()
    assert [getattr(names, field) for field in fields] == list(range(len(state)))
    after = game.apply(state, game.legal_moves(state)[0])
    mover = names.TO_MOVE if name == "reversi" else names.PLY
    assert (state[mover], after[mover]) == (0, 1)
    assert after[names.STATUS] == state[names.STATUS]  # one move neither wins nor ends
