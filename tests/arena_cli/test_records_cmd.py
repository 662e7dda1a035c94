"""`arena matches` and `arena show` on a database written by a real server."""

from __future__ import annotations

from pathlib import Path

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
    from server.store import Store

    Store(str(db)).close()
    assert main(["show", "m9999", "--db", str(db)]) == 1
    assert "no match 'm9999'" in capsys.readouterr().err
