"""Per-address limits (server/limits.py): named refusals, trusted addresses, a clean close."""

from __future__ import annotations

import msgspec
import trio
import trio.testing

from protocol.codec import encode_frame
from protocol.messages import Error, Pong
from server.config import ServerConfig
from server.limits import Addresses, too_many_connections
from tests.server.harness import RawClient, memory_server, running_server


def test_a_refusal_names_the_limit_and_where_it_is_set() -> None:
    addresses = Addresses(ServerConfig(max_connections_per_address=2))
    assert addresses.admit("10.0.0.5") is None
    assert addresses.admit("10.0.0.5") is None
    refusal = addresses.admit("10.0.0.5")
    assert refusal == (
        "more than 2 connections from 10.0.0.5 (max_connections_per_address; raise it with"
        " --max-connections-per-address or $ARENA_MAX_CONNECTIONS_PER_ADDRESS, or exempt the"
        " host with --trusted-address or $ARENA_TRUSTED_ADDRESSES)"
    )
    assert addresses.admit("10.0.0.6") is None  # another host has its own count
    addresses.release("10.0.0.5")
    assert addresses.admit("10.0.0.5") is None
    assert too_many_connections(ServerConfig(max_connections=7)) == (
        "more than 7 connections to this server"
        " (max_connections; raise it with --max-connections or $ARENA_MAX_CONNECTIONS)"
    )


def test_a_trusted_network_has_no_per_address_cap_or_rate() -> None:
    config = ServerConfig(
        max_connections_per_address=1,
        address_message_rate=1.0,
        address_message_burst=1.0,
        trusted_addresses=("10.1.0.0/16", "::1"),
    )
    addresses = Addresses(config)
    for address in ("10.1.2.3", "::1", "::ffff:10.1.9.9"):
        assert all(addresses.admit(address) is None for _ in range(50))
        messages = addresses.budget(address).messages
        assert all(messages.take(0.0) for _ in range(10_000))
        assert messages.wait_time(0.0) == 0.0
        assert addresses.budget(address).failures.burst == config.address_auth_failure_burst
    assert addresses.admit("10.2.0.1") is None
    assert addresses.admit("10.2.0.1") is not None  # outside the network: capped
    budget = addresses.budget("10.2.0.1").messages
    assert budget.take(0.0) and not budget.take(0.0)
    for address in ("10.1.2.3", "::1", "::ffff:10.1.9.9"):
        for _ in range(50):
            addresses.release(address)
    addresses.sweep(1.0)  # unlimited budgets are full: forgotten like the others
    assert "10.1.2.3" not in addresses.states


async def test_a_refused_client_reads_the_reason_then_a_clean_close() -> None:
    """The client's hello reaches a refused socket after the refusal: it is read and
    dropped, not answered with a reset, and the connection ends with a plain EOF."""
    async with running_server(max_connections_per_address=1) as server:
        assert server.port is not None
        held = await RawClient.connect(server.port)
        await held.hello("held")
        extra = await RawClient.connect(server.port)
        error: Error = await extra.expect(Error)
        assert error.code == "too_many_connections" and error.fatal
        assert "more than 1 connections from 127.0.0.1" in error.message
        assert "--max-connections-per-address" in error.message
        # what a client sends meanwhile (hello, seek) is taken, and the server says EOF
        hello = encode_frame(msgspec.msgpack.encode({"type": "hello", "version": 1, "name": "x"}))
        await extra.send_raw(hello * 4)
        assert await extra.stream.receive_some(1024) == b""
        await extra.send_raw(hello)  # still no reset while it lingers
        await extra.aclose()
        await held.aclose()


async def test_the_server_wide_cap_is_named_too() -> None:
    async with running_server(max_connections=2) as server:
        assert server.port is not None
        held = [await RawClient.connect(server.port) for _ in range(2)]
        for i, client in enumerate(held):
            await client.hello(f"c{i}")
        extra = await RawClient.connect(server.port)
        error: Error = await extra.expect(Error)
        assert error.code == "too_many_connections" and error.fatal
        assert "(max_connections; raise it with --max-connections" in error.message
        assert await extra.closed()


async def test_a_trusted_address_may_hold_more_connections() -> None:
    async with running_server(
        max_connections_per_address=2, trusted_addresses=("127.0.0.1",)
    ) as server:
        assert server.port is not None
        clients = [await RawClient.connect(server.port) for _ in range(5)]
        for i, client in enumerate(clients):
            await client.hello(f"bot{i}")
        for client in clients:
            await client.aclose()


async def test_over_the_address_rate_names_the_address_rate(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Two connections of one address, each within its own rate, together over the
    address's: told which rate, and where to raise it."""
    async with memory_server(address_message_rate=10.0, address_message_burst=10.0) as server:
        first, second = RawClient.in_memory(server), RawClient.in_memory(server)
        await first.hello("first")
        await second.hello("second")
        ping = encode_frame(msgspec.msgpack.encode({"type": "ping", "id": 1}))
        await first.send_raw(ping * 6)
        await second.send_raw(ping * 6)
        told: list[Error] = []
        pongs = 0
        while pongs < 6:
            message = await second.receive()
            if isinstance(message, Pong):
                pongs += 1
            elif isinstance(message, Error):
                told.append(message)
        assert [e.code for e in told] == ["rate_limited"]
        assert "(address_message_rate)" in told[0].message
