"""`arena matches` and `arena show` on a database written by a real server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pexpect
import pytest
import trio

from arena_cli.main import main
from tests.server.harness import running_server, seek_and_play


async def record_one_match(db: str) -> str:
    match_ids: list[str] = []
    async with running_server(db=db) as server:
        assert server.port is not None
        port = server.port

        async def player(i: int) -> None:
            start, _ = await seek_and_play(port, f"alice{i}", i)
            match_ids.append(start.match)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(player, 0)
            nursery.start_soon(player, 1)
    return match_ids[0]


async def test_matches_and_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "arena.sqlite")
    match_id = await record_one_match(db)
    assert await trio.to_thread.run_sync(main, ["matches", "--db", db]) == 0
    out = capsys.readouterr().out
    assert match_id in out and "tictactoe" in out
    assert re.search(rf"│ {match_id} │.*│ (1-0|0-1|1/2-1/2) \w+ +│", out)  # score and ending
    assert await trio.to_thread.run_sync(main, ["show", match_id[:5], "--db", db]) == 0
    out = capsys.readouterr().out
    assert f"match {match_id}" in out and "1. X (alice" in out and "result:" in out
    assert out.count("  a b c") >= 6  # the board after every move (at least 5 moves) and the start


def test_missing_database_and_match_give_clear_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["matches", "--db", str(tmp_path / "nope.sqlite")]) == 2
    assert "no records database" in capsys.readouterr().err
    db = tmp_path / "empty.sqlite"
    from store import SqliteDatabase

    SqliteDatabase(str(db)).close()
    assert main(["show", "m9999", "--db", str(db)]) == 2  # bad input
    assert "no match 'm9999'" in capsys.readouterr().err


def _record(match_id: str, players: list[str]) -> Any:
    import time

    from protocol.messages import Clock
    from store import MatchRecord
    from store.matches import MatchTags

    return MatchRecord(
        id=match_id,
        game="tictactoe",
        options={},
        move_time=1.0,
        lag_margin=0.2,
        players=players,
        status="finished",
        scores=[0.5, 0.5],
        winner=None,
        termination="board_full",
        reason="draw (board_full)",
        points=None,
        plies=9,
        started_at=time.time(),
        ended_at=time.time(),
        tournament=None,
        tags=MatchTags(clock=Clock(300.0, 3.0)),
    )


def test_prefixes_json_and_a_table_that_fits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from store import SqliteDatabase

    db = str(tmp_path / "a.sqlite")
    store = SqliteDatabase(db)
    long_name = "mcts:time=0.5,c=1.4,metric=uct,workers=2,reuse=true@a-very-long-host-name"
    for match_id in ("m1abc0001", "m1abc0002", "m1xyz0003"):
        store.import_match(_record(match_id, [long_name, "random@host"]), [])
    store.close()
    # an ambiguous prefix names the candidates; a unique one is enough
    assert main(["show", "m1abc", "--db", db]) == 2
    assert "'m1abc' is ambiguous: it starts m1abc0001, m1abc0002" in capsys.readouterr().err
    assert main(["show", "m1x", "--db", db]) == 0
    out = capsys.readouterr().out
    assert "match m1xyz0003" in out and "5+3 clock" in out
    assert main(["show", "m1xyz", "--json", "--db", db]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["id"] == "m1xyz0003" and shown["moves"] == [] and shown["result"] == "1/2-1/2"
    # 60 columns: long cells wrap, every line fits, no character is lost
    monkeypatch.setenv("COLUMNS", "60")
    assert main(["matches", "--db", db]) == 0
    table = capsys.readouterr().out
    assert all(len(line) <= 60 for line in table.splitlines())
    assert "".join(table.split()).count(long_name) == 3  # wrapped, never cut
    assert "5+3" in table and "m1xyz0003" in table
    assert main(["matches", "--json", "--db", db]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert sorted(m["id"] for m in listed) == ["m1abc0001", "m1abc0002", "m1xyz0003"]


ENGINE = "engine:cmd=./first.js,protocol=text@vm"


def _long_names_db(tmp_path: Path) -> str:
    from store import SqliteDatabase

    db = str(tmp_path / "long.sqlite")
    store = SqliteDatabase(db)
    store.import_match(_record("m1long0001", [ENGINE, "mcts:time=0.2,c=3.0@host"]), [])
    store.import_match(_record("m1long0002", ["random@host", ENGINE]), [])
    store.close()
    return db


def test_matches_piped_keeps_the_terminal_layout_in_one_box_style(tmp_path: Path) -> None:
    """Issue 45, item 13: piped, the same boxed table as on a wide terminal, a row a line."""
    from tests.arena_cli.cli import clean_env, run, terminal

    db = _long_names_db(tmp_path)
    env = clean_env()
    env.pop("COLUMNS")
    piped = run("matches", "--db", db, env=env)
    assert piped.returncode == 0, piped.stderr
    lines = piped.stdout.splitlines()
    assert lines[1].startswith("┏━") and lines[3].startswith("┡━") and lines[-2].startswith("└─")
    rows = [line for line in lines if line.startswith("│ m1long")]
    assert len(rows) == 2 and all(ENGINE in row for row in rows)  # one line a row, uncut
    child = terminal("matches", "--db", db, env=env)  # a terminal wide enough for it
    child.setwinsize(40, max(len(line) for line in lines) + 10)
    child.expect(pexpect.EOF)
    shown = (child.before or "").replace("\r\n", "\n")
    assert shown.splitlines()[1:] == lines[1:], shown


def test_matches_at_a_narrow_terminal_wraps_names_at_their_boundaries(tmp_path: Path) -> None:
    from tests.arena_cli.cli import clean_env, terminal

    db = _long_names_db(tmp_path)
    child = terminal("matches", "--db", db, env=clean_env())  # 100 columns
    child.expect(pexpect.EOF)
    shown = (child.before or "").replace("\r\n", "\n")
    assert all(len(line) <= 100 for line in shown.splitlines()), shown
    rows = [line for line in shown.splitlines() if line.startswith("│")]
    players = [row.split("│")[4].strip() for row in rows]
    assert players.count("engine:cmd=./first.js,") == 2, shown  # wrapped after the comma
    # each piece ends at a comma or a space, or starts at a host's @: never mid-token
    assert not any(p.startswith(("st.js", "ext", "fir")) for p in players), shown
    assert " ".join(players).replace(", ", ",").replace(" @", "@").split() == [
        "random@host", "vs", ENGINE, ENGINE, "vs", "mcts:time=0.2,c=3.0@host",
    ], shown  # fmt: skip
