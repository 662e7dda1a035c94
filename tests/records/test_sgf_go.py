"""Go's SGF records (issue 40, item 6), driven through `arena` as a user runs it.

Our files are read back by an independent parser (sgfmill), which must see
the same board, komi, rules, moves (passes included) and result; GNU Go's
own game records import with every move checked and the same count.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path
from typing import Any

from sgfmill import sgf  # type: ignore[import-untyped]

from games import make_game
from games.go import PASS, Go
from store import SqliteDatabase
from tests.arena_cli.cli import run
from tests.records.fixtures import random_match


def _matches(db: Path) -> list[dict[str, Any]]:
    listed = run("matches", "--db", str(db), "--json")
    assert listed.returncode == 0, listed.stderr
    matches: list[dict[str, Any]] = json.loads(listed.stdout)
    return matches


def _export(db: Path, match: str, folder: Path) -> Any:
    """`arena export --format sgf --match ID FOLDER`, its file read by sgfmill."""
    exported = run("export", "--format", "sgf", "--db", str(db), "--match", match, str(folder))
    assert exported.returncode == 0, exported.stderr
    return sgf.Sgf_game.from_bytes((folder / f"{match}.sgf").read_bytes())


def test_a_played_game_exports_and_sgfmill_agrees(tmp_path: Path) -> None:
    db = tmp_path / "go.sqlite"
    played = run(
        "play", "go", "random", "--vs", "random", "-o", "size=7", "-o", "komi=5.5",
        "--move-time", "0.05", "--db", str(db),
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    (match,) = _matches(db)
    assert match["termination"] == "score"
    side = "BW"[match["winner"]]
    margin = abs(match["points"][match["winner"]])
    assert match["result"] == f"{side}+{margin:g}"  # the margin, in `arena matches --json`
    assert f", {match['result']} by score after" in played.stdout  # and in `arena play`

    game = _export(db, match["id"], tmp_path / "sgf")
    root = game.get_root()
    assert (game.get_size(), game.get_komi()) == (7, 5.5)
    assert root.get("GM") == 1 and root.get("RU") == "Chinese"
    assert root.get("RE") == match["result"] and game.get_winner() == side.lower()

    store = SqliteDatabase(str(db))
    try:
        moves = store.get_moves(match["id"])
    finally:
        store.close()
    rules = Go(size=7, komi=5.5)
    read = [node.get_move() for node in game.get_main_sequence()[1:]]
    assert len(read) == len(moves)
    if len(moves) < rules.move_cap:  # two passes ended it
        assert [point for _, point in read[-2:]] == [None, None]
    for (colour, point), move in zip(read, moves, strict=True):
        assert colour == "bw"[move.seat]
        if move.move == PASS:
            assert point is None  # B[] / W[]
        else:
            row, col = point  # sgfmill counts rows from the bottom, as GTP does
            assert rules.format_move(move.move) == f"{'ABCDEFG'[col]}{row + 1}"


def test_resignation_and_time_are_written_w_r_and_b_t(tmp_path: Path) -> None:
    """A game lost on time or by resignation says so in every command: W+T, B+R."""
    record, moves = random_match("go", 3, options={"size": 9}, stop_after=6)  # seat 0 on time
    resigned, resigned_moves = random_match("go", 4, options={"size": 9}, stop_after=7)
    resigned = dataclasses.replace(resigned, termination="resignation", reason="resigned")
    db = tmp_path / "r.sqlite"
    store = SqliteDatabase(str(db))
    try:
        assert store.import_match(record, moves) and store.import_match(resigned, resigned_moves)
    finally:
        store.close()
    results = {m["id"]: m["result"] for m in _matches(db)}
    assert results == {record.id: "W+T", resigned.id: "B+R"}
    listed = run("matches", "--db", str(db))
    assert " W+T timeout " in listed.stdout and " B+R resignation " in listed.stdout
    shown = run("show", resigned.id, "--db", str(db))
    assert shown.stdout.splitlines()[-1].startswith("result: B+R (resignation)")
    assert _export(db, record.id, tmp_path / "sgf").get_root().get("RE") == "W+T"
    assert _export(db, resigned.id, tmp_path / "sgf").get_root().get("RE") == "B+R"


def test_tt_is_a_pass_up_to_19x19(tmp_path: Path) -> None:
    for size, point in ((9, "ee"), (19, "pd")):
        path = tmp_path / f"tt{size}.sgf"
        path.write_text(
            f"(;GM[1]FF[3]SZ[{size}]KM[6.5]RE[B+{size * size - 6.5:g}];B[{point}];W[tt];B[tt])"
        )
        db = tmp_path / f"tt{size}.sqlite"
        imported = run("import", "--db", str(db), str(path))
        assert imported.returncode == 0, imported.stderr
        (match,) = _matches(db)
        assert match["result"] == f"B+{size * size - 6.5:g}" and match["reason"] == ""
        shown = run("show", match["id"], "--db", str(db))
        assert "plays pass" in shown.stdout and shown.stdout.count("plays pass") == 2


def _gnugo_game(gnugo: str, folder: Path, seed: int) -> Path:
    """A whole 9x9 game GNU Go plays against itself from the empty board, as it writes it."""
    empty, out = folder / "empty.sgf", folder / f"gnugo-{seed}.sgf"
    empty.write_text("(;GM[1]FF[4]SZ[9]KM[7])")
    subprocess.run(
        [
            gnugo, "--score", "aftermath", "--chinese-rules", "--capture-all-dead",
            "--positional-superko", "--level", "0", "-r", str(seed), "--quiet",
            "-l", str(empty), "-o", str(out),
        ],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    return out


def test_gnu_go_game_records_import_move_by_move(gnugo: str, tmp_path: Path) -> None:
    rules = make_game("go", {"size": 9, "komi": 7})
    for seed in (1, 2, 3):
        path = _gnugo_game(gnugo, tmp_path, seed)
        db = tmp_path / f"imported-{seed}.sqlite"
        imported = run("import", "--db", str(db), str(path))
        assert imported.returncode == 0, imported.stderr
        (match,) = _matches(db)
        theirs = sgf.Sgf_game.from_bytes(path.read_bytes())
        played = [node.get_move() for node in theirs.get_main_sequence()[1:]]
        for index in range(1, len(played)):  # GNU Go passes twice more after the end
            if played[index][1] is None and played[index - 1][1] is None:
                played = played[: index + 1]
                break
        store = SqliteDatabase(str(db))
        try:
            moves = store.get_moves(match["id"])
        finally:
            store.close()
        assert len(moves) == len(played) == match["plies"]
        for (colour, point), move in zip(played, moves, strict=True):
            written = "pass" if point is None else f"{'ABCDEFGHJ'[point[1]]}{point[0] + 1}"
            assert (colour, written) == ("bw"[move.seat], rules.format_move(move.move))
        stated = theirs.get_root().get("RE")  # e.g. W+6.0: GNU Go's own count
        side, _, margin = stated.partition("+")
        assert match["result"] == (f"{side}+{float(margin):g}" if margin else "0")
        assert match["reason"] == ""  # the counts agree


def test_gnu_go_printsgf_position_is_refused_in_one_line(gnugo: str, tmp_path: Path) -> None:
    """GTP's `printsgf` writes the position as setup stones, not the game: not a record."""
    position = tmp_path / "position.sgf"
    commands = f"boardsize 9\nclear_board\ngenmove b\ngenmove w\nprintsgf {position}\nquit\n"
    session = subprocess.run(
        [gnugo, "--mode", "gtp", "--level", "0"],
        input=commands, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert session.stdout.count("=") == 6 and "AB[" in position.read_text()
    imported = run("import", "--db", str(tmp_path / "x.sqlite"), str(position))
    assert imported.returncode == 2
    (line,) = imported.stderr.splitlines()
    assert "the root places stones (AB)" in line and "printsgf" in line
