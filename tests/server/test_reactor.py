"""The reactor: idle connections read by one task, moves handled inline (real TCP sockets)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec
import pytest
import structlog
import structlog.testing
import trio

from protocol.codec import encode_frame
from protocol.messages import Error, MatchEnd, Pong, ServerStatus, Turn, Update
from server.app import ArenaServer
from server.connection import Connection
from server.match import Match
from server.requests import Requests
from tests.server.harness import RawClient, play_randomly, running_server, start_pair

BOARD_ENDINGS = {"line", "board_full"}


def frame(message: dict[str, object]) -> bytes:
    return encode_frame(msgspec.msgpack.encode(message))


async def wait_until(condition: Callable[[], bool]) -> None:
    with trio.fail_after(10):
        while not condition():  # noqa: ASYNC110 - real sockets: nothing to wait on
            await trio.sleep(0.01)


async def wait_parked(server: ArenaServer, count: int) -> None:
    await wait_until(lambda: server.reactor.parked == count)


async def move_first_legal(client: RawClient, match_id: str) -> None:
    """Wait for the client's turn and play its first legal move."""
    turn = await client.expect(Turn, skip=(Update,))
    await client.send(
        {"type": "move", "match": match_id, "ply": turn.ply, "move": turn.legal_moves[0]}
    )


async def test_idle_players_wait_in_the_reactor_and_their_moves_are_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dispatched: list[str] = []  # messages answered the long way, by a session task
    original = Requests.answer

    async def dispatch(self: Requests, conn: Connection, message: Any) -> None:
        dispatched.append(type(message).__name__)
        await original(self, conn, message)

    monkeypatch.setattr(Requests, "answer", dispatch)
    async with running_server() as server, trio.open_nursery() as nursery:
        clients = [await RawClient.connect(server.port) for _ in range(4)]  # type: ignore[arg-type]
        one, first, _ = await start_pair(clients[:2])
        two, second, _ = await start_pair(clients[2:])
        ends: list[MatchEnd] = []

        async def play(client: RawClient, seed: int) -> None:
            ends.append(await play_randomly(client, seed))

        # everyone waits for a turn or for the server: all four sit in the reactor
        await wait_parked(server, 4)
        for seed, client in enumerate([*first.values(), *second.values()]):
            nursery.start_soon(play, client, seed)
    assert len(ends) == 4
    assert sorted(end.match for end in ends) == sorted([one, one, two, two])
    assert all(end.termination in BOARD_ENDINGS for end in ends)
    assert dispatched == []  # every seek and every move was answered by the reactor


async def test_order_is_kept_when_a_move_and_other_messages_arrive_in_one_write() -> None:
    async with running_server() as server:
        clients = [await RawClient.connect(server.port) for _ in range(2)]  # type: ignore[arg-type]
        match_id, by_seat, _ = await start_pair(clients)
        await wait_parked(server, 2)
        mover = by_seat[0]
        turn = await mover.expect(Turn)
        # a move and a ping (answered by the reactor), a pair (handed to the task: it
        # may read the database; refused, this is no director), then what the task
        # reads from the buffer: a status, a second move (not in turn), a ping
        await mover.send_raw(
            frame({"type": "move", "match": match_id, "ply": turn.ply, "move": turn.legal_moves[0]})
            + frame({"type": "ping", "id": 7})
            + frame({"type": "pair", "pool": "p", "seats": ["a", "b"], "game": "tictactoe"})
            + frame({"type": "status"})
            + frame({"type": "move", "match": match_id, "ply": turn.ply, "move": 1})
            + frame({"type": "ping", "id": 8})
        )
        seen = [await mover.receive() for _ in range(6)]
        assert [type(m) for m in seen] == [Update, Pong, Error, ServerStatus, Error, Pong]
        assert [m.code for m in seen if isinstance(m, Error)] == ["not_director", "not_your_turn"]
        # and the mover parks again once its buffer is empty
        await wait_parked(server, 2)


async def test_a_burst_of_moves_past_the_inline_limit_is_answered_in_order() -> None:
    async with running_server() as server:
        clients = [await RawClient.connect(server.port) for _ in range(2)]  # type: ignore[arg-type]
        match_id, by_seat, _ = await start_pair(clients)
        waiting = by_seat[1]  # not its turn: every move is refused with not_your_turn
        await wait_parked(server, 2)
        burst = b"".join(
            frame({"type": "move", "match": match_id, "ply": ply, "move": 0}) for ply in range(40)
        )
        await waiting.send_raw(burst)
        errors = [await waiting.expect(Error) for _ in range(40)]
        assert [e.code for e in errors] == ["not_your_turn"] * 40
        assert [e.message.endswith("(ply 0)") for e in errors] == [True] * 40


async def test_a_bad_frame_from_a_parked_connection_closes_only_that_connection() -> None:
    async with running_server() as server:
        clients = [await RawClient.connect(server.port) for _ in range(4)]  # type: ignore[arg-type]
        _, first, _ = await start_pair(clients[:2])
        _, second, _ = await start_pair(clients[2:])
        await wait_parked(server, 4)
        await first[1].send_raw(b"\x00\x00\x00\x00")  # length 0
        error = await first[1].expect(Error)
        assert (error.code, error.fatal) == ("bad_frame", True)
        assert await first[1].closed()
        # the other match plays on through the reactor
        end = await _play_both(second)
        assert end.termination in BOARD_ENDINGS


async def test_a_connection_that_ends_mid_frame_is_a_lost_connection() -> None:
    async with running_server() as server:
        clients = [await RawClient.connect(server.port) for _ in range(2)]  # type: ignore[arg-type]
        _, by_seat, _ = await start_pair(clients)
        await wait_parked(server, 2)
        await by_seat[1].send_raw(b"\x00\x00\x01\x00partial")
        await by_seat[1].aclose()
        await wait_parked(server, 1)  # the other player waits on
        await wait_until(lambda: server.connections == 1)


async def test_a_crash_while_handling_a_move_is_contained_to_its_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = Match.on_move

    def on_move(self: Match, conn: object, seat: int, message: object, received: float) -> None:
        if self.ply == 1:
            raise RuntimeError("a bug in the second move")
        original(self, conn, seat, message, received)  # type: ignore[arg-type]

    async with running_server() as server:
        clients = [await RawClient.connect(server.port) for _ in range(4)]  # type: ignore[arg-type]
        match_id, by_seat, _ = await start_pair(clients[:2])
        monkeypatch.setattr(Match, "on_move", on_move)
        await move_first_legal(by_seat[0], match_id)
        await move_first_legal(by_seat[1], match_id)
        assert await by_seat[1].closed()  # its session crashed and closed
        monkeypatch.setattr(Match, "on_move", original)
        # the server goes on: a new pair plays a whole match
        _, second, _ = await start_pair(clients[2:])
        assert (await _play_both(second)).termination in BOARD_ENDINGS


async def test_a_crash_after_the_connection_closed_itself_is_logged_and_the_server_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    original = Match.on_move

    def on_move(self: Match, conn: Connection, seat: int, message: Any, received: float) -> None:
        conn.close("replaced")  # its task is cancelled: the error cannot go back to it
        raise RuntimeError("a bug after closing")

    with structlog.testing.capture_logs() as logs:
        async with running_server() as server:
            clients = [await RawClient.connect(server.port) for _ in range(4)]  # type: ignore[arg-type]
            match_id, by_seat, _ = await start_pair(clients[:2])
            monkeypatch.setattr(Match, "on_move", on_move)
            await move_first_legal(by_seat[0], match_id)
            assert await by_seat[0].closed()
            monkeypatch.setattr(Match, "on_move", original)
            _, second, _ = await start_pair(clients[2:])
            assert (await _play_both(second)).termination in BOARD_ENDINGS
    crashes = [e for e in logs if e["event"] == "session_crashed"]
    assert [e["error"] for e in crashes] == ["RuntimeError('a bug after closing')"]


async def test_closing_a_parked_connection_from_the_server_takes_it_out_of_the_reactor() -> None:
    async with running_server() as server:
        clients = [await RawClient.connect(server.port) for _ in range(2)]  # type: ignore[arg-type]
        await start_pair(clients)
        await wait_parked(server, 2)
        server.announce_shutdown()
        for client in clients:
            error = await client.expect(Error, skip=(Turn,))
            assert error.code == "server_shutdown"
            assert await client.closed()
        await wait_parked(server, 0)


async def _play_both(by_seat: dict[int, RawClient]) -> MatchEnd:
    ends: list[MatchEnd] = []

    async def play(client: RawClient, seed: int) -> None:
        ends.append(await play_randomly(client, seed))

    async with trio.open_nursery() as nursery:
        for seat, client in by_seat.items():
            nursery.start_soon(play, client, seat)
    return ends[0]
