"""The player runtime (player/runtime.py, player/matchplay.py) against a scripted fake server."""

from __future__ import annotations

import contextlib
import io
import math
import random
import re
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
import structlog
import trio
import trio.testing

from games import Outcome, available_games, make_game
from player.agent import Agent, SearchLimit
from player.client import (
    AgentError,
    ConnectionLost,
    MatchResult,
    PlayerClient,
    PlayerConfig,
    ResignMatch,
    ServerProtocolError,
    ServerRejected,
    ping_server,
    run_player,
)
from player.spec import make_agent
from player.watch import watch_all
from protocol.codec import FrameReader, client_message_decoder, encode_message
from protocol.messages import (
    PROTOCOL_VERSION,
    Error,
    Hello,
    Illegal,
    Join,
    MatchEnd,
    MatchStart,
    Move,
    Ping,
    Pong,
    Rejoin,
    Resign,
    Seek,
    Seeking,
    TimeControl,
    Turn,
    Update,
    Welcome,
)
from server.app import ArenaServer
from server.config import MatchPolicy, ServerConfig

TTT = make_game("tictactoe")


# --- the fake server ---------------------------------------------------------------


class FakeServer:
    """The server end of one client connection, driven by the test script."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.stream = stream
        self.reader = FrameReader(stream)
        self.decoder = client_message_decoder()

    async def send(self, message: Any) -> None:
        await self.stream.send_all(encode_message(message))

    async def receive(self) -> Any:
        return self.decoder.decode(await self.reader.read_frame())

    async def expect(self, cls: type[Any]) -> Any:
        message = await self.receive()
        assert isinstance(message, cls), f"expected {cls.__name__}, got {message!r}"
        return message

    async def handshake(self) -> Hello:
        hello: Hello = await self.expect(Hello)
        # this fake never pings: an endless ping interval keeps the client's silence limit
        # (two missed pings) out of tests whose virtual clock jumps while an agent's thread
        # thinks (autojump_clock sees a task waiting on a thread as idle)
        await self.send(Welcome(PROTOCOL_VERSION, "fake", "s1", 65536, ping_interval=math.inf))
        return hello

    async def close(self) -> None:
        await self.stream.aclose()


class Network:
    """Hands the client one end of a fresh memory stream pair per connect.

    `refuse` connection attempts fail first with ConnectionRefusedError.
    """

    def __init__(self, refuse: int = 0) -> None:
        self.refuse = refuse
        self.attempts = 0
        self._send, self._receive = trio.open_memory_channel[FakeServer](10)

    async def connect(self, host: str, port: int) -> trio.abc.Stream:
        self.attempts += 1
        if self.refuse:
            self.refuse -= 1
            raise ConnectionRefusedError(111, "Connection refused")
        client, server = trio.testing.memory_stream_pair()
        await self._send.send(FakeServer(server))
        return client

    async def accept(self) -> FakeServer:
        return await self._receive.receive()

    async def seeker(self) -> FakeServer:
        """The next client, after its hello and its seek."""
        server = await self.accept()
        await server.handshake()
        await server.expect(Seek)
        return server


# --- test agents -----------------------------------------------------------------------


class ScriptedAgent(Agent):
    """Plays the first legal move (or the given moves in order) and records every call."""

    def __init__(self, moves: list[str] | None = None, limit: SearchLimit | None = None) -> None:
        self.moves = list(moves or [])
        self.default_limit = limit
        self.calls: list[tuple[Any, ...]] = []
        self.limits: list[SearchLimit] = []

    def start(self, game, seat):
        super().start(game, seat)
        self.calls.append(("start", seat))

    def choose(self, state: Any, limit: SearchLimit) -> Any:
        self.limits.append(limit)
        self.calls.append(("choose", state))
        game = self.require_game()
        if self.moves:
            return game.parse_move(self.moves.pop(0))
        return game.legal_moves(state)[0]

    def observe(self, state, move, new_state):
        self.calls.append(("observe", self.require_game().format_move(move)))

    def finish(self, outcome):
        self.calls.append(("finish", outcome))


class BlockingAgent(ScriptedAgent):
    """Thinks until the test releases it (a real thread blocked on an Event)."""

    def __init__(self) -> None:
        super().__init__()
        self.thinking = threading.Event()
        self.release = threading.Event()

    def choose(self, state, limit):
        self.thinking.set()
        assert self.release.wait(10), "the test never released the agent"
        return super().choose(state, limit)


class FailingAgent(ScriptedAgent):
    def choose(self, state, limit):
        raise RuntimeError("boom")


class ResigningAgent(ScriptedAgent):
    def choose(self, state, limit):
        raise ResignMatch("had enough")


def make_client(agent: Agent, network: Network, **config: Any) -> PlayerClient:
    settings: dict[str, Any] = {"name": "tester", "connect_wait": 5.0} | config
    return PlayerClient(
        agent,
        "tictactoe",
        config=PlayerConfig(**settings),
        connect=network.connect,
        rng=random.Random(1),
    )


def start_message(seat: int = 0, match: str = "m1", state: Any = None, ply: int = 0) -> MatchStart:
    return MatchStart(
        match=match,
        game="tictactoe",
        options=dict(TTT.options),
        seat=seat,
        players=["tester", "rival"] if seat == 0 else ["rival", "tester"],
        time_control=TimeControl(move_time=1.0, lag_margin=0.2),
        token=f"token-{match}",
        state=TTT.encode_state(state if state is not None else TTT.initial_state()),
        ply=ply,
        to_move=0,
    )


def turn_message(state: Any, ply: int, match: str = "m1", time_left: float = 1.0) -> Turn:
    return Turn(
        match=match,
        ply=ply,
        state=TTT.encode_state(state),
        legal_moves=list(TTT.legal_moves(state)),
        time_left=time_left,
    )


def update_message(state: Any, move: int, ply: int, match: str = "m1") -> tuple[Update, Any]:
    new_state = TTT.apply(state, move)
    update = Update(
        match=match,
        ply=ply + 1,
        seat=TTT.to_move(state),
        move=move,
        notation=TTT.format_move(move),
        state=TTT.encode_state(new_state),
        think_time=0.01,
    )
    return update, new_state


def end_message(state: Any, match: str = "m1") -> MatchEnd:
    outcome = TTT.outcome(state)
    assert outcome is not None
    return MatchEnd(
        match=match,
        ply=state[2],
        scores=list(outcome.scores),
        winner=outcome.winner,
        termination=outcome.termination.value,
        reason="three in a row",
    )


async def play_match(
    server: FakeServer, *, seat: int = 0, match: str = "m1", rival: list[str] | None = None
) -> Any:
    """Referee one tictactoe match: the client plays `seat`, the server plays `rival` moves."""
    rival_moves = [TTT.parse_move(m) for m in (rival or ["a2", "b2", "c2", "a3"])]
    await server.send(start_message(seat, match))
    state = TTT.initial_state()
    ply = 0
    while TTT.outcome(state) is None:
        if TTT.to_move(state) == seat:
            await server.send(turn_message(state, ply, match))
            move_msg = await server.expect(Move)
            assert (move_msg.match, move_msg.ply) == (match, ply)
            move = move_msg.move
        else:
            move = next(m for m in rival_moves if m in TTT.legal_moves(state))
        update, state = update_message(state, move, ply, match)
        await server.send(update)
        ply += 1
    await server.send(end_message(state, match))
    return state


# --- logging isolation ----------------------------------------------------------------


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    """`arena` commands reconfigure structlog (onto captured streams): put it back."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


@pytest.fixture
def default_logging() -> None:
    """structlog's defaults (no level filter left over by an earlier test)."""
    structlog.reset_defaults()


# --- tests -----------------------------------------------------------------------------------


async def test_plays_a_match_with_moves_at_the_turn_ply() -> None:
    network = Network()
    agent = ScriptedAgent()  # first legal move: a3 b3 c3 along the top row
    client = make_client(agent, network)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server = await network.accept()
        hello = await server.handshake()
        assert (hello.name, hello.role, hello.version) == ("tester", "player", PROTOCOL_VERSION)
        seek = await server.expect(Seek)
        assert seek.game == "tictactoe" and seek.options == {"width": 3, "height": 3, "k": 3}
        await server.send(Seeking("tictactoe", seek.options, 1.0))
        final = await play_match(server)
    outcome = TTT.outcome(final)
    assert outcome is not None and outcome.winner == 0
    [result] = client.results
    assert isinstance(result, MatchResult)
    assert (result.match, result.seat, result.seat_name, result.verdict) == ("m1", 0, "X", "win")
    assert result.players == ("tester", "rival") and result.plies == 5
    assert "win as X vs rival, 1-0 by line" in result.summary()
    # the agent saw: start, then every move (its own and the rival's) in order, then the end
    observed = [c[1] for c in agent.calls if c[0] == "observe"]
    assert observed == ["a3", "a2", "b3", "b2", "c3"]
    assert agent.calls[0] == ("start", 0)
    assert agent.calls[-1] == ("finish", outcome)


async def test_answers_ping_while_the_agent_thinks() -> None:
    network = Network()
    agent = BlockingAgent()
    client = make_client(agent, network)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server = await network.seeker()
        await server.send(start_message(0))
        state = TTT.initial_state()
        await server.send(turn_message(state, 0))
        await trio.to_thread.run_sync(agent.thinking.wait, 5)
        for ping_id in (7, 8):
            await server.send(Ping(id=ping_id))
            with trio.fail_after(5):
                pong = await server.expect(Pong)
            assert pong.id == ping_id
        assert not agent.release.is_set()  # both pongs came while the agent was still thinking
        agent.release.set()
        move = await server.expect(Move)
        assert move.ply == 0 and move.move == TTT.parse_move("a3")
        nursery.cancel_scope.cancel()


@pytest.mark.parametrize(
    ("default", "time_left", "expected"),
    [
        (None, 1.0, SearchLimit(time=0.95)),
        (SearchLimit(time=0.3), 1.0, SearchLimit(time=0.3)),
        (SearchLimit(time=5.0), 1.0, SearchLimit(time=0.95)),
        (SearchLimit(iterations=500), 2.0, SearchLimit(time=1.95, iterations=500)),
        (None, 0.03, SearchLimit(time=0.01)),  # floor: min_budget
    ],
)
def test_budget_is_agent_limit_capped_by_time_left(default, time_left, expected) -> None:
    client = make_client(ScriptedAgent(limit=default), Network())
    assert client.budget(time_left) == expected


async def test_agent_receives_the_budget_of_the_turn() -> None:
    network = Network()
    agent = ScriptedAgent(limit=SearchLimit(time=2.0, iterations=100))
    client = make_client(agent, network, safety_margin=0.1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server = await network.seeker()
        await server.send(start_message(0))
        await server.send(turn_message(TTT.initial_state(), 0, time_left=0.5))
        await server.expect(Move)
        nursery.cancel_scope.cancel()
    assert agent.limits == [SearchLimit(time=0.4, iterations=100)]


async def test_illegal_with_retries_then_a_new_turn() -> None:
    network = Network()
    agent = ScriptedAgent(moves=["a3", "b3"])
    client = make_client(agent, network)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server = await network.seeker()
        await server.send(start_message(0))
        state = TTT.initial_state()
        await server.send(turn_message(state, 0))
        first = await server.expect(Move)
        await server.send(Illegal("m1", 0, first.move, "illegal", "pretend it is taken", 1))
        await server.send(turn_message(state, 0, time_left=0.7))
        second = await server.expect(Move)
        assert second.ply == 0 and second.move == TTT.parse_move("b3")
        nursery.cancel_scope.cancel()
    assert len(agent.limits) == 2 and agent.limits[1].time == pytest.approx(0.65)


async def test_seeks_again_until_all_games_are_played() -> None:
    network = Network()
    agent = ScriptedAgent()
    results: list[MatchResult] = []
    client = PlayerClient(
        agent,
        "tictactoe",
        config=PlayerConfig(name="tester", games=2, move_time=1.0),
        connect=network.connect,
        on_result=results.append,
    )
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server = await network.accept()
        await server.handshake()
        assert (await server.expect(Seek)).move_time == 1.0
        await play_match(server, seat=0, match="m1")
        await server.expect(Seek)  # same connection, second match
        await play_match(server, seat=1, match="m2", rival=["a1", "b1", "c2", "a2", "c1"])
    assert [r.match for r in results] == ["m1", "m2"]
    assert [r.seat for r in results] == [0, 1]
    assert results == client.results
    assert [c for c in agent.calls if c[0] == "start"] == [("start", 0), ("start", 1)]


async def test_joins_a_room_with_a_seat() -> None:
    network = Network()
    client = make_client(ScriptedAgent(), network, room="r1", seat=1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server = await network.accept()
        await server.handshake()
        join = await server.expect(Join)
        assert (join.room, join.seat, join.game) == ("r1", 1, "tictactoe")
        nursery.cancel_scope.cancel()


@pytest.mark.usefixtures("default_logging")
async def test_one_log_line_per_move_and_per_match_end() -> None:
    network = Network()
    client = make_client(ScriptedAgent(), network)
    with structlog.testing.capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.run)
            server = await network.seeker()
            await play_match(server)
    moves = [e for e in logs if e["event"] == "move"]
    assert [m["move"] for m in moves] == ["a3", "a2", "b3", "b2", "c3"]
    assert [m.get("own", False) for m in moves] == [True, False, True, False, True]
    assert all(m["search_time"] >= 0 for m in moves if m.get("own"))
    [end] = [e for e in logs if e["event"] == "match_end"]
    assert end["result"] == "1-0" and end["termination"] == "line" and end["score"] == 1.0


@pytest.mark.usefixtures("default_logging")
async def test_match_and_seat_are_bound_in_the_log_context() -> None:
    network = Network()
    client = make_client(ScriptedAgent(), network)
    capture = structlog.testing.LogCapture()
    structlog.configure(processors=[structlog.contextvars.merge_contextvars, capture])
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server = await network.seeker()
        await play_match(server)
    moves = [e for e in capture.entries if e["event"] == "move"]
    assert moves and all(e["match"] == "m1" and e["seat"] == 0 for e in moves)


async def _one_move_then_a_drop(network: Network) -> tuple[Any, Any, Any, Rejoin]:
    """The client plays the first move, the connection drops, the client comes back.

    Returns the new server side, the state after the move, the move and the `rejoin`.
    """
    server = await network.seeker()
    await server.send(start_message(0))
    state = TTT.initial_state()
    await server.send(turn_message(state, 0))
    move = (await server.expect(Move)).move
    update, state = update_message(state, move, 0)
    await server.send(update)
    await server.close()  # dropped mid-match
    server = await network.accept()
    await server.handshake()
    rejoin: Rejoin = await server.expect(Rejoin)
    return server, state, move, rejoin


async def test_rejoins_with_the_token_after_a_drop(autojump_clock) -> None:
    network = Network()
    agent = ScriptedAgent()
    client = make_client(agent, network)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server, state, _move, rejoin = await _one_move_then_a_drop(network)
        assert rejoin.token == "token-m1"
        # the rival played a2 meanwhile: the client resyncs from the new position
        _, state = update_message(state, TTT.parse_move("a2"), 1)
        await server.send(start_message(0, state=state, ply=2))
        await server.send(turn_message(state, 2))
        assert (await server.expect(Move)).ply == 2
        nursery.cancel_scope.cancel()
    assert [c for c in agent.calls if c[0] == "start"] == [("start", 0), ("start", 0)]


class SyncRecorder(ScriptedAgent):
    def sync(self, state, moves):
        super().sync(state, moves)
        self.calls.append(("sync", [self.require_game().format_move(m) for m in moves]))


async def test_history_reaches_the_agent_at_start_each_move_and_after_a_rejoin(
    autojump_clock,
) -> None:
    network = Network()
    agent = SyncRecorder()
    client = make_client(agent, network)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server, state, move, _ = await _one_move_then_a_drop(network)
        reply = TTT.parse_move("a2")
        _, state = update_message(state, reply, 1)
        start = start_message(0, state=state, ply=2)
        start.moves = [move, reply]  # the server's history, wire-encoded
        await server.send(start)
        await server.send(turn_message(state, 2))
        assert (await server.expect(Move)).ply == 2
        nursery.cancel_scope.cancel()
    first = TTT.format_move(move)
    syncs = [c for c in agent.calls if c[0] == "sync"]
    assert syncs == [("sync", []), ("sync", [first, "a2"])]
    assert agent.history == [move, reply]  # observe keeps it between syncs


async def test_refused_rejoin_is_a_lost_match_then_seeks_again(autojump_clock) -> None:
    network = Network()
    agent = ScriptedAgent()
    client = make_client(agent, network, games=2)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server = await network.seeker()
        await server.send(start_message(0))
        await server.close()
        server = await network.accept()
        await server.handshake()
        await server.expect(Rejoin)
        await server.send(Error("bad_token", "no seat holds this token"))
        await server.expect(Seek)
        nursery.cancel_scope.cancel()
    [lost] = client.results
    assert lost.outcome is None and lost.verdict == "unknown" and "bad_token" in lost.reason
    assert agent.calls[-1] == ("finish", None)


async def test_gives_up_when_the_connection_keeps_dropping(autojump_clock) -> None:
    network = Network()
    client = make_client(ScriptedAgent(), network, max_reconnects=2)

    async def drop_everyone() -> None:
        while True:
            server = await network.accept()
            await server.close()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(drop_everyone)
        with pytest.raises(ConnectionLost, match="keeps dropping"):
            await client.run()
        nursery.cancel_scope.cancel()
    assert network.attempts == 3


async def test_invalid_state_from_the_server_is_a_protocol_error() -> None:
    network = Network()
    client = make_client(ScriptedAgent(), network)
    async with trio.open_nursery() as nursery:

        async def script() -> None:
            server = await network.seeker()
            bad = start_message(0)
            bad.state = {"board": ["XXX", "XXX", "XXX"]}
            await server.send(bad)

        nursery.start_soon(script)
        with pytest.raises(ServerProtocolError, match="invalid tictactoe state"):
            await client.run()


@pytest.mark.parametrize(
    ("error", "exc_type", "pattern"),
    [
        (
            Error("unsupported_version", "go away", fatal=True),
            ServerRejected,
            "unsupported_version",
        ),
        (Error("bad_request", "unknown game 'tictactoe'"), ServerRejected, "bad_request: unknown"),
        (
            Error("replaced", "another connection took the seat", fatal=True),
            ServerRejected,
            "replaced",
        ),
    ],
)
async def test_server_errors_stop_the_client(error, exc_type, pattern) -> None:
    network = Network()
    client = make_client(ScriptedAgent(), network)
    async with trio.open_nursery() as nursery:

        async def script() -> None:
            server = await network.seeker()
            await server.send(error)

        nursery.start_soon(script)
        with pytest.raises(exc_type, match=pattern):
            await client.run()


@pytest.mark.usefixtures("default_logging")
async def test_non_fatal_error_during_a_match_is_only_logged() -> None:
    network = Network()
    client = make_client(ScriptedAgent(), network)
    with structlog.testing.capture_logs() as logs:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(client.run)
            server = await network.seeker()
            await server.send(Seeking("tictactoe", {}, 1.0))
            await server.send(Error("not_your_turn", "wait", match="m1"))
            await play_match(server)
    assert client.results[0].verdict == "win"
    assert any(e["event"] == "server_error" and e["code"] == "not_your_turn" for e in logs)


async def test_agent_failure_resigns_and_stops_with_agent_error() -> None:
    network = Network()
    client = make_client(FailingAgent(), network)
    async with trio.open_nursery() as nursery:

        async def script() -> None:
            server = await network.seeker()
            await server.send(start_message(0))
            await server.send(turn_message(TTT.initial_state(), 0))
            resign = await server.expect(Resign)
            assert resign.match == "m1"
            assert resign.fault == "crash"  # a failure, recorded as one, with its reason
            assert resign.reason is not None and "RuntimeError('boom')" in resign.reason

        nursery.start_soon(script)
        with (
            structlog.testing.capture_logs(),
            pytest.raises(AgentError, match=r"failed in choose\(\): RuntimeError\('boom'\)"),
        ):
            await client.run()


async def test_an_agent_still_busy_at_its_next_turn_gives_up_as_stalled() -> None:
    """A search that does not stop holds the agent: the next turn finds it busy past
    `agent_busy_timeout`, and the match is given up as a stall, not a resignation."""
    network = Network()
    agent = BlockingAgent()
    client = make_client(agent, network, agent_busy_timeout=0.2)
    async with trio.open_nursery() as nursery:

        async def script() -> None:
            server = await network.seeker()
            await server.send(start_message(0))
            await server.send(turn_message(TTT.initial_state(), 0))
            await trio.to_thread.run_sync(agent.thinking.wait, 5)
            await server.send(turn_message(TTT.initial_state(), 0))  # (an illegal's retry)
            resign = await server.expect(Resign)
            assert (resign.match, resign.fault) == ("m1", "stalled")
            assert resign.reason is not None and "is still busy after 0.2 s" in resign.reason
            agent.release.set()

        nursery.start_soon(script)
        with structlog.testing.capture_logs(), pytest.raises(AgentError, match="still busy"):
            await client.run()


async def test_agent_resignation_sends_resign_and_continues() -> None:
    network = Network()
    agent = ResigningAgent()
    client = make_client(agent, network)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server = await network.seeker()
        await server.send(start_message(0))
        await server.send(turn_message(TTT.initial_state(), 0))
        resign = await server.expect(Resign)
        assert (resign.match, resign.fault) == ("m1", None)  # a choice, not a failure
        await server.send(MatchEnd("m1", 0, [0.0, 1.0], 1, "resignation", "X resigned"))
    [result] = client.results
    assert result.verdict == "loss" and result.outcome is not None
    assert result.outcome.termination.value == "resignation"
    assert agent.calls[-1] == ("finish", Outcome((0.0, 1.0), 1, result.outcome.termination))


async def test_match_end_during_the_search_cancels_it() -> None:
    network = Network()
    agent = BlockingAgent()
    client = make_client(agent, network)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server = await network.seeker()
        await server.send(start_message(0))
        await server.send(turn_message(TTT.initial_state(), 0))
        await trio.to_thread.run_sync(agent.thinking.wait, 5)
        await server.send(MatchEnd("m1", 0, [0.0, 1.0], 1, "timeout", "X ran out of time"))
        # finish() waits for the abandoned search; pings are still answered meanwhile
        await server.send(Ping(id=3))
        with trio.fail_after(5):
            assert (await server.expect(Pong)).id == 3
        assert "finish" not in [call[0] for call in agent.calls]  # still waiting
        agent.release.set()  # the search ends; its move is dropped, finish() runs
    assert client.results[0].outcome is not None
    assert client.results[0].outcome.termination.value == "timeout"
    assert agent.calls[-1][0] == "finish"


def test_config_rejects_bad_values() -> None:
    with pytest.raises(ValueError, match="games must be >= 0"):
        PlayerConfig(games=-1)
    with pytest.raises(ValueError, match="player name"):
        PlayerConfig(name="")
    with pytest.raises(ValueError, match="seat can only be chosen"):
        PlayerConfig(seat=1)
    with pytest.raises(ValueError, match="unknown game 'nope'"):
        PlayerClient(ScriptedAgent(), "nope")


# --- end to end: the real server over TCP on port 0 ----------------------------------


@contextlib.asynccontextmanager
async def real_server(**policy: Any) -> AsyncIterator[int]:
    """An ArenaServer on 127.0.0.1, port 0, without records; yields its port."""
    server = ArenaServer(ServerConfig(port=0, db=None, policy=MatchPolicy(**policy)))
    async with trio.open_nursery() as nursery:
        port: int = await nursery.start(server.serve)
        yield port
        nursery.cancel_scope.cancel()


def tcp_client(agent: Agent, port: int, game: str, name: str, **config: Any) -> PlayerClient:
    return PlayerClient(
        agent,
        game,
        config=PlayerConfig(port=port, name=name, connect_wait=5.0, **config),
    )


def check_pair(a: list[MatchResult], b: list[MatchResult]) -> None:
    """Two players' views of the same matches agree."""
    assert [r.match for r in a] == [r.match for r in b]
    for mine, theirs in zip(a, b, strict=True):
        assert mine.outcome is not None and mine.outcome == theirs.outcome
        assert {mine.seat, theirs.seat} == {0, 1}
        assert mine.plies == theirs.plies > 0
        assert mine.score is not None and theirs.score is not None
        assert mine.score + theirs.score == 1.0


@pytest.mark.parametrize("game", sorted(available_games()))
async def test_end_to_end_random_players_finish_a_match_of_every_game(game: str) -> None:
    async with real_server(move_time=5.0) as port:
        first = tcp_client(make_agent("random:seed=1"), port, game, "r1")
        second = tcp_client(make_agent("random:seed=2"), port, game, "r2")
        with trio.fail_after(60):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(first.run)
                nursery.start_soon(second.run)
    check_pair(first.results, second.results)
    assert first.results[0].game.startswith(game)


async def test_end_to_end_mcts_against_random_plays_two_games() -> None:
    mcts = make_agent("mcts:time=0.05")
    random_results: list[MatchResult] = []

    async def random_player(port: int) -> None:
        # the one-call API, with an agent spec (built and closed by run_player)
        random_results.extend(
            await run_player(
                "127.0.0.1", port, "random:seed=3", "tictactoe", games=2, name="rnd", move_time=0.5
            )
        )

    try:
        async with real_server(move_time=0.5) as port:
            a = tcp_client(mcts, port, "tictactoe", "mcts", games=2, move_time=0.5)
            with trio.fail_after(60):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(a.run)
                    nursery.start_soon(random_player, port)
    finally:
        mcts.close()
    check_pair(a.results, random_results)
    for result in a.results:
        assert result.outcome is not None
        assert result.outcome.termination.value in {"line", "board_full"}
        assert result.verdict in {"win", "draw"}  # MCTS never loses tictactoe to random


async def test_end_to_end_rejoin_after_the_connection_drops() -> None:
    streams: list[trio.abc.Stream] = []

    async def connect(host: str, port: int) -> trio.abc.Stream:
        stream = await trio.open_tcp_stream(host, port)
        streams.append(stream)
        return stream

    class DroppingAgent(ScriptedAgent):
        """Cuts its own connection once, while choosing its second move."""

        def choose(self, state: Any, limit: SearchLimit) -> Any:
            if len(self.limits) == 1 and len(streams) == 1:
                trio.from_thread.run(streams[0].aclose, trio_token=token)
            return super().choose(state, limit)

    token = trio.lowlevel.current_trio_token()
    dropper = DroppingAgent()
    async with real_server(move_time=2.0, reconnect_grace=5.0) as port:
        a = PlayerClient(
            dropper,
            "tictactoe",
            config=PlayerConfig(port=port, name="dropper", connect_wait=5.0),
            connect=connect,
        )
        b = tcp_client(make_agent("random:seed=4"), port, "tictactoe", "steady")
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(a.run)
                nursery.start_soon(b.run)
    assert len(streams) == 2  # one reconnect
    check_pair(a.results, b.results)  # the match went on to a real end
    assert a.results[0].outcome is not None
    assert a.results[0].outcome.termination.value != "disconnect"


async def test_end_to_end_spectator_sees_every_move() -> None:
    class Screen(io.StringIO):
        """The spectator's output; `watching` is set once it shows a match."""

        watching = threading.Event()

        def write(self, text: str) -> int:
            if text.startswith("=== match"):
                self.watching.set()
            return super().write(text)

    class GatedAgent(ScriptedAgent):
        """Waits for the spectator before the first move (no race with its first look)."""

        def choose(self, state: Any, limit: SearchLimit) -> Any:
            assert Screen.watching.wait(10), "the spectator never showed the match"
            return super().choose(state, limit)

    out = Screen()
    async with real_server(move_time=2.0) as port:
        a = tcp_client(GatedAgent(), port, "tictactoe", "p1")
        b = tcp_client(GatedAgent(), port, "tictactoe", "p2")
        with trio.fail_after(30):
            async with trio.open_nursery() as nursery:
                nursery.start_soon(a.run)
                nursery.start_soon(b.run)
                ended = await watch_all("127.0.0.1", port, interval=0.02, out=out, max_matches=1)
    assert ended == 1
    text = out.getvalue()
    result = a.results[0]
    assert f"=== match {result.match}: tictactoe" in text
    assert f"=== match {result.match} over after {result.plies} plies" in text
    plies_seen = [int(n) for n in re.findall(r"^\[\S+\] ply (\d+): ", text, re.MULTILINE)]
    assert plies_seen == list(range(1, result.plies + 1))  # every move, in order


async def test_end_to_end_ping() -> None:
    async with real_server() as port:
        result = await ping_server("127.0.0.1", port)
    assert result.server == "mcts-arena" and result.round_trip < 5
