"""`GtpReferee` and ``arena serve --referee``: GNU Go says which stones are dead.

The position: Black walls off columns A–B with C1–C9 and B5, White plays the
D column and drops one stone on A5, then both pass. As it stands (Tromp–Taylor)
the lone white stone makes the whole A–B strip neutral; GNU Go calls it dead,
and the count with it taken off is GNU Go's own (W+34, not W+52). The game is
played through a real server by two scripted players, so the referee is asked
the way `arena serve` asks it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from games import make_game
from games.go import Go, agreed_dead
from player.agent import Agent, SearchLimit
from player.engines.config import build_config
from player.engines.errors import EngineError
from player.engines.referee import GtpReferee
from player.runtime import PlayerClient, PlayerConfig
from server.config import MatchPolicy
from store import SqliteDatabase
from tests.server.harness import running_server

BLACK = [f"C{row}" for row in range(1, 10)] + ["B5"]
WHITE = [f"D{row}" for row in range(1, 10)] + ["A5"]


class Scripted(Agent):
    """Plays its seat's script (Black's or White's moves), then passes."""

    def __init__(self, name: str) -> None:
        self.name = name

    def choose(self, state: Any, limit: SearchLimit) -> Any:
        game = self.require_game()
        assert isinstance(game, Go) and self.seat is not None
        played = len(self.history) // 2
        script = (BLACK, WHITE)[self.seat]
        if played < len(script):
            return game.parse_move(script[played])
        return game.parse_move("pass")


def gnugo_referee(gnugo: str) -> GtpReferee:
    return GtpReferee(
        build_config({"cmd": gnugo, "args": "--mode gtp --chinese-rules", "protocol": "gtp"})
    )


def moves_of_the_game(game: Go) -> list[int]:
    moves: list[int] = []
    for black, white in zip(BLACK, WHITE, strict=True):
        moves += [game.parse_move(black), game.parse_move(white)]
    return [*moves, game.parse_move("pass"), game.parse_move("pass")]


def test_gnu_go_names_the_dead_white_stone(gnugo: str) -> None:
    game = make_game("go", {"size": 9})
    assert isinstance(game, Go)
    dead = gnugo_referee(gnugo).dead_stones(game, moves_of_the_game(game))
    assert dead == {game.parse_move("A5")}


def test_a_referee_that_cannot_say_is_an_engine_error(engines: dict[str, str]) -> None:
    game = make_game("go", {"size": 9})
    assert isinstance(game, Go)
    referee = GtpReferee(build_config({"cmd": engines["gtp_mnk"], "protocol": "gtp"}))
    with pytest.raises(EngineError):
        referee.dead_stones(game, moves_of_the_game(game))
    with pytest.raises(ValueError, match="a referee is an engine"):
        GtpReferee.from_spec("random")


async def play(port: int) -> None:
    clients = [
        PlayerClient(
            Scripted(name),
            "go",
            {"size": 9},
            config=PlayerConfig(port=port, name=name, games=1, move_time=2.0),
        )
        for name in ("one", "two")
    ]
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            for client in clients:
                nursery.start_soon(client.run)


def stored(db: Path) -> tuple[Any, ...]:
    store = SqliteDatabase(str(db))
    try:
        [match] = store.list_matches()
        return match.winner, match.points, match.reason, match.termination
    finally:
        store.close()


async def test_a_server_with_gnu_go_as_referee_takes_the_dead_stone_off(
    gnugo: str, tmp_path: Path
) -> None:
    game = make_game("go", {"size": 9})
    assert isinstance(game, Go)
    results = {}
    for name, referee in (("plain", None), ("refereed", gnugo_referee(gnugo))):
        db = tmp_path / f"{name}.sqlite"
        policy = MatchPolicy(move_time=2.0, referee=referee)
        async with running_server(db=str(db), policy=policy) as server:
            assert server.port is not None
            await play(server.port)
        results[name] = stored(db)
    winner, points, reason, termination = results["plain"]
    assert (winner, termination, points) == (1, "score", [-52.0, 52.0]), reason
    assert "taken off" not in reason
    winner, points, reason, termination = results["refereed"]
    assert (winner, termination, points) == (1, "score", [-34.0, 34.0]), reason
    assert reason == "White wins (score) with 1 dead stone taken off (A5): referee gnugo"
    assert agreed_dead(game, reason) == {game.parse_move("A5")}


async def test_a_failing_referee_leaves_the_count_as_it_stands(
    engines: dict[str, str], tmp_path: Path
) -> None:
    db = tmp_path / "arena.sqlite"
    referee = GtpReferee(build_config({"cmd": engines["gtp_mnk"], "protocol": "gtp"}))
    async with running_server(
        db=str(db), policy=MatchPolicy(move_time=2.0, referee=referee)
    ) as server:
        assert server.port is not None
        await play(server.port)
    winner, points, reason, _termination = stored(db)
    assert (winner, points) == (1, [-52.0, 52.0])
    assert reason.startswith("White wins (score) as the board stands (referee gtp_mnk: ")
