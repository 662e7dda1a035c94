"""The read-only JSON HTTP API, over a real socket, against a real records file."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import trio

from store import Database, MatchRecord, MoveRecord
from store.matches import MatchTags
from tests.web.helpers import Client, get, play_out, post, running_web, ws_client


async def play_tictactoe(running: Any) -> str:
    """Two WebSocket players play a whole tic-tac-toe match; returns its id."""
    async with ws_client(running) as alice, ws_client(running) as bob:
        for name, client in (("alice", alice), ("bob", bob)):
            await client.hello(name)
            await client.send({"type": "seek", "game": "tictactoe", "move_time": 5})
            await client.expect("seeking")
        starts = [await alice.expect("match_start"), await bob.expect("match_start")]
        async with trio.open_nursery() as nursery:

            async def play(client: Client, start: dict[str, Any]) -> None:
                end = await play_out(client, start)
                assert end["recorded"] is True

            nursery.start_soon(play, alice, starts[0])
            nursery.start_soon(play, bob, starts[1])
    return str(starts[0]["match"])


def add_tournament(store: Database) -> None:
    """A finished two-game tournament (as the director and the server record one)."""
    config = {
        "game": "connect4",
        "options": {},
        "players": [{"name": "mcts", "spec": "mcts"}, {"name": "rnd", "spec": "random"}],
        "games_per_pair": 2,
        "move_time": 0.1,
        "seed": 0,
    }
    now = time.time()
    store.tournaments.save("t-demo", json.dumps(config), "finished")
    for index, seats in enumerate((["mcts", "rnd"], ["rnd", "mcts"])):
        winner = seats.index("mcts")
        record = MatchRecord(
            id=f"mt{index}",
            game="connect4",
            options={"width": 7, "height": 6, "k": 4},
            move_time=0.1,
            lag_margin=0.2,
            players=seats,
            status="finished",
            scores=[1.0, 0.0] if winner == 0 else [0.0, 1.0],
            winner=winner,
            termination="line",
            reason="four in a row",
            points=None,
            plies=1,
            started_at=now + index,
            ended_at=now + index + 1,
            tournament="t-demo",
            tags=MatchTags(index=index, seats=tuple(seats)),
        )
        move = MoveRecord(record.id, 0, 0, 3, "4", 0.05, now)
        assert store.import_match(record, [move])


async def test_matches_and_a_match_record(tmp_path: Path) -> None:
    async with running_web(tmp_path / "arena.sqlite") as running:
        match_id = await play_tictactoe(running)
        status, body = await get(f"{running.url}/api/matches")
        assert status == 200
        [listed] = body["matches"]
        assert listed["id"] == match_id and listed["status"] == "finished"
        assert sorted(listed["players"]) == ["alice", "bob"]
        status, body = await get(f"{running.url}/api/matches?status=running")
        assert (status, body) == (200, {"matches": []})

        status, doc = await get(f"{running.url}/api/matches/{match_id}")
        assert status == 200
        assert doc["match"]["id"] == match_id and doc["replay_error"] is None
        plies = doc["match"]["plies"]
        assert len(doc["moves"]) == plies and len(doc["states"]) == plies + 1
        assert doc["states"][0]["board"] == ["...", "...", "..."]
        marks = "".join(doc["states"][-1]["board"])
        assert marks.count("X") + marks.count("O") == plies
        assert [m["ply"] for m in doc["moves"]] == list(range(plies))
        status, prefix = await get(f"{running.url}/api/matches/{match_id[:6]}")
        assert status == 200 and prefix["match"]["id"] == match_id


async def test_a_match_record_carries_what_the_engines_said(tmp_path: Path) -> None:
    info = {"eval": 0.62, "depth": 14, "visits": 35_210, "pv": ["b3", "c3"]}
    async with running_web(tmp_path / "arena.sqlite") as running:
        async with ws_client(running) as alice, ws_client(running) as bob:
            for name, client in (("alice", alice), ("bob", bob)):
                await client.hello(name)
                await client.send({"type": "seek", "game": "tictactoe", "move_time": 5})
                await client.expect("seeking")
            starts = [await alice.expect("match_start"), await bob.expect("match_start")]
            reporter = starts[0]["seat"]  # alice sends move info with every move, bob none

            async def play(client: Client, start: dict[str, Any], said: Any) -> None:
                assert (await play_out(client, start, said))["recorded"] is True

            async with trio.open_nursery() as nursery:
                nursery.start_soon(play, alice, starts[0], info)
                nursery.start_soon(play, bob, starts[1], None)
        status, doc = await get(f"{running.url}/api/matches/{starts[0]['match']}")
        assert status == 200 and len(doc["moves"]) >= 5
        for move in doc["moves"]:
            said = {key: move[key] for key in ("eval", "depth", "visits", "pv")}
            if move["seat"] == reporter:
                assert said == info
            else:
                assert said == {"eval": None, "depth": None, "visits": None, "pv": []}


async def test_errors_are_json_with_a_status(tmp_path: Path) -> None:
    async with running_web(tmp_path / "arena.sqlite") as running:
        assert await get(f"{running.url}/api/matches/nope") == (
            404,
            {"error": "no recorded match 'nope' (or the prefix is ambiguous)"},
        )
        assert await get(f"{running.url}/api/matches?limit=0") == (
            400,
            {"error": "limit must be in 1..1000, not 0"},
        )
        status, body = await get(f"{running.url}/api/matches?limit=ten")
        assert status == 400 and "integer" in body["error"]
        status, body = await get(f"{running.url}/api/matches?status=lost")
        assert status == 400 and "status must be one of" in body["error"]
        status, body = await get(f"{running.url}/api/tournaments/nope")
        assert status == 404
    async with running_web(None) as running:  # --no-db
        status, body = await get(f"{running.url}/api/matches")
        assert status == 503 and "no records" in body["error"]


async def test_tournaments_standings_and_crosstable(tmp_path: Path) -> None:
    async with running_web(tmp_path / "arena.sqlite") as running:
        store = running.server.store
        assert store is not None
        await trio.to_thread.run_sync(add_tournament, store)
        status, body = await get(f"{running.url}/api/tournaments")
        assert status == 200
        [listed] = body["tournaments"]
        assert listed["id"] == "t-demo" and listed["players"] == ["mcts", "rnd"]
        assert listed["matches"] == 2
        status, doc = await get(f"{running.url}/api/tournaments/t-demo")
        assert status == 200
        assert (doc["finished"], doc["total"], doc["status"]) == (2, 2, "finished")
        top, bottom = doc["standings"]
        assert (top["name"], top["wins"], top["points"]) == ("mcts", 2, 2.0)
        assert (bottom["name"], bottom["losses"]) == ("rnd", 2)
        assert top["elo"] > 0 > bottom["elo"]
        assert doc["crosstable"]["mcts"]["rnd"] == {"points": 2.0, "games": 2}
        assert [g["match"] for g in doc["games"]] == ["mt0", "mt1"]
        assert doc["playing"] == []
        matches = (await get(f"{running.url}/api/matches?tournament=t-demo"))[1]["matches"]
        assert {m["id"] for m in matches} == {"mt0", "mt1"}


async def test_live_view_games_and_pages(tmp_path: Path) -> None:
    async with running_web(None) as running, ws_client(running) as seeker:
        await seeker.hello("lonely")
        await seeker.send({"type": "seek", "game": "gomoku", "options": {"width": 9, "height": 9}})
        await seeker.expect("seeking")
        status, live = await get(f"{running.url}/api/live")
        assert status == 200 and live["matches"] == []
        [seek] = live["seeks"]
        assert seek["game"] == "gomoku" and seek["players"] == ["lonely"]
        assert seek["options"] == {"width": 9, "height": 9, "k": 5}
        status, games = await get(f"{running.url}/api/games")
        names = {g["name"]: g for g in games}
        assert {"tictactoe", "gomoku", "connect4", "reversi", "ultimate"} <= set(names)
        assert names["connect4"]["rendered"] is True
        assert names["connect4"]["options"][0]["name"] == "width"
        status, info = await get(f"{running.url}/api/server")
        assert info["records"] is False and info["tcp_port"] == running.server.port


async def test_engine_requests_are_checked(tmp_path: Path) -> None:
    async with running_web(None, engines={"random": "random"}, engine_limit=0) as running:
        url = f"{running.url}/engine"
        status, body = await post(url, {"engine": "stockfish", "game": "tictactoe"})
        assert status == 400 and "unknown engine 'stockfish'" in body["error"]
        status, body = await post(url, {"engine": "random", "game": "chess"})
        assert status == 400 and "chess" in body["error"]
        status, body = await post(url, {"engine": "random", "game": "tictactoe", "seat": 5})
        assert status == 400 and "seat" in body["error"]
        status, body = await post(
            url, {"engine": "random", "game": "tictactoe"}, "http://evil.example"
        )
        assert status == 403
        status, body = await post(url, {"engine": "random", "game": "tictactoe"})
        assert status == 429 and "busy" in body["error"]
