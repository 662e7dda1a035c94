"""`arena tournament` formats end to end: real server, real player processes, real sockets.

An SPRT between a searching player and a random one on tic-tac-toe 4x4 k=3
(a first-player win, so the stronger side shows at once) stops early
accepting H1; one between two identical players does not accept H1; a
gauntlet plays exactly its pairings; openings are played in seat-swapped
pairs, stored with each match, exported, imported and replayed.
"""

from __future__ import annotations

import collections
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena_cli.main import main

TTT44 = ["tictactoe", "-o", "width=4", "-o", "height=4", "-o", "k=3"]


def tournament(tmp_path: Path, *args: str) -> dict[str, Any]:
    out = tmp_path / "results.json"
    db = str(tmp_path / "arena.sqlite")
    code = main(["tournament", *args, "--db", db, "--out", str(out), "--no-progress"])
    assert code == 0
    document: dict[str, Any] = json.loads(out.read_text())
    return document


def stored_openings(db: Path) -> dict[int, tuple[list[Any], list[Any]]]:
    """By tournament index: the match's stored opening and its first moves."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT id, tags FROM matches WHERE tournament IS NOT NULL").fetchall()
        found = {}
        for match_id, extra_text in rows:
            extra = json.loads(extra_text)
            moves = [
                json.loads(m)
                for (m,) in conn.execute(
                    "SELECT move FROM moves WHERE match_id=? ORDER BY ply", (match_id,)
                )
            ]
            opening = extra.get("opening", [])
            found[extra["index"]] = (opening, moves[: len(opening)])
    return found


def check_pairs(games: list[dict[str, Any]]) -> None:
    """Games 2k and 2k+1 are one pair: the same opening, the seats swapped."""
    by_index = {g["index"]: g for g in games}
    for index, game in by_index.items():
        partner = by_index.get(index ^ 1)
        if partner is not None:
            assert partner["seats"] == list(reversed(game["seats"]))
            assert partner.get("opening") == game.get("opening")


def test_sprt_stops_early_accepting_h1_for_the_stronger_player(tmp_path: Path) -> None:
    document = tournament(
        tmp_path, *TTT44, "-p", "mcts:time=0.05", "-p", "random", "--move-time", "1",
        "--sprt", "elo0=0,elo1=100", "--max-pairs", "100", "--random-openings", "2",
    )  # fmt: skip
    sprt = document["sprt"]
    assert sprt["decision"] == "H1" and sprt["llr"] >= sprt["upper"]
    pairs = len(document["games"]) // 2
    assert 3 <= pairs < 100  # stopped early
    assert sum(sprt["pentanomial"].values()) == pairs
    assert sprt["summary"].startswith(f"games {2 * pairs} ({pairs} pairs)")
    games = document["games"]
    assert sorted(g["index"] for g in games) == list(range(2 * pairs))
    check_pairs(games)
    assert all(g["seats"][0] == "mcts:time=0.05" for g in games if g["index"] % 2 == 0)
    assert all(len(g["opening"]) == 2 for g in games)
    assert len({tuple(g["opening"]) for g in games}) > 1
    # the stronger player scores; the statistics add up
    row = next(r for r in document["standings"] if r["name"] == "mcts:time=0.05")
    assert row["score"] > 0.7 and row["elo"] > 0 and row["elo_margin"] > 0
    pairing = document["pairings"][0]
    assert pairing["players"] == ["mcts:time=0.05", "random"]
    assert pairing["pentanomial"] == sprt["pentanomial"] and pairing["pairs"] == pairs
    assert pairing["elo_pentanomial"]["los"] > 0.95
    # each match stored its opening, and its first moves are that opening
    stored = stored_openings(tmp_path / "arena.sqlite")
    assert sorted(stored) == sorted(g["index"] for g in games)
    for opening, first_moves in stored.values():
        assert len(opening) == 2 and first_moves == opening
    # export, import into a fresh database, replayed against the rules
    exported = tmp_path / "games.jsonl"
    db = str(tmp_path / "arena.sqlite")
    assert main(["export", str(exported), "--db", db, "--tournament", document["tournament"]]) == 0
    lines = [json.loads(line) for line in exported.read_text().splitlines()]
    assert len(lines) == len(games)
    assert all(len(entry["opening"]["moves"]) == 2 for entry in lines)
    assert all(entry["opening"]["notation"] for entry in lines)
    copy = str(tmp_path / "copy.sqlite")
    assert main(["import", str(exported), "--db", copy]) == 0
    assert stored_openings(Path(copy)) == stored


def test_sprt_between_identical_players_does_not_accept_h1(tmp_path: Path) -> None:
    document = tournament(
        tmp_path, *TTT44, "-p", "random", "-p", "random", "--move-time", "1",
        "--sprt", "elo0=0,elo1=150", "--max-pairs", "12", "--random-openings", "1", "--seed", "3",
    )  # fmt: skip
    sprt = document["sprt"]
    assert sprt["decision"] in ("H0", "continue")
    if sprt["decision"] == "continue":
        assert len(document["games"]) == 24  # ran to its limit
    check_pairs(document["games"])
    assert document["players"][1]["name"] == "random#2"


def test_gauntlet_with_an_opening_file_and_a_ply_limit(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text("# two openings\nb2\na1 c3\n")
    document = tournament(
        tmp_path, "tictactoe", "--gauntlet", "-p", "minimax:depth=2", "-p", "random",
        "-p", "greedy", "--games-per-pair", "4", "--openings", str(book), "--max-plies", "6",
        "--move-time", "1", "--concurrency", "2",
    )  # fmt: skip
    games = document["games"]
    assert len(games) == 8
    meetings = collections.Counter(frozenset(g["seats"]) for g in games)
    assert meetings == {
        frozenset({"minimax:depth=2", "random"}): 4,
        frozenset({"minimax:depth=2", "greedy"}): 4,
    }
    openings = collections.Counter(tuple(g["opening"]) for g in games)
    assert openings == {("b2",): 4, ("a1", "c3"): 4}
    by_pair = collections.defaultdict(list)
    for game in games:
        by_pair[(frozenset(game["seats"]), tuple(game["opening"]))].append(game["seats"])
    assert all(len(s) == 2 and s[0] == list(reversed(s[1])) for s in by_pair.values())
    for game in games:
        assert game["plies"] <= 6
        assert game["termination"] in ("line", "board_full", "max_plies")
        if game["termination"] == "max_plies":
            assert game["plies"] == 6 and game["scores"] == [0.5, 0.5]
    assert any(g["termination"] == "max_plies" for g in games)
    assert document["adjudication"] == {"max_plies": 6}
    # adjudicated games and their openings survive export and import (JSON Lines and SGF)
    db = str(tmp_path / "arena.sqlite")
    tid = document["tournament"]
    for form, out in (("jsonl", tmp_path / "games.jsonl"), ("sgf", tmp_path / "sgf")):
        assert main(["export", str(out), "--db", db, "--tournament", tid, "--format", form]) == 0
        files = [str(out)] if form == "jsonl" else sorted(str(f) for f in out.iterdir())
        copy = tmp_path / f"copy-{form}.sqlite"
        assert main(["import", *files, "--db", str(copy)]) == 0
        assert stored_openings(copy) == stored_openings(tmp_path / "arena.sqlite")
        with sqlite3.connect(copy) as conn:
            terminations = sorted(t for (t,) in conn.execute("SELECT termination FROM matches"))
        assert terminations == sorted(g["termination"] for g in games)


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("results.txt", "unknown format '.txt'"),
        ("missing/results.json", "no directory"),
    ],
)
def test_a_bad_out_path_is_refused_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], out: str, message: str
) -> None:
    db = tmp_path / "arena.sqlite"
    code = main(
        ["tournament", "tictactoe", "-p", "random", "-p", "greedy", "--db", str(db),
         "--out", str(tmp_path / out), "--no-progress"]
    )  # fmt: skip
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not db.exists()  # refused before any game: no database left behind


@pytest.mark.parametrize("flags", [["--resume", "t-123"], ["--list"]])
def test_resume_or_list_never_creates_a_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    db = tmp_path / "typo.sqlite"
    assert main(["tournament", *flags, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "no records database" in err and len(err.strip().splitlines()) == 1
    assert not db.exists()
