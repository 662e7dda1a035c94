"""The ladder's pairing (server/ladders.py): who plays whom, who moves first, who stays.

The rules as functions first (random, no repeat while another choice exists,
colours balanced), then bots on an in-memory server on virtual time: they
seek the ladder again after each game, as `arena play --ladder` does, and
the games go on between every pair; a bot that leaves is out, one that comes
back is in again. tests/arena_cli/test_ladder_cmd.py drives the same with real
processes over a socket.
"""

from __future__ import annotations

import functools
import itertools
import random
from collections import Counter
from typing import Any

import pytest
import trio

from protocol.messages import Error, MatchEnd, MatchStart, Seeking, Turn
from server.config import ServerConfig
from server.ladder_spec import LadderSpec, parse_ladder
from server.ladders import Ladder, choose_pairs, repeats, seat_order
from tests.server.harness import RawClient, memory_server

LADDER = LadderSpec("ttt", "tictactoe", move_time=5.0)


def test_pairs_avoid_a_repeat_while_another_choice_exists() -> None:
    last = {"a": "b", "b": "a", "c": "d", "d": "c"}
    for seed in range(50):
        pairs = choose_pairs(["a", "b", "c", "d"], last, lambda a, b: False, random.Random(seed))
        assert len(pairs) == 2
        assert not any(repeats(last, a, b) for a, b in pairs)


def test_a_repeat_waits_unless_allowed() -> None:
    last = {"a": "b", "b": "a"}
    assert choose_pairs(["a", "b"], last, lambda a, b: False, random.Random(1)) == []
    assert len(choose_pairs(["a", "b"], last, lambda a, b: True, random.Random(1))) == 1


def test_pairs_are_random_among_the_ready() -> None:
    seen = Counter(
        frozenset(choose_pairs(["a", "b", "c", "d"], {}, lambda a, b: False, random.Random(s))[0])
        for s in range(200)
    )
    assert len(seen) == 6  # every pair comes up


def _ladder() -> Ladder:
    from games import make_game
    from server.config import MatchPolicy

    return Ladder(LADDER, make_game("tictactoe"), MatchPolicy(), None, first_seat=0)


def test_who_moved_first_less_often_moves_first() -> None:
    ladder = _ladder()
    rng = random.Random(3)
    for _ in range(20):
        ladder.remember(seat_order(ladder, "a", "b", rng))
    assert ladder.firsts[("a", "b")] == ladder.firsts[("b", "a")] == 10
    ladder.remember(["a", "b"])
    assert seat_order(ladder, "a", "b", rng) == ["b", "a"]
    assert seat_order(ladder, "b", "a", rng) == ["b", "a"]


def test_ladder_flags_parse() -> None:
    assert parse_ladder("go9=go:size=9") == LadderSpec("go9", "go", (("size", "9"),))
    assert parse_ladder("go:size=9").name == "go:size=9"
    with pytest.raises(ValueError, match=r"not a two-player game|unknown game"):
        ServerConfig(ladders=(LadderSpec("x", "chess"),))
    with pytest.raises(ValueError, match="two ladders are named"):
        ServerConfig(ladders=(LADDER, LADDER))


async def _bot(
    server: Any, name: str, log: list[tuple[str, ...]], *, games: int, seed: int
) -> RawClient:
    """A bot that seeks the ladder, plays random moves, and seeks again after each game."""
    client = RawClient.in_memory(server)
    await client.hello(name)
    rng = random.Random(seed)
    played = 0
    await client.send({"type": "seek", "game": "tictactoe", "ladder": "ttt"})
    while played < games:
        message = await client.receive()
        if isinstance(message, Seeking):
            assert message.ladder == "ttt" and message.move_time == 5.0
        elif isinstance(message, MatchStart):
            if message.seat == 0:
                log.append(tuple(message.players))
        elif isinstance(message, Turn):
            await trio.sleep(0.1)
            move = rng.choice(message.legal_moves)
            await client.send({"type": "move", "match": message.match, "ply": message.ply,
                               "move": move})  # fmt: skip
        elif isinstance(message, MatchEnd):
            played += 1
            if played < games:
                await client.send({"type": "seek", "game": "tictactoe", "ladder": "ttt"})
    return client


async def test_bots_play_every_pair_without_repeats(autojump_clock: trio.abc.Clock) -> None:
    log: list[tuple[str, ...]] = []
    async with memory_server(ladders=(LADDER,)) as server, trio.open_nursery() as nursery:
        for seed, name in enumerate(("a", "b", "c")):
            nursery.start_soon(functools.partial(_bot, server, name, log, games=8, seed=seed))
    pairs = [frozenset(players) for players in log]
    assert len(pairs) == 12  # three bots, 8 games each: one game at a time
    assert Counter(pairs) == {frozenset(p): 4 for p in (("a", "b"), ("b", "c"), ("a", "c"))}
    by_bot: dict[str, list[str]] = {}
    for players in log:
        for me, other in ((players[0], players[1]), (players[1], players[0])):
            by_bot.setdefault(me, []).append(other)
    for opponents in by_bot.values():  # nobody meets the same bot twice in a row
        assert all(x != y for x, y in itertools.pairwise(opponents))
    firsts = Counter(players[0] for players in log)
    for a, b in (("a", "b"), ("b", "c"), ("a", "c")):
        met = [p for p in log if set(p) == {a, b}]
        assert abs(sum(p[0] == a for p in met) - sum(p[0] == b for p in met)) <= 1, (a, b, met)
    assert sum(firsts.values()) == 12


async def test_two_bots_alone_play_each_other_again(autojump_clock: trio.abc.Clock) -> None:
    log: list[tuple[str, ...]] = []
    async with memory_server(ladders=(LADDER,)) as server, trio.open_nursery() as nursery:
        for seed, name in enumerate(("a", "b")):
            nursery.start_soon(functools.partial(_bot, server, name, log, games=4, seed=seed))
    assert len(log) == 4
    assert Counter(players[0] for players in log) == {"a": 2, "b": 2}


async def test_a_bot_that_leaves_is_dropped(autojump_clock: trio.abc.Clock) -> None:
    async with memory_server(ladders=(LADDER,)) as server:
        assert server.lobby is not None
        ladder = server.lobby.ladders.ladders["ttt"]
        a = RawClient.in_memory(server)
        await a.hello("a")
        await a.send({"type": "seek", "game": "tictactoe", "ladder": "ttt"})
        await a.expect(Seeking)
        assert set(ladder.bots) == {"a"} and set(ladder.ready) == {"a"}
        await a.aclose()
        await trio.sleep(1)
        assert ladder.bots == {} and ladder.ready == {}
        # the same name connects again: it is in the ladder again
        again = RawClient.in_memory(server)
        await again.hello("a")
        await again.send({"type": "seek", "game": "tictactoe", "ladder": "ttt"})
        await again.expect(Seeking)
        assert set(ladder.ready) == {"a"}
        # a second connection of that name takes its place; the first is told
        third = RawClient.in_memory(server)
        await third.hello("a")
        await third.send({"type": "seek", "game": "tictactoe", "ladder": "ttt"})
        await third.expect(Seeking)
        error = await again.expect(Error)
        assert error.code == "ladder_replaced" and not error.fatal


@pytest.mark.parametrize(
    ("seek", "code"),
    [
        ({"ladder": "nope"}, "unknown_ladder"),
        ({"game": "connect4"}, "bad_request"),
        ({"options": {"k": 2}}, "bad_request"),
        ({"move_time": 1.0}, "bad_request"),
        ({"pool": "p"}, "bad_request"),
    ],
)
async def test_a_bad_ladder_seek_is_refused(
    autojump_clock: trio.abc.Clock, seek: dict[str, Any], code: str
) -> None:
    async with memory_server(ladders=(LADDER,)) as server:
        client = RawClient.in_memory(server)
        await client.hello("a")
        await client.send({"type": "seek", "game": "tictactoe", "ladder": "ttt", **seek})
        error = await client.expect(Error)
        assert error.code == code and not error.fatal, error


@pytest.mark.parametrize("name", [".", ".."])
async def test_a_bot_named_like_a_folder_is_refused(
    autojump_clock: trio.abc.Clock, name: str
) -> None:
    """``/ladders/ttt/bots/..`` would be the ladder's own page: such a bot cannot join."""
    async with memory_server(ladders=(LADDER,)) as server:
        client = RawClient.in_memory(server)
        await client.hello(name)
        await client.send({"type": "seek", "game": "tictactoe", "ladder": "ttt"})
        error = await client.expect(Error)
        assert error.code == "bad_request" and not error.fatal, error
        assert "cannot be named" in error.message
        assert server.lobby is not None and server.lobby.ladders.ladders["ttt"].bots == {}
