"""Every place a tournament's error margin is shown: `-` (JSON null) when the games cannot
support one, never ``± 0.0`` (console tables, SPRT line, JSON, CSV and Markdown files)."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from arena_cli.result_files import write_outputs
from arena_cli.tournament_view import print_results
from games import make_game
from tournament.config import TournamentConfig, TournamentPlayer
from tournament.report import results_document
from tournament.results import GameResult
from tournament.sprt import SPRT

GAME = make_game("tictactoe", {})


def config(**fields: Any) -> TournamentConfig:
    players = (TournamentPlayer("a", "random"), TournamentPlayer("b", "random"))
    return TournamentConfig(game="tictactoe", options=GAME.options, players=players, **fields)


def rendered(document: dict[str, Any]) -> str:
    console = Console(record=True, width=240, color_system=None)
    print_results(console, document)
    return console.export_text()


def test_one_pair_shows_no_margin_anywhere(tmp_path: Path) -> None:
    # one pair, a win and a draw for "a": pentanomial WD, Elo +190.8 with no spread
    results = {
        0: GameResult(0, ("a", "b"), (1.0, 0.0), "line", "m0", 5),
        1: GameResult(1, ("b", "a"), (0.5, 0.5), "board_full", "m1", 9),
    }
    document = results_document(config(), results)
    pairing = document["pairings"][0]
    assert pairing["pentanomial"]["wd"] == 1
    penta = pairing["elo_pentanomial"]
    assert penta["elo"] > 190 and (penta["error"], penta["lower"], penta["upper"]) == (None,) * 3
    text = rendered(document)
    assert "± 0.0" not in text and "[191, 191]" not in text
    assert "+190.8 ± -" in text
    # standings: a Bradley-Terry fit with its prior, two games each: a real margin
    assert all(row["elo_margin"] > 0 for row in document["standings"])
    paths = [str(tmp_path / name) for name in ("r.json", "r.csv", "r.md")]
    write_outputs(paths, document)
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["pairings"][0]["elo_pentanomial"]["error"] is None


def test_a_single_game_has_no_standings_margin(tmp_path: Path) -> None:
    results = {0: GameResult(0, ("a", "b"), (1.0, 0.0), "line", "m0", 5)}
    document = results_document(config(), results, status="stopped")
    for row in document["standings"]:
        assert row["games"] == 1
        assert (row["elo_margin"], row["elo_lower"], row["elo_upper"]) == (None, None, None)
    pairing = document["pairings"][0]
    assert pairing["pairs"] == 0 and pairing["elo"]["error"] is None
    text = rendered(document)
    assert "± 0" not in text and "± -" in text
    paths = [str(tmp_path / name) for name in ("r.json", "r.csv", "r.md")]
    write_outputs(paths, document)
    with open(tmp_path / "r.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["elo_margin"] for row in rows] == ["", ""]  # CSV's empty cell is JSON's null
    markdown = (tmp_path / "r.md").read_text()
    assert all(line.endswith("| - |") for line in markdown.splitlines() if line.startswith("| 1"))
    assert json.loads((tmp_path / "r.json").read_text())["standings"][0]["elo_margin"] is None


def test_sprt_line_and_file_show_no_zero_margin(tmp_path: Path) -> None:
    sprt = config(format="sprt", sprt=SPRT(0, 10).as_dict())
    results = {
        0: GameResult(0, ("a", "b"), (0.5, 0.5), "board_full", "m0", 9),
        1: GameResult(1, ("b", "a"), (0.5, 0.5), "board_full", "m1", 9),
    }
    document = results_document(sprt, results)
    assert "Elo 0.0 ± -" in document["sprt"]["summary"]
    text = rendered(document)
    assert "± 0.0" not in text
    write_outputs([str(tmp_path / "r.md")], document)
    assert "± 0.0" not in (tmp_path / "r.md").read_text()


def test_a_table_is_not_cut_when_the_output_is_not_a_terminal(tmp_path: Path) -> None:
    from tests.arena_cli.cli import clean_env, run

    env = clean_env()
    env.pop("COLUMNS")
    long = "a-player-with-a-rather-long-name"
    done = run(
        "tournament", "tictactoe", "-p", f"{long}=random", "-p", "random:seed=2",
        "--games-per-pair", "2", "--db", str(tmp_path / "t.sqlite"), "--no-progress",
        env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if long in line]
    assert len(rows) >= 4  # standings, pairing, crosstable row and header: each whole
    assert " -0.0 " not in done.stdout
