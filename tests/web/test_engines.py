"""Engines on request: `arena play` processes that join the human's room."""

from __future__ import annotations

from pathlib import Path

from server.web.engines import EngineLauncher, EngineRequest
from tests.web.helpers import get, play_out, post, running_web, ws_client


def test_engine_command_line() -> None:
    launcher = EngineLauncher(
        {"mcts": "mcts:time=0.5"},
        address=lambda: ("127.0.0.1", 4242),
        room_waiting=lambda room: False,
        command=["arena"],
    )
    request = EngineRequest("mcts", "connect4", {"width": 8}, 2.0, 1)
    assert launcher.argv("web-1", "mcts:time=0.5", request) == [
        "arena", "play", "connect4", "mcts:time=0.5",
        "--host", "127.0.0.1", "--port", "4242",
        "--room", "web-1", "--seat", "1", "--games", "1", "--name", "mcts",
        "--connect-wait", "10", "--move-time", "2.0", "--option", "width=8",
    ]  # fmt: skip


async def test_a_human_plays_a_whole_game_against_the_random_engine(tmp_path: Path) -> None:
    async with running_web(tmp_path / "arena.sqlite", engines={"random": "random"}) as running:
        status, body = await post(
            f"{running.url}/engine",
            {"engine": "random", "game": "tictactoe", "move_time": 5, "seat": 1},
        )
        assert status == 202 and body["seat"] == 1
        room = body["room"]
        async with ws_client(running) as human:
            await human.hello("human")
            await human.send(
                {"type": "join", "room": room, "game": "tictactoe", "move_time": 5, "seat": 0}
            )
            assert (await human.expect("seeking"))["room"] == room
            start = await human.expect("match_start")  # once the engine process has joined
            assert start["players"] == ["human", "random"] and start["seat"] == 0
            end = await play_out(human, start)
            assert end["termination"] in {"line", "board_full"}
        status, doc = await get(f"{running.url}/api/matches/{start['match']}")
        assert doc["match"]["players"] == ["human", "random"]
