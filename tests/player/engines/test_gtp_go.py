"""Go programs over GTP (issue 40, item 3): time as `kgs-time_settings` where the
engine lists it, its own count (`final_score`) logged beside ours, a warning
from `arena engines check` for an engine that passes with dead stones, and
GNU Go on 13×13 and 19×19 through a real server.

`tests/engines/passing_go.py` is the scripted peer: it always passes, and says
it has won with a dead stone on the board whatever the board holds.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
import trio
from structlog.testing import capture_logs

from games import make_game
from player.baselines import RandomAgent
from player.engines.agent import EngineAgent
from player.runtime import PlayerClient, PlayerConfig
from player.spec import make_agent
from server.config import MatchPolicy
from store import SqliteDatabase
from tests.arena_cli.cli import run
from tests.player.engines.helpers import record_sends
from tests.player.engines.test_gtp import session_for, turn
from tests.server.harness import running_server

PASSING = str(Path(__file__).resolve().parents[2] / "engines" / "passing_go.py")


def test_kgs_time_settings_where_the_engine_lists_it() -> None:
    game = make_game("go", {"size": 9})
    session = session_for(sys.executable, PASSING)
    sent = record_sends(session.process)
    try:
        session.new_game(game, 0)
        session.think(turn(game, [], seconds=2.5))  # a budget a move: byo-yomi of one period
        session.new_game(game, 0)
        on_a_clock = replace(turn(game, [], seconds=2.5), clocks=((300.0, 280.0), 3.0))
        session.think(on_a_clock)  # a clock: absolute main time, then the time left
    finally:
        session.process.close(session.quit_line)
    assert "kgs-time_settings byoyomi 0 2 1" in sent
    assert "kgs-time_settings absolute 300" in sent and "time_left black 300 0" in sent
    assert not any(line.startswith("time_settings") for line in sent)


async def _play(engine: EngineAgent, size: int, db: Path, move_time: float = 1.0) -> None:
    """One game of Go on a `size` board: `engine` against a random player, through a
    real server recording into `db`."""
    async with running_server(db=str(db), policy=MatchPolicy(move_time=move_time)) as server:
        assert server.port is not None
        port = server.port
        clients = [
            PlayerClient(
                agent, "go", {"size": size}, PlayerConfig(port=port, name=name, move_time=move_time)
            )
            for agent, name in ((engine, "engine"), (RandomAgent(seed=5), "random"))
        ]
        with trio.fail_after(600):
            async with trio.open_nursery() as nursery:
                for client in clients:
                    nursery.start_soon(client.run)


async def test_the_engines_own_count_is_logged_beside_ours(tmp_path: Path) -> None:
    engine = make_agent(f"engine:cmd={sys.executable},args={PASSING} B+99,protocol=gtp")
    assert isinstance(engine, EngineAgent)
    db = tmp_path / "arena.sqlite"
    try:
        with capture_logs() as logs:
            await _play(engine, 5, db)
    finally:
        engine.close()
    store = SqliteDatabase(str(db))
    try:
        [match] = store.list_matches()
    finally:
        store.close()
    assert match.termination == "score"
    assert match.points is not None
    margin = match.points[0]
    ours = "0" if margin == 0 else f"B+{margin:g}" if margin > 0 else f"W+{-margin:g}"
    [said] = [entry for entry in logs if entry["event"] == "engine_final_score"]
    assert (said["engine_says"], said["ours"], said["stands"]) == ("B+99", ours, "ours")
    assert engine.engine_score == "B+99"


def test_engines_check_warns_of_a_pass_with_dead_stones() -> None:
    spec = f"engine:cmd={sys.executable},args={PASSING} B+99 D4 E5,protocol=gtp"
    done = run("engines", "check", spec, "--game", "go", "--move-time", "0.2", timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    warnings = [line for line in done.stdout.splitlines() if line.startswith("warn  ")]
    assert len(warnings) == 2, done.stdout  # once a game
    assert "final_status_list dead lists 2 stones (D4 E5)" in warnings[0]
    assert "--capture-all-dead" in warnings[0]
    assert done.stdout.splitlines()[-1] == "passed"  # a warning, not a failure


def test_gnu_go_agrees_with_our_count_when_it_plays_dead_stones_out(gnugo: str) -> None:
    """GNU Go with --chinese-rules --capture-all-dead: its count is ours on a finished game."""
    spec = (
        f"engine:cmd={gnugo},args=--mode gtp --level 0 --chinese-rules --capture-all-dead"
        " --positional-superko,protocol=gtp"
    )
    done = run("engines", "check", spec, "--game", "go", "--move-time", "2", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "warn" not in done.stdout  # it never passes with dead stones left


async def _gnugo_game(gnugo: str, size: int, tmp_path: Path, move_time: float) -> None:
    engine = make_agent(
        f"engine:cmd={gnugo},args=--mode gtp --level 0 --chinese-rules --capture-all-dead"
        " --positional-superko,protocol=gtp"
    )
    assert isinstance(engine, EngineAgent)
    db = tmp_path / "arena.sqlite"
    started = time.monotonic()
    try:
        with capture_logs() as logs:
            await _play(engine, size, db, move_time)
    finally:
        engine.close()
    store = SqliteDatabase(str(db))
    try:
        [match] = store.list_matches()
    finally:
        store.close()
    assert match.options["size"] == size and match.status == "finished"
    engine_seat = match.players.index("engine")
    assert (match.termination, match.winner) == ("score", engine_seat), match.reason
    assert engine.engine_score is not None  # it was asked for its count
    disagreements = [entry for entry in logs if entry["event"] == "engine_final_score"]
    print(f"{size}x{size}: {match.plies} plies in {time.monotonic() - started:.0f}s;"
          f" GNU Go counted {engine.engine_score}; disagreements {disagreements}")  # fmt: skip


@pytest.mark.slow
async def test_gnu_go_plays_13x13_through_a_real_server(gnugo: str, tmp_path: Path) -> None:
    await _gnugo_game(gnugo, 13, tmp_path, 1.0)


@pytest.mark.slow
async def test_gnu_go_plays_19x19_through_a_real_server(gnugo: str, tmp_path: Path) -> None:
    await _gnugo_game(gnugo, 19, tmp_path, 3.0)  # GNU Go's 19x19 opening moves take > 1 s


def test_leela_zero_on_19x19_with_your_weights(tmp_path: Path) -> None:
    """Leela Zero plays 19×19 only and ships no network: `LEELAZ_WEIGHTS` names yours."""
    leelaz = shutil.which("leelaz") or shutil.which("leela-zero")
    weights = os.environ.get("LEELAZ_WEIGHTS")
    if leelaz is None or not weights or not Path(weights).is_file():
        pytest.skip("needs leelaz on PATH and LEELAZ_WEIGHTS naming a weights file")
    spec = (
        f"engine:cmd={leelaz},args=--gtp --noponder --playouts 50 -w {weights},protocol=gtp,"
        "start_timeout=120"
    )
    done = run(
        "engines", "check", spec, "--game", "go", "-o", "size=19", "--move-time", "2",
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
