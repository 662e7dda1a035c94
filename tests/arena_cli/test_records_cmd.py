"""`arena matches` and `arena show` on a database written by a real server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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
    assert match_id in out and "finished" in out and "tictactoe" in out
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
    from store import Store

    Store(str(db)).close()
    assert main(["show", "m9999", "--db", str(db)]) == 2  # bad input
    assert "no match 'm9999'" in capsys.readouterr().err


def _record(match_id: str, players: list[str]) -> Any:
    import time

    from store import MatchRecord
    from store.records import ClockTag, MatchTags

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
        tags=MatchTags(clock=ClockTag(300.0, 3.0)),
    )


def test_prefixes_json_and_a_table_that_fits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from store import Store

    db = str(tmp_path / "a.sqlite")
    store = Store(db)
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
