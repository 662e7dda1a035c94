"""A Go tournament as a user runs it (issue 40, item 7): `arena tournament go` with
openings played in seat-swapped pairs and an SPRT, results written as Go writes
them (``B+3.5``), every game's SGF readable by sgfmill.

Small boards and random players keep it to seconds; the pairing, the openings,
the SPRT and the records are the same code at any size.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from sgfmill import sgf  # type: ignore[import-untyped]

from tests.arena_cli.cli import run

OPENINGS = ["D4 E5", "E5 pass", "C3 C4 D3"]
GO_RESULT = re.compile(r"^(0|[BW]\+(\d+(\.5)?|R|T|F))$")


def test_go_tournament_with_openings_in_pairs_and_sprt(tmp_path: Path) -> None:
    book = tmp_path / "openings.txt"
    book.write_text("\n".join(OPENINGS) + "\n")
    db = tmp_path / "go.sqlite"
    finished = run(
        "tournament", "go", "-o", "size=5", "-o", "komi=0.5", "-p", "a=random", "-p", "b=random",
        "--sprt", "elo0=0,elo1=200", "--max-pairs", "3", "--openings", str(book),
        "--move-time", "0.2", "--db", str(db), "--no-progress", "--json",
    )  # fmt: skip
    assert finished.returncode == 0, finished.stderr
    document = json.loads(finished.stdout)
    games = document["games"]
    assert [g["index"] for g in games] == list(range(6))
    for first, second in zip(games[::2], games[1::2], strict=True):  # one opening, both seats
        assert first["seats"] == second["seats"][::-1]
        assert first["opening"] == second["opening"]
    assert [games[i]["opening"] for i in (0, 2, 4)] == [line.split() for line in OPENINGS]
    for played in games:
        assert GO_RESULT.match(played["result"]), played
        assert played["termination"] == "score"  # random players never resign on time here
        winner = played["result"][0]
        assert played["scores"] == {"B": [1.0, 0.0], "W": [0.0, 1.0], "0": [0.5, 0.5]}[winner]
    sprt = document["sprt"]
    assert sprt["max_pairs"] == 3 and sprt["verdict"] in ("H0", "H1", "undecided")

    # the live lines say each game's result the same way
    lines = [line for line in finished.stderr.splitlines() if line.startswith("game ")]
    assert len(lines) == 6
    for line, played in zip(lines, games, strict=True):
        assert f": {played['result']} (score, {played['plies']} plies)" in line

    exported = run("export", "--format", "sgf", "--db", str(db), "--tournament",
                   document["tournament"], str(tmp_path / "sgf"))  # fmt: skip
    assert exported.returncode == 0, exported.stderr
    for played in games:
        record = sgf.Sgf_game.from_bytes((tmp_path / "sgf" / f"{played['match']}.sgf").read_bytes())
        assert record.get_size() == 5 and record.get_komi() == 0.5
        assert record.get_root().get("RE") == played["result"]
        moves = [node.get_move() for node in record.get_main_sequence()[1:]]
        assert len(moves) == played["plies"]
