"""`python -m benchmarks.go_speed` prints its rows: ours beside OpenSpiel's, per board
(the kernel rows need numba, as the rest of the compiled search's tests)."""

from __future__ import annotations

import importlib.util
import re

import pytest

from benchmarks.go_speed import main


def test_rows_for_each_board(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--seconds", "0.2", "--size", "5", "--size", "7", "--no-pin"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if re.match(r"^\dx\d ", line)]
    labels = [
        "rules API moves/s",
        "rules playouts/s",
        "rules playout moves/s",
        "plies per playout",
        "kernel playouts/s",
        "kernel playout moves/s",
        "kernel plies/playout",
        "heavy playouts/s",
        "heavy plies/playout",
        "heavy+ladders playouts/s",
        "heavy+ladders plies/p.",
        "mcts simulations/s",
        "mcts+rave simulations/s",
        "mcts+ladders sims/s",
    ]
    assert [(row[0], " ".join(row[1:-2])) for row in rows] == [
        (board, label) for board in ("5x5", "7x7") for label in labels
    ]
    with_openspiel = importlib.util.find_spec("pyspiel") is not None
    for row in rows:
        assert float(row[-2].replace(",", "")) > 0
        # OpenSpiel has no compiled playout of its own to time: the kernel rows are ours alone
        ours_alone = row[1] in ("kernel", "heavy", "heavy+ladders") or row[1].startswith(
            ("mcts+rave", "mcts+ladders")
        )
        assert (row[-1] != "-") == (with_openspiel and not ours_alone)


def test_bad_size_is_one_line() -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["--size", "25"])
    assert exit_info.value.code == 2
