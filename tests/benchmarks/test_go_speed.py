"""`python -m benchmarks.go_speed` prints its rows: ours beside OpenSpiel's, per board."""

from __future__ import annotations

import importlib.util
import re

import pytest

from benchmarks.go_speed import main


def test_rows_for_each_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seconds", "0.2", "--size", "5", "--size", "7", "--no-pin"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if re.match(r"^\dx\d ", line)]
    assert [(row[0], " ".join(row[1:-2])) for row in rows] == [
        (board, label)
        for board in ("5x5", "7x7")
        for label in ("rules API moves/s", "playouts/s", "playout moves/s", "plies per playout")
    ]
    with_openspiel = importlib.util.find_spec("pyspiel") is not None
    for row in rows:
        assert float(row[-2].replace(",", "")) > 0
        assert (row[-1] != "-") == with_openspiel


def test_bad_size_is_one_line() -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--size", "25"])
    assert exit_info.value.code == 2
