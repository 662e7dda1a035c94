"""What `arena tournament` prints agrees with itself (issue 45, items 11 and 12).

An SPRT stopped by --max-pairs says so in its last progress line and in its
verdict (never "finished", then "continue", then "undecided"); the two Elo
figures are labelled for what they are. A gauntlet's crosstable shows `-` for
players who never meet, and one ply of opening is "1 ply".
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.arena_cli.cli import run


def test_an_sprt_at_its_pair_limit_says_undecided_everywhere(tmp_path: Path) -> None:
    done = run(
        "tournament", "tictactoe", "--sprt", "elo0=0,elo1=100", "-p", "random", "-p", "greedy",
        "--max-pairs", "2", "--move-time", "0.02", "--db", str(tmp_path / "s.sqlite"),
        "--no-progress",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "(sprt, finished)" in out
    progress = [line for line in out.splitlines() if line.startswith("games ")]
    assert progress[-1].startswith("games 4 (2 pairs)"), out
    assert progress[-1].endswith("[0, 100] undecided (max pairs 2)"), out
    assert all(line.endswith("] continue") for line in progress[:-1])  # before the limit
    verdict = out.split("SPRT verdict: ", 1)[1].splitlines()[0]
    assert re.fullmatch(
        r"undecided: stopped at --max-pairs 2 with LLR -?\d+\.\d\d, inside .*", verdict
    )
    # the two Elo figures say which is which
    assert "Elo diff" in out and "not the standings' Elo difference" in out
    assert "Elo: each player's rating fitted to all its games, the field's mean at 0" in " ".join(
        out.split()
    )
    document = json.loads(
        run(
            "tournament", "--resume", re.search(r"tournament (t-[0-9a-f]+)", out).group(1),  # type: ignore[union-attr]
            "--db", str(tmp_path / "s.sqlite"), "--json",
        ).stdout
    )  # fmt: skip
    assert document["sprt"]["decision"] == "continue" and document["sprt"]["verdict"] == "undecided"


def test_a_gauntlet_shows_a_dash_for_players_who_never_meet(tmp_path: Path) -> None:
    done = run(
        "tournament", "tictactoe", "--gauntlet", "-p", "random", "-p", "greedy",
        "-p", "first=random", "--random-openings", "1", "--move-time", "0.02",
        "--db", str(tmp_path / "g.sqlite"), "--no-progress",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "random openings of 1 ply;" in out and "1 plies" not in out
    cross = out.split("Crosstable", 1)[1]
    rows = {
        cells[0]: cells[1:]
        for line in cross.splitlines()
        if line.startswith("│")
        for cells in [[c.strip() for c in line.strip("│").split("│")]]
    }
    # columns: random, greedy, first; greedy and first never play each other
    assert rows["greedy"][0] == "2/2" and rows["greedy"][1:] == ["-", "-"]
    assert rows["first"][1:] == ["-", "-"] and rows["first"][0].endswith("/2")
    assert "0/0" not in out
