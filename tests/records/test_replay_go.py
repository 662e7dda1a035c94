"""A Go record whose players agreed dead stones off is checked against the agreed count."""

from __future__ import annotations

import msgspec
import pytest

from games import make_game
from games.go import Go, taken_off_text
from records.replay import check_entry
from records.schema import RecordError, entry_from_store
from tests.records.fixtures import random_match


def test_an_agreed_count_imports_and_a_forged_one_does_not() -> None:
    game = make_game("go", {"size": 5})
    assert isinstance(game, Go)
    for seed in range(50):
        record, moves = random_match("go", seed, options={"size": 5})
        state = game.initial_state()
        for move in moves:
            state = game.apply(state, game.decode_move(move.move))
        white = [m for m in range(25) if state[1] >> game.tables.position[m] & 1]
        if not white:
            continue
        dead = game.chain(state, white[0])
        agreed, standing = game.score(game.removing(state, dead)), game.score(state)
        if agreed.winner != standing.winner:
            break
    else:
        pytest.fail("no random game where taking a white chain off changes the winner")
    entry = entry_from_store(record, moves)
    assert entry.result is not None
    result = msgspec.structs.replace(
        entry.result,
        scores=list(agreed.scores),
        winner=agreed.winner,
        points=list(agreed.points or ()),
        reason=f"Black wins (score) {taken_off_text(game, dead)}: both agreed",
    )
    check_entry(msgspec.structs.replace(entry, result=result))
    forged = msgspec.structs.replace(result, reason="Black wins (score)")
    with pytest.raises(RecordError, match="is not the final position's"):
        check_entry(msgspec.structs.replace(entry, result=forged))
