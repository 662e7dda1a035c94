"""`arena export` then `arena import` on real SQLite files: every game comes back identical.

Source records are random games played through the rules and stored with
`SqliteDatabase.import_match` (no server needed).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena_cli.main import main
from games import make_game
from store import MatchRecord, MoveRecord, SqliteDatabase
from tests.records.fixtures import GAME_SETUPS, random_match

SGF_GAMES = ("gomoku", "reversi", "tictactoe")


def _source_matches(names: tuple[str, ...]) -> list[tuple[MatchRecord, list[MoveRecord]]]:
    matches = []
    for i, name in enumerate(names):
        matches.append(random_match(name, 10 * i + 1, move_info=True))  # what engines said
        matches.append(random_match(name, 10 * i + 2, opening_plies=2, tournament="t-demo"))
        matches.append(random_match(name, 10 * i + 3, stop_after=4))  # lost on time
    return matches


def _make_db(path: Path, names: tuple[str, ...]) -> list[tuple[MatchRecord, list[MoveRecord]]]:
    matches = _source_matches(names)
    store = SqliteDatabase(str(path))
    try:
        for record, moves in matches:
            assert store.import_match(record, moves)
    finally:
        store.close()
    return matches


def _contents(path: Path) -> dict[str, tuple[MatchRecord, list[MoveRecord]]]:
    store = SqliteDatabase(str(path))
    try:
        return {r.id: (r, store.get_moves(r.id)) for r in store.list_matches(10_000)}
    finally:
        store.close()


def _replays(record: MatchRecord, moves: list[MoveRecord]) -> None:
    game = make_game(record.game, record.options)
    state = game.initial_state()
    for move in moves:
        state = game.play(state, game.decode_move(move.move))
    outcome = game.outcome(state)
    if outcome is not None:
        assert record.scores == list(outcome.scores)


def test_jsonl_round_trip_every_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    names = tuple(sorted(GAME_SETUPS))
    assert set(names) == {"connect4", "gomoku", "reversi", "tictactoe", "ultimate"}
    source, fresh, out = tmp_path / "a.sqlite", tmp_path / "b.sqlite", tmp_path / "games.jsonl"
    _make_db(source, names)
    assert main(["export", "--db", str(source), str(out)]) == 0
    assert "exported 15 games" in capsys.readouterr().err
    lines = out.read_text().splitlines()
    assert len(lines) == 15 and all(json.loads(line)["schema"] == 1 for line in lines)
    assert main(["import", "--db", str(fresh), str(out)]) == 0
    assert "imported 15 games" in capsys.readouterr().out
    before, after = _contents(source), _contents(fresh)
    assert after == before  # the move info too
    assert sum(m.has_info for _, moves in after.values() for m in moves) > 15
    assert any('"pv":[' in line for line in lines)
    for record, moves in after.values():
        _replays(record, moves)
    # importing again changes nothing and says so
    assert main(["import", "--db", str(fresh), str(out)]) == 0
    output = capsys.readouterr().out
    assert "imported 0 games" in output and "skipped 15 games already stored" in output
    assert _contents(fresh) == before


def test_sgf_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, fresh, out = tmp_path / "a.sqlite", tmp_path / "b.sqlite", tmp_path / "sgf"
    _make_db(source, SGF_GAMES)
    assert main(["export", "--db", str(source), "--format", "sgf", str(out)]) == 0
    files = sorted(out.glob("*.sgf"))
    assert len(files) == 9
    assert main(["import", "--db", str(fresh), *map(str, files)]) == 0
    assert _contents(fresh) == _contents(source)  # the move info too (XI properties)
    assert any(m.has_info for _, moves in _contents(fresh).values() for m in moves)


def test_filters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source, out = tmp_path / "a.sqlite", tmp_path / "t.jsonl"
    matches = _make_db(source, ("tictactoe", "connect4"))
    assert main(["export", "--db", str(source), "--tournament", "t-demo", str(out)]) == 0
    ids = [json.loads(line)["id"] for line in out.read_text().splitlines()]
    assert ids == [r.id for r, _ in matches if r.tournament == "t-demo"]
    first = matches[0][0].id
    assert main(["export", "--db", str(source), "--match", first, "-", "--log-level", "error"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    assert json.loads(line)["id"] == first


def _one_line_error(capsys: pytest.CaptureFixture[str], *fragments: str) -> None:
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err, err
    for fragment in fragments:
        assert fragment in err, err


def test_export_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.sqlite"
    assert main(["export", "--db", str(missing), str(tmp_path / "x.jsonl")]) == 2
    _one_line_error(capsys, "arena export:", "no records database")
    assert not missing.exists()
    source = tmp_path / "a.sqlite"
    matches = _make_db(source, ("connect4", "tictactoe"))
    out = tmp_path / "sgf"
    connect4 = next(record.id for record, _ in matches if record.game == "connect4")
    named = ["export", "--db", str(source), "--format", "sgf", "--match", connect4, str(out)]
    assert main(named) == 2  # asked for by name: SGF cannot hold it
    _one_line_error(capsys, "'connect4', which has no SGF standard", "--format jsonl")
    assert not out.exists()
    assert main(["export", "--db", str(source), "--format", "sgf", str(out)]) == 0
    kept = sum(record.game == "tictactoe" for record, _ in matches)
    left = len(matches) - kept
    assert capsys.readouterr().err.splitlines() == [
        f"exported {kept} games to {str(out)!r} (sgf)",
        f"left out {left} game{'s' * (left > 1)} without an SGF standard (connect4 {left});"
        " --format jsonl exports every game",
    ]
    assert len(list(out.glob("*.sgf"))) == kept
    assert main(["export", "--db", str(source), "--match", "nope", str(tmp_path / "x.jsonl")]) == 2
    _one_line_error(capsys, "no match 'nope'")


def _exported_line(tmp_path: Path) -> dict[str, Any]:
    source, out = tmp_path / "src.sqlite", tmp_path / "one.jsonl"
    _make_db(source, ("connect4",))
    assert main(["export", "--db", str(source), str(out)]) == 0
    data: dict[str, Any] = json.loads(out.read_text().splitlines()[0])
    return data


@pytest.mark.parametrize(
    ("change", "fragments"),
    [
        (lambda d: d["moves"][3].update(move=99), [":2:", "ply 4", "out of range"]),
        (lambda d: d.update(players="x"), [":2:", "Expected `array`", "$.players"]),
        (lambda d: d.update(game="chess"), [":2:", "unknown game 'chess'"]),
    ],
)
def test_import_refuses_bad_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, fragments: list[str]
) -> None:
    good = _exported_line(tmp_path)
    bad = json.loads(json.dumps(good))
    bad["id"] = "other"
    change(bad)
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    capsys.readouterr()
    fresh = tmp_path / "fresh.sqlite"
    assert main(["import", "--db", str(fresh), str(path)]) == 2
    _one_line_error(capsys, f"arena import: {path}:2: ", *fragments)
    assert not fresh.exists()  # nothing imported, not even the good first game


def test_import_file_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fresh = tmp_path / "fresh.sqlite"
    assert main(["import", "--db", str(fresh), str(tmp_path / "none.jsonl")]) == 2
    _one_line_error(capsys, "cannot read")
    other = tmp_path / "games.pgn"
    other.write_text("1. e4")
    assert main(["import", "--db", str(fresh), str(other)]) == 2
    _one_line_error(capsys, "unknown record format '.pgn'")
    sgf = tmp_path / "bad.sgf"
    sgf.write_text("(;FF[4]GM[4]SZ[3];B[aa];W[aa])")
    assert main(["import", "--db", str(fresh), str(sgf)]) == 2
    _one_line_error(capsys, f"{sgf}: game 1: ", "ply 2", "illegal")


def test_real_cli_subprocess(tmp_path: Path) -> None:
    """The installed `arena` command, as a user runs it."""
    source, fresh, out = tmp_path / "a.sqlite", tmp_path / "b.sqlite", tmp_path / "g.jsonl"
    _make_db(source, ("ultimate",))
    arena = Path(sys.executable).with_name("arena")
    env = {**os.environ, "ARENA_DB": str(source)}
    done = subprocess.run(
        [str(arena), "export", str(out)], env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    done = subprocess.run(
        [str(arena), "import", "--db", str(fresh), str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "imported 3 games" in done.stdout
    assert _contents(fresh) == _contents(source)
