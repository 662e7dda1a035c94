"""`python -m benchmarks.threads` prints a row per game: simulations/s at each thread count
and the speedup over one thread (the compiled search needs numba)."""

from __future__ import annotations

import importlib.util
import re

import pytest

from benchmarks.threads import main, thread_counts

pytestmark = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="needs numba")


def test_thread_counts_are_powers_of_two_and_the_most() -> None:
    assert thread_counts(1) == [1]
    assert thread_counts(2) == [1, 2]
    assert thread_counts(6) == [1, 2, 4, 6]
    assert thread_counts(16) == [1, 2, 4, 8, 16]


def test_a_row_per_game_with_each_count(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--seconds", "0.05", "--repeat", "1", "--max-threads", "2"]
    assert main([*argv, "--game", "connect4", "--game", "go"]) == 0
    out = capsys.readouterr().out
    rows = {
        line.split()[0]: line for line in out.splitlines() if re.match(r"^(connect4|go) ", line)
    }
    assert set(rows) == {"connect4", "go"}
    for line in rows.values():
        rates = [float(x.replace(",", "")) for x in re.findall(r"([\d,]+) +[\d.]+×", line)]
        assert len(rates) == 2 and all(rate > 0 for rate in rates)
        assert " 1.0×" in line  # one thread against itself


def test_bad_arguments_are_one_line_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--seconds", "0"])
    assert info.value.code == 2
    assert "must be positive" in capsys.readouterr().err


def test_separate_trees_get_a_column_beside_the_shared_one(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--separate``: two one-thread searches of their own trees at once, the machine's share."""
    argv = ["--seconds", "0.05", "--repeat", "1", "--max-threads", "2", "--separate"]
    assert main([*argv, "--game", "connect4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "2 trees/s" in next(line for line in lines if line.startswith("game"))
    row = next(line for line in lines if line.startswith("connect4 "))
    rates = [float(x.replace(",", "")) for x in re.findall(r"([\d,]+) +[\d.]+×", row)]
    assert len(rates) == 3 and all(rate > 0 for rate in rates)
