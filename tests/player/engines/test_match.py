"""Engines through a real server: TCP, the records database, the server's timeout policy."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio
from structlog.testing import capture_logs

from player.baselines import RandomAgent
from player.runtime import PlayerClient, PlayerConfig
from player.spec import make_agent
from protocol.messages import Clock
from server.config import MatchPolicy
from store import SqliteDatabase
from tests.server.harness import running_server

PASSING = str(Path(__file__).resolve().parents[2] / "engines" / "passing_go.py")


async def play_pair(
    port: int,
    engine_spec: str,
    games: int,
    move_time: float | None,
    game: str = "tictactoe",
    clock: Clock | None = None,
) -> None:
    engine = make_agent(engine_spec)
    rival = RandomAgent(seed=5)
    clients = [
        PlayerClient(
            agent,
            game,
            config=PlayerConfig(
                port=port, name=name, games=games, move_time=move_time, clock=clock
            ),
        )
        for agent, name in ((engine, "engine"), (rival, "random"))
    ]
    try:
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                for client in clients:
                    nursery.start_soon(client.run)
    finally:
        engine.close()


def records(db: Path) -> list[tuple[str | None, str | None, list[str]]]:
    store = SqliteDatabase(str(db))
    try:
        found = store.list_matches(limit=100)
        return [
            (m.termination, m.reason, m.players) for m in sorted(found, key=lambda m: m.started_at)
        ]
    finally:
        store.close()


async def test_a_fault_mid_game_is_in_the_record_and_the_next_game_is_played(
    engines: dict[str, str], tmp_path: Path
) -> None:
    db = tmp_path / "arena.sqlite"
    async with running_server(db=str(db), policy=MatchPolicy(move_time=1.0)) as server:
        assert server.port is not None
        await play_pair(server.port, f"engine:cmd={engines['misbehave']},args=die-at 2", 2, 1.0)
    played = records(db)
    assert len(played) == 2
    for termination, reason, _players in played:  # a fresh process each game, dying each time
        assert termination == "crash"  # a fault, not a resignation
        assert reason == "engine crashed: engine misbehave: engine exited (code 5)"


async def test_a_hung_engine_its_player_gives_up_on_is_a_stall(
    engines: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a clock the player gives up on an engine that ignores ``stop`` before the
    flag falls: the game is recorded as ``stalled``, and the engine's group is ended."""
    monkeypatch.setattr("player.engines.agent.GIVE_UP_AFTER", 0.3)
    db = tmp_path / "arena.sqlite"
    with capture_logs() as logs:
        async with running_server(db=str(db)) as server:
            assert server.port is not None
            await play_pair(
                server.port,
                f"engine:cmd={engines['misbehave']},args=hang-at 1",
                1,
                None,
                clock=Clock(initial=10.0),
            )
    [(termination, reason, _players)] = records(db)
    assert termination == "stalled", reason
    assert reason is not None and reason.startswith(
        "engine stalled: engine misbehave: engine did not answer go (stop was sent) within"
    )
    started = [entry for entry in logs if entry["event"] == "engine_started"]
    ended = [entry for entry in logs if entry["event"] == "engine_ended"]
    assert [entry["pid"] for entry in started] == [entry["pid"] for entry in ended]


async def test_a_hung_engine_loses_on_time_by_the_servers_policy(
    engines: dict[str, str], tmp_path: Path
) -> None:
    db = tmp_path / "arena.sqlite"
    with capture_logs() as logs:
        async with running_server(
            db=str(db), policy=MatchPolicy(move_time=0.3, lag_margin=0.2)
        ) as server:
            assert server.port is not None
            await play_pair(
                server.port, f"engine:cmd={engines['misbehave']},args=hang-at 1", 1, 0.3
            )
    [(termination, reason, _players)] = records(db)
    assert termination == "timeout", reason
    started = [entry for entry in logs if entry["event"] == "engine_started"]
    ended = [entry for entry in logs if entry["event"] == "engine_ended"]
    assert [entry["pid"] for entry in started] == [entry["pid"] for entry in ended]


async def test_what_an_engine_says_is_stored_with_its_moves(
    engines: dict[str, str], tmp_path: Path
) -> None:
    db = tmp_path / "arena.sqlite"
    async with running_server(db=str(db), policy=MatchPolicy(move_time=1.0)) as server:
        assert server.port is not None
        await play_pair(server.port, f"engine:cmd={engines['text_engine']}", 1, 1.0)
    store = SqliteDatabase(str(db))
    try:
        [match] = store.list_matches()
        moves = store.get_moves(match.id)
    finally:
        store.close()
    seat = match.players.index("engine")
    own = [move for move in moves if move.seat == seat]
    assert own and all(move.depth == 1 and move.eval in (0.5, 1.0) for move in own)
    assert all(list(move.pv or ()) == [move.notation] for move in own), own  # pv: the move
    assert all(move.eval is None for move in moves if move.seat != seat)


async def test_gnu_go_plays_9x9_go_through_a_real_server(gnugo: str, tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    # GNU Go takes dead stones off the board before it passes (Tromp-Taylor counts them)
    spec = (
        "engine:cmd=gnugo,args=--mode gtp --level 1 --chinese-rules --capture-all-dead,protocol=gtp"
    )
    async with running_server(db=str(db), policy=MatchPolicy(move_time=1.0)) as server:
        assert server.port is not None
        await play_pair(server.port, spec, 1, 1.0, game="go")
    store = SqliteDatabase(str(db))
    try:
        [match] = store.list_matches()
        moves = store.get_moves(match.id)
    finally:
        store.close()
    assert match.game == "go" and match.options == {"size": 9, "komi": 7.0}
    assert match.status == "finished" and match.plies == len(moves) > 20
    # GNU Go beats a random player on the count; the margin is in the record
    engine = match.players.index("engine")
    assert (match.termination, match.winner) == ("score", engine), match.reason
    assert match.points is not None and match.points[engine] > 0
    assert match.points[0] == -match.points[1]
    assert all(m.notation == "pass" or m.notation[0] in "ABCDEFGHJ" for m in moves)


async def test_a_slow_starting_engine_is_ready_before_its_first_clock(
    engines: dict[str, str], tmp_path: Path
) -> None:
    """An engine that takes 1 s to start plays at 0.4 s a move without a time loss: the
    player starts it (handshake included) before it seeks, and with ``restart=always``
    starts each fresh process before the next seek, not on a move's clock."""
    slow = tmp_path / "slow_engine"
    slow.write_text(f'#!/bin/sh\nsleep 1\nexec {engines["text_engine"]} "$@"\n')
    slow.chmod(0o755)
    db = tmp_path / "arena.sqlite"
    policy = MatchPolicy(move_time=0.4, lag_margin=0.2)
    with capture_logs() as logs:
        async with running_server(db=str(db), policy=policy) as server:
            assert server.port is not None
            await play_pair(server.port, f"engine:cmd={slow},restart=always", 2, 0.4)
    played = records(db)
    assert len(played) == 2
    assert all(termination != "timeout" for termination, _reason, _players in played), played
    assert len([entry for entry in logs if entry["event"] == "engine_started"]) >= 2


async def test_an_engines_own_count_is_kept_in_the_record_where_it_differs(
    tmp_path: Path,
) -> None:
    """The passing engine says B+99 whatever the board (its ``final_score``, asked with
    its pass and sent with the move); ours stands, and the reason keeps both."""
    passing = PASSING
    db = tmp_path / "arena.sqlite"
    spec = f"engine:cmd={sys.executable},args={passing},protocol=gtp"
    async with running_server(db=str(db), policy=MatchPolicy(move_time=1.0)) as server:
        assert server.port is not None
        await play_pair(server.port, spec, 1, 1.0, game="go")
    [(termination, reason, _players)] = records(db)
    assert termination == "score", reason
    assert reason is not None and reason.endswith("; own counts: engine B+99"), reason
    store = SqliteDatabase(str(db))
    try:
        [match] = store.list_matches()
        assert match.game == "go" and match.points is not None
        assert match.points[0] != 99  # ours, not the engine's
    finally:
        store.close()
