"""The accuracy benchmark: its positions are reproducible, non-trivial and scored; the
figures come out per set for the player and its baseline."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Sequence
from pathlib import Path

import pytest

from benchmarks import connect4_accuracy as accuracy
from benchmarks.c4solver.reference import available
from games.connect4 import Connect4


def fake_values(moves: Sequence[int]) -> list[int | None]:
    """A stand-in scorer: column 0 loses, every other column wins (full ones None)."""
    game = Connect4()
    state = game.initial_state()
    for move in moves:
        state = game.apply(state, move)
    legal = set(game.legal_moves(state))
    return [None if c not in legal else (-1 if c == 0 else 1) for c in range(7)]


def test_generation_is_reproducible_and_in_range() -> None:
    first = accuracy.generate(random.Random("3:1"), 10, 32, 12, fake_values)
    again = accuracy.generate(random.Random("3:1"), 10, 32, 12, fake_values)
    assert first == again
    assert len({p.moves for p in first}) == 12
    assert all(10 <= len(p.moves) <= 32 for p in first)
    other = accuracy.generate(random.Random("4:1"), 10, 32, 12, fake_values)
    assert other != first


def test_trivial_positions_are_left_out() -> None:
    game = Connect4()
    for position in accuracy.generate(random.Random(9), 6, 9, 20, fake_values):
        state = game.initial_state()
        for move in position.moves:
            state = game.apply(state, move)
        assert not accuracy.trivial(game, state)
        assert position.good == frozenset(range(1, 7)) - {
            c for c in range(7) if fake_values(position.moves)[c] is None
        }
        assert position.value == 1


def test_a_position_where_every_move_keeps_the_value_is_left_out() -> None:
    def all_draw(moves: Sequence[int]) -> list[int | None]:
        return [0 if v is not None else None for v in fake_values(moves)]

    calls = 0

    def counting(moves: Sequence[int]) -> list[int | None]:
        nonlocal calls
        calls += 1
        return all_draw(moves) if calls < 5 else fake_values(moves)

    found = accuracy.generate(random.Random(2), 10, 12, 1, counting)
    assert calls == 5 and len(found) == 1


def test_trivial_means_a_win_or_a_threat_at_once() -> None:
    game = Connect4()
    state = game.initial_state()
    for move in (3, 3, 4, 4, 5):  # X threatens c1 and g1; O to move must block
        state = game.apply(state, move)
    assert accuracy.trivial(game, state)
    assert not accuracy.trivial(game, game.apply(game.initial_state(), 3))


def test_wilson_interval() -> None:
    low, high = accuracy.wilson(95, 100)
    assert 0.88 < low < 0.89 and 0.97 < high < 0.98
    assert accuracy.wilson(0, 0) == (0.0, 1.0)
    assert accuracy.wilson(10, 10)[1] == pytest.approx(1.0)


@pytest.mark.parametrize("reference", ["c", "bitbully"])
def test_the_benchmark_runs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reference: str
) -> None:
    if reference == "c" and shutil.which("cc") is None:
        pytest.skip("no C compiler for the solver")
    if reference == "bitbully" and not available():
        pytest.skip("bitbully is not installed (the dev extra, Linux x86_64)")
    # the solver's answers come from a cache filled by the stand-in scorer (a solved
    # position can take the C solver minutes on a loaded machine): the run is the same
    cache = tmp_path / "values.json"
    seen: dict[str, list[int | None]] = {}

    def recording(moves: Sequence[int]) -> list[int | None]:
        seen["".join(str(m + 1) for m in moves)] = fake_values(moves)
        return seen["".join(str(m + 1) for m in moves)]

    accuracy.generate(random.Random("3:1"), 10, 32, 2, recording)
    cache.write_text(json.dumps(seen))
    args = ["--seed", "3", "--positions", "2", "--time", "0.05", "--sets", "middle"]
    args += ["--reference", reference]
    assert accuracy.main([*args, "--cache", str(cache)]) == 0
    out = capsys.readouterr().out
    assert "middle (plies 10-32): 2 positions" in out
    assert f"positions scored by {reference}" in out
    assert "mcts:exact=0" in out and "/2 = " in out
    assert json.loads(cache.read_text()) == seen  # nothing new was solved


def test_the_paired_difference() -> None:
    text = accuracy.paired([1, 1, 0, 0, -1, 0, 0, 0, 0, 0])
    assert text.startswith("+0.100 (95%: ")
    assert "2 positions only the player got right, 1 only the baseline" in text
