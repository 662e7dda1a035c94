"""The terminal spectator against a scripted fake server."""

from __future__ import annotations

import io

import pytest
import trio

from player.watch import (
    MatchView,
    UnknownMatch,
    format_matches,
    list_matches,
    watch_all,
    watch_match,
)
from protocol.messages import (
    FOLLOW_ALL,
    Error,
    ListMatches,
    MatchEnd,
    Matches,
    MatchInfo,
    Ping,
    Pong,
    Spectate,
)
from tests.player.test_runtime import (
    TTT,
    FakeServer,
    Network,
    end_message,
    start_message,
    update_message,
)


async def referee(server: FakeServer, match: str, moves: list[str]) -> None:
    """Send a spectator's view of a tictactoe match: start, every update, the end."""
    start = start_message(0, match)
    start.seat, start.token = None, None
    await server.send(start)
    state = TTT.initial_state()
    for ply, text in enumerate(moves):
        update, state = update_message(state, TTT.parse_move(text), ply, match)
        await server.send(update)
    await server.send(end_message(state, match))


async def test_watch_match_renders_every_update_and_the_result() -> None:
    network = Network()
    out = io.StringIO()
    async with trio.open_nursery() as nursery:

        async def script() -> None:
            server = await network.accept()
            hello = await server.handshake()
            assert hello.role == "spectator"
            assert (await server.expect(Spectate)).match == "m1"
            await server.send(Ping(id=5))
            assert (await server.expect(Pong)).id == 5
            await referee(server, "m1", ["a1", "a2", "b1", "b2", "c1"])

        nursery.start_soon(script)
        end = await watch_match("127.0.0.1", 4242, "m1", out=out, connect=network.connect)
    assert end.winner == 0
    text = out.getvalue()
    assert "=== match m1: tictactoe(width=3, height=3, k=3); X (tester), O (rival)" in text
    assert "[m1] ply 0, X (tester) to move" in text
    assert "[m1] ply 2: O (rival) played a2 in 0.01 s" in text
    state = TTT.initial_state()
    for move in ["a1", "a2", "b1", "b2", "c1"]:
        state = TTT.apply(state, TTT.parse_move(move))
        assert TTT.render(state) in text
    assert text.rstrip().endswith(
        "=== match m1 over after 5 plies: 1-0, X (tester) wins by line (three in a row) ==="
    )


async def test_watch_unknown_match_is_a_clear_error() -> None:
    network = Network()
    async with trio.open_nursery() as nursery:

        async def script() -> None:
            server = await network.accept()
            await server.handshake()
            await server.expect(Spectate)
            await server.send(Error("unknown_match", "no match 'zz' is being played"))

        nursery.start_soon(script)
        with pytest.raises(UnknownMatch, match="is not playing match 'zz'"):
            await watch_match("127.0.0.1", 4242, "zz", out=io.StringIO(), connect=network.connect)


def info(match: str, status: str = "playing") -> MatchInfo:
    return MatchInfo(match, "tictactoe", dict(TTT.options), ["tester", "rival"], 0, status)


async def test_watch_all_has_the_server_follow_every_match(autojump_clock) -> None:
    network = Network()
    out = io.StringIO()
    async with trio.open_nursery() as nursery:

        async def script() -> None:
            server = await network.accept()
            await server.handshake()
            await server.expect(ListMatches)
            assert (await server.expect(Spectate)).match == FOLLOW_ALL
            await server.send(Matches([]))
            await referee(server, "m1", ["a1", "a2", "b1", "b2", "c1"])  # pushed by the server
            await referee(server, "m2", ["a1", "b2", "c3", "a2", "c2", "c1", "a3", "b3", "b1"])

        nursery.start_soon(script)
        ended = await watch_all(
            "127.0.0.1", 4242, interval=2.0, out=out, connect=network.connect, max_matches=2
        )
    assert ended == 2
    text = out.getvalue()
    assert text.startswith("no match is being played yet; waiting for one")
    assert "=== match m1 over after 5 plies: 1-0" in text
    assert "=== match m2 over after 9 plies: 1/2-1/2, draw by board_full" in text
    assert trio.current_time() == 0.0  # no polling


async def test_watch_all_lists_every_interval_on_a_server_that_cannot_follow(
    autojump_clock,
) -> None:
    network = Network()
    out = io.StringIO()
    async with trio.open_nursery() as nursery:

        async def script() -> None:
            server = await network.accept()
            await server.handshake()
            await server.expect(ListMatches)
            assert (await server.expect(Spectate)).match == FOLLOW_ALL
            await server.send(Matches([info("m1"), info("old", "finished")]))
            await server.send(
                Error(code="unknown_match", message="no match '*' is being played", match="*")
            )
            await server.expect(ListMatches)
            await server.send(Matches([info("m1"), info("old", "finished")]))
            assert (await server.expect(Spectate)).match == "m1"
            await referee(server, "m1", ["a1", "a2", "b1", "b2", "c1"])
            await server.expect(ListMatches)  # the periodic re-list finds a new match
            assert trio.current_time() == pytest.approx(2.0)
            await server.send(Matches([info("m2")]))
            assert (await server.expect(Spectate)).match == "m2"
            await referee(server, "m2", ["a1", "b2", "c3", "a2", "c2", "c1", "a3", "b3", "b1"])

        nursery.start_soon(script)
        ended = await watch_all(
            "127.0.0.1", 4242, interval=2.0, out=out, connect=network.connect, max_matches=2
        )
    assert ended == 2
    text = out.getvalue()
    assert "match old" not in text
    assert "=== match m1 over after 5 plies: 1-0" in text
    assert "=== match m2 over after 9 plies: 1/2-1/2, draw by board_full" in text


async def test_list_matches_and_table() -> None:
    network = Network()
    async with trio.open_nursery() as nursery:

        async def script() -> None:
            server = await network.accept()
            await server.handshake()
            await server.expect(ListMatches)
            await server.send(
                Matches([MatchInfo("m7", "connect4", {}, ["ann", "bob"], 12, "playing")])
            )

        nursery.start_soon(script)
        matches = await list_matches("127.0.0.1", 4242, connect=network.connect)
    table = format_matches(matches)
    assert table.splitlines()[1].split() == ["m7", "connect4", "ann", "vs", "bob", "12", "playing"]
    assert format_matches([]) == "no match is being played"


def test_view_of_a_game_not_installed_here() -> None:
    start = start_message(0)
    start.game = "hex"
    view = MatchView.from_start(start)
    assert view.game is None
    assert "game 'hex' is not installed here" in view.start_text()
    end = MatchEnd("m1", 3, [0.0, 1.0], 1, "timeout", "")
    assert (
        view.end_text(end)
        == "=== match m1 over after 3 plies: 0-1, seat 1 (rival) wins by timeout ==="
    )


def test_a_spectator_sees_the_time_control_and_both_clocks() -> None:
    from games import make_game
    from protocol.messages import Clock, TimeControl, Update

    start = start_message(0)
    start.time_control = TimeControl(1.0, 0.2, Clock(300.0, 3.0))
    view = MatchView.from_start(start)
    assert "5+3 clock ===" in view.start_text().splitlines()[0]
    game = make_game("tictactoe")
    after = game.apply(game.initial_state(), game.legal_moves(game.initial_state())[4])
    update = Update("m1", 1, 0, 4, "b2", game.encode_state(after), 2.5, clocks=[300.5, 300.0])
    text = view.apply(update)
    assert text.splitlines()[-1] == "clock: X (tester) 5:00 | O (rival) 5:00 *"
    update.clocks = [65.0, 9.25]
    assert view.apply(update).splitlines()[-1] == "clock: X (tester) 1:05 | O (rival) 9.2s *"
