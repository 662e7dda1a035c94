"""The one protocol client (protocol/client.py): connecting with backoff, bad frames, ping."""

from __future__ import annotations

import math
import random

import pytest
import trio
import trio.testing

from protocol.client import Backoff, Connection, ping_server
from protocol.codec import encode_frame
from protocol.errors import ServerProtocolError, ServerRejected, ServerUnreachable
from protocol.messages import Ping, Pong, Seek
from tests.player.test_runtime import Network, ScriptedAgent, make_client
from tests.player.test_runtime import restore_logging as restore_logging


async def test_retries_with_backoff_until_the_server_is_up(autojump_clock) -> None:
    network = Network(refuse=4)
    backoff = Backoff(initial=0.5, cap=2.0, jitter=0)
    client = make_client(ScriptedAgent(), network, backoff=backoff, connect_wait=10.0)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server = await network.accept()
        assert network.attempts == 5
        assert trio.current_time() == pytest.approx(0.5 + 1.0 + 2.0 + 2.0)  # capped at 2 s
        await server.handshake()
        await server.expect(Seek)
        nursery.cancel_scope.cancel()


async def test_gives_up_when_the_server_stays_down(autojump_clock) -> None:
    network = Network(refuse=1000)
    client = make_client(ScriptedAgent(), network, connect_wait=10.0)
    with pytest.raises(ServerUnreachable, match=r"127\.0\.0\.1:4242 \(Connection refused"):
        await client.run()
    assert trio.current_time() <= 10.0 and network.attempts > 3


def test_backoff_is_exponential_capped_and_jittered() -> None:
    backoff = Backoff(initial=0.1, factor=2.0, cap=1.0, jitter=0.5)
    rng = random.Random(3)
    delays = [backoff.delay(n, rng) for n in range(8)]
    for n, delay in enumerate(delays):
        base = min(1.0, 0.1 * 2**n)
        assert base * 0.5 <= delay <= base
    assert len(set(delays)) == len(delays)  # jitter: no two equal
    with pytest.raises(ValueError, match="jitter"):
        Backoff(jitter=2.0)


async def test_bad_frame_from_the_server_is_a_clean_protocol_error() -> None:
    network = Network()
    client = make_client(ScriptedAgent(), network)

    async def garbage_server(body: bytes) -> None:
        server = await network.seeker()
        await server.stream.send_all(body)

    for body, pattern in [
        (encode_frame(b"\xc1"), "bad message"),
        (b"\xff\xff\xff\xff", "bad frame \\(frame_too_large\\)"),
        (encode_frame(b"\x81\xa4type\xa5bogus"), "unknown_type"),
    ]:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(garbage_server, body)
            with pytest.raises(ServerProtocolError, match=pattern):
                await client.run()


async def test_ping_server_measures_a_round_trip() -> None:
    network = Network()
    async with trio.open_nursery() as nursery:

        async def script() -> None:
            server = await network.accept()
            hello = await server.handshake()
            assert hello.role == "spectator"
            ping = await server.expect(Ping)
            await server.send(Ping(id=99))  # the server may ping too
            assert (await server.expect(Pong)).id == 99
            await server.send(Pong(id=ping.id))

        nursery.start_soon(script)
        result = await ping_server("127.0.0.1", 4242, connect=network.connect)
    assert result.server == "fake" and result.round_trip >= 0


async def _scripted_server(stream: trio.abc.Stream, *frames: object) -> list[object]:
    """Read the client's hello, send `frames`, then collect what the client sends back."""
    from protocol.codec import FrameReader, client_message_decoder, encode_message

    reader = FrameReader(stream, 1 << 16)
    decoder = client_message_decoder()
    received: list[object] = [decoder.decode(await reader.read_frame())]
    for frame in frames:
        await stream.send_all(encode_message(frame))  # type: ignore[arg-type]
    with trio.move_on_after(1):
        while True:
            received.append(decoder.decode(await reader.read_frame()))
    return received


async def test_the_connection_answers_pings_itself_and_checks_the_version() -> None:
    from protocol.messages import PROTOCOL_VERSION, Hello, Status, Welcome

    client_end, server_end = trio.testing.memory_stream_pair()
    conn = Connection(client_end, client="tester/1")
    welcome = Welcome(version=PROTOCOL_VERSION, server="s", session="x", max_frame=65536)
    async with trio.open_nursery() as nursery:
        seen: list[object] = []

        async def serve() -> None:
            seen.extend(await _scripted_server(server_end, Ping(id=5), welcome, Ping(id=6)))

        nursery.start_soon(serve)
        with trio.fail_after(5):
            assert await conn.handshake("me", "spectator") == welcome
            await conn.send(Status())
    hello, *rest = seen
    assert isinstance(hello, Hello) and hello.client == "tester/1"
    assert rest[:1] == [Pong(id=5)]  # answered during the handshake, never returned


async def test_a_refused_hello_and_another_version_are_errors_of_their_own() -> None:
    from protocol.messages import Error, Welcome

    for answer, error in (
        (Error(code="bad_password", message="no", fatal=True), ServerRejected),
        (Welcome(version=999, server="s", session="x", max_frame=65536), ServerProtocolError),
    ):
        client_end, server_end = trio.testing.memory_stream_pair()
        conn = Connection(client_end)
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_scripted_server, server_end, answer)
            with trio.fail_after(5), pytest.raises(error):
                await conn.handshake("me", "player")
            nursery.cancel_scope.cancel()


async def test_a_silent_server_is_a_lost_connection_a_pinging_one_is_not(autojump_clock) -> None:
    """A frozen host keeps TCP open and says nothing: after two missed pings and a margin
    (`silence_limit`) the client counts the connection as lost; a server that pings stays."""
    from protocol.client import silence_limit
    from protocol.codec import encode_message
    from protocol.errors import ConnectionLost
    from protocol.messages import PROTOCOL_VERSION, Welcome

    welcome = Welcome(
        version=PROTOCOL_VERSION, server="s", session="x", max_frame=65536, ping_interval=2.0
    )
    assert silence_limit(2.0) == 9.0
    assert all(silence_limit(bad) == math.inf for bad in (0.0, -1.0, math.nan, math.inf))
    for pings in (0, 20):
        client_end, server_end = trio.testing.memory_stream_pair()
        conn = Connection(client_end)
        async with trio.open_nursery() as nursery:

            async def ping(stream: trio.abc.Stream = server_end, count: int = pings) -> None:
                for n in range(count):
                    await trio.sleep(2.0)
                    await stream.send_all(encode_message(Ping(id=n)))

            nursery.start_soon(_scripted_server, server_end, welcome)
            await conn.handshake("me", "player")
            assert conn.silence_limit == 9.0
            nursery.start_soon(ping)
            started = trio.current_time()
            if pings == 0:
                with (
                    trio.fail_after(60),
                    pytest.raises(ConnectionLost, match=r"sent nothing for 9 s.*frozen"),
                ):
                    await conn.receive()
                assert trio.current_time() - started == pytest.approx(9.0)
            else:
                with trio.move_on_after(30.0) as waited:  # pings answered, nothing returned
                    await conn.receive()
                assert waited.cancelled_caught
            nursery.cancel_scope.cancel()
