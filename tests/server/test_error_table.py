"""docs/PROTOCOL.md's error table and the server agree: every request of every row is driven
over a real socket.

Here: the table's coverage (every (row, request) has exactly one scenario, here or in
test_error_requests.py, and every scenario a row) and the rows about the connection
itself (framing, the handshake, `hello`, the message rate, keepalive, seats, shutdown).
"""

from __future__ import annotations

import collections
import socket
import struct
from pathlib import Path

import pytest

from protocol.messages import CLIENT_TYPES, Seeking, Welcome
from server.ladder_spec import LadderSpec
from tests.server.error_table import (
    PROTOCOL,
    QUALIFIERS,
    Bench,
    Item,
    Refusal,
    Row,
    Scenario,
    ask,
    documented_rows,
    drive,
    frame,
    items_of,
    rows_of,
    told,
    wait_until,
)
from tests.server.test_error_requests import SCENARIOS as REQUEST_SCENARIOS

# --- framing and the handshake ------------------------------------------------------


async def _after_hello(bench: Bench, data: bytes) -> Refusal:
    client = await bench.client()
    await client.send_raw(data)
    return await told(client)


async def zero_length(bench: Bench) -> Refusal:
    return await _after_hello(bench, struct.pack(">I", 0))


async def length_above_max_frame(bench: Bench) -> Refusal:
    return await _after_hello(bench, struct.pack(">I", 1 << 30))


async def not_msgpack(bench: Bench) -> Refusal:
    return await _after_hello(bench, struct.pack(">I", 1) + b"\xc1")


async def unknown_type(bench: Bench) -> Refusal:
    return await _after_hello(bench, frame({"type": "fly"}))


async def no_hello_first(bench: Bench) -> Refusal:
    known = await bench.connect()  # a known type, then an unknown one
    await known.send_raw(frame({"type": "seek", "game": "tictactoe"}))
    first = await told(known)
    assert (first.error.code, first.error.fatal) == ("handshake_required", True), first.error
    unknown = await bench.connect()
    await unknown.send_raw(frame({"type": "fly"}))
    return await told(unknown)


async def silent_after_connecting(bench: Bench) -> Refusal:
    return await told(await bench.connect())


async def a_third_connection(bench: Bench) -> Refusal:
    await bench.client("h0")
    await bench.client("h1")
    return await told(await bench.connect())


# --- hello ---------------------------------------------------------------------------


async def _register(bench: Bench) -> None:
    client = await bench.connect()
    await client.send({"type": "hello", "version": 1, "name": "reg", "password": "the password"})
    await client.expect(Welcome)


async def version_2(bench: Bench) -> Refusal:
    return await bench.says_hello(version=2)


async def wrong_password(bench: Bench) -> Refusal:
    await _register(bench)
    return await bench.says_hello(name="reg", password="not the password")


async def registered_name_without_password(bench: Bench) -> Refusal:
    await _register(bench)
    return await bench.says_hello(name="reg")


async def unregistered_player(bench: Bench) -> Refusal:
    return await bench.says_hello(name="newcomer")


async def registration_closed(bench: Bench) -> Refusal:
    return await bench.says_hello(name="newcomer", password="long enough")


async def password_without_database(bench: Bench) -> Refusal:
    return await bench.says_hello(password="long enough")


async def password_after_failed_passwords(bench: Bench) -> Refusal:
    await _register(bench)
    failed = await bench.says_hello(name="reg", password="not the password")
    assert failed.error.code == "bad_password", failed.error  # spends the address's budget
    return await bench.says_hello(name="reg", password="the password")


async def second_hello(bench: Bench) -> Refusal:
    hello = {"type": "hello", "version": 1, "name": "again"}
    player = await ask(await bench.client("p"), hello)
    assert (player.error.code, player.error.fatal) == ("bad_request", False), player.error
    return await ask(await bench.client("s", "spectator"), hello)  # any role


# --- the message rate ----------------------------------------------------------------

PINGS = frame({"type": "ping"}) * 100


async def over_the_rate(bench: Bench) -> Refusal:
    return await _after_hello(bench, PINGS)


async def over_the_rate_on_end(bench: Bench) -> Refusal:
    client = await bench.client()
    await client.send_raw(PINGS)
    refusal = await told(client)  # first told that it is slowed down (the row above) ...
    while not refusal.error.fatal:
        refusal = await told(client)
    return refusal  # ... then closed


# --- what the server starts ----------------------------------------------------------

STATUS = frame({"type": "status"})


async def never_reads(bench: Bench) -> Refusal:
    # The client reads nothing until the server has given up on it (it waits for that,
    # not for a send to stay blocked for a while), then reads at once. The connection's
    # kernel buffers are small (the client's receive buffer, the server's send buffer for
    # it), so a few dozen answers fill them and the server's queue (4 kB); the client's
    # 800 requests (13.6 kB) travel in one TCP segment, which the server reads in one go.
    # So it closes having read everything sent: cleanly, not with a reset, which would
    # drop what its kernel still holds for the client (the error frame among it).
    client = await bench.client("slow", receive_buffer=4096)
    conn = bench.connection("slow")
    conn.reader.socket.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
    await client.send_raw(STATUS * 800)
    await wait_until(lambda: conn.closed)  # the server gave up on the client: read now
    return await told(client)


async def never_answers_pings(bench: Bench) -> Refusal:
    return await told(await bench.client())


async def token_taken(bench: Bench) -> Refusal:
    seated, _other, start = await bench.seated()
    await (await bench.client("thief")).send({"type": "rejoin", "token": start.token})
    return await told(seated)


async def shutdown(bench: Bench) -> Refusal:
    client = await bench.client()
    bench.server.announce_shutdown()
    return await told(client)


async def ladder_taken_over(bench: Bench) -> Refusal:
    seek = {"type": "seek", "game": "tictactoe", "ladder": "ttt"}
    first = await bench.client("bot")
    await first.send(seek)
    await first.expect(Seeking)
    await (await bench.client("bot")).send(seek)
    return await told(first)


async def pool_taken_over(bench: Bench) -> Refusal:
    first = await bench.director()
    await bench.director("director-2")  # with the same owner key
    return await told(first)


ACCOUNTS = {"accounts": "registered"}
#: one failed credential from an address spends its budget for good (in a test's time)
ONE_FAILURE = {"address_auth_failure_burst": 1.0, "address_auth_failure_rate": 1e-6}
SLOW_CONSUMER = {"max_buffered_bytes": 4096, "message_rate": 1e7, "message_burst": 1e7}
KEEPALIVE = {"ping_interval": 0.1, "idle_timeout": 0.3}
# fmt: off
SCENARIOS = [
    Scenario("bad_frame", "any frame", zero_length),
    Scenario("frame_too_large", "any frame", length_above_max_frame),
    Scenario("bad_message", "any frame", not_msgpack),
    Scenario("unknown_type", "any frame after `hello`", unknown_type),
    Scenario("handshake_required", "first frame", no_hello_first),
    Scenario("handshake_timeout", "(connecting)", silent_after_connecting,
             settings={"handshake_timeout": 0.2}),
    Scenario("too_many_connections", "(connecting)", a_third_connection,
             settings={"max_connections_per_address": 2}),
    Scenario("unsupported_version", "`hello`", version_2),
    Scenario("bad_password", "`hello`", wrong_password, db=True),
    Scenario("name_registered", "`hello`", registered_name_without_password, db=True),
    Scenario("registration_required", "`hello`", unregistered_player, settings=ACCOUNTS, db=True),
    Scenario("registration_closed", "`hello`", registration_closed,
             settings={"registration": False}, db=True),
    Scenario("accounts_unavailable", "`hello`", password_without_database),
    Scenario("rate_limited", "`hello` with a password", password_after_failed_passwords,
             settings=ONE_FAILURE, db=True),
    Scenario("bad_request", "a second `hello`", second_hello),
    Scenario("rate_limited", "any", over_the_rate, when="reads nothing more",
             settings={"message_rate": 1.0, "message_burst": 50.0}),
    Scenario("rate_limited", "any", over_the_rate_on_end, when="on end",
             settings={"message_rate": 20.0, "message_burst": 2.0}),  # 0.1 s on end
    Scenario("slow_consumer", "(server → client)", never_reads, settings=SLOW_CONSUMER),
    Scenario("idle_timeout", "(keepalive)", never_answers_pings, settings=KEEPALIVE),
    Scenario("replaced", "(seat)", token_taken),
    Scenario("server_shutdown", "(server stopping)", shutdown),
    Scenario("director_replaced", "(director)", pool_taken_over),
    Scenario("ladder_replaced", "(ladder)", ladder_taken_over,
             settings={"ladders": (LadderSpec("ttt", "tictactoe"),)}),
]
# fmt: on


def test_a_first_cell_names_its_requests_with_their_qualifiers() -> None:
    assert items_of("`seek` with `pool`, `direct`") == (
        Item("`seek` with `pool`", "seek", "with `pool`"),
        Item("`direct`", "direct", ""),
    )
    assert items_of('`spectate` `"*"`') == (Item('`spectate` `"*"`', "spectate", '`"*"`'),)
    assert items_of("(connecting)") == (Item("(connecting)"),)
    assert items_of("a second `hello`") == (Item("a second `hello`"),)


def test_the_table_names_real_requests_and_known_qualifiers() -> None:
    rows = documented_rows()
    assert len(rows) > 40
    for row in rows:
        for item in row.items:
            if item.request is not None:
                assert item.request in CLIENT_TYPES, item
                assert not item.qualifier or item.qualifier in QUALIFIERS, (
                    f"{item}: say in QUALIFIERS what the qualifier asks of the request"
                )


def coverage(rows: list[Row], scenarios: list[Scenario]) -> tuple[set[str], set[str]]:
    """The (row, request) pairs without exactly one scenario; the scenarios without a row."""
    driven: collections.Counter[tuple[Row, Item]] = collections.Counter()
    unmatched = set()
    for scenario in scenarios:
        found = rows_of(scenario, rows)
        driven.update(found)
        if len(found) != 1:
            unmatched.add(scenario.id)
    undriven = {
        f"{row.code}: {item.text} ({row.situation})"
        for row in rows
        for item in row.items
        if driven[row, item] != 1
    }
    return undriven, unmatched


ALL_SCENARIOS = [*SCENARIOS, *REQUEST_SCENARIOS]


def test_every_row_and_request_has_one_scenario_and_every_scenario_a_row() -> None:
    assert coverage(documented_rows(), ALL_SCENARIOS) == (set(), set())
    ids = [scenario.id for scenario in ALL_SCENARIOS]
    assert len(set(ids)) == len(ids), ids


def test_the_coverage_check_sees_a_new_request_a_new_row_and_a_lost_row() -> None:
    table = PROTOCOL.read_text()
    mismatch = "| `join` | naming another game than the room's | `room_mismatch` | no |"
    grown = table.replace(
        mismatch,
        mismatch.replace("`join`", "`join`, `seek`")
        + "\n| `list` | too many matches | `limit_reached` | no |",
    )
    undriven, unmatched = coverage(documented_rows(grown), ALL_SCENARIOS)
    assert undriven == {
        "room_mismatch: `seek` (naming another game than the room's)",
        "limit_reached: `list` (too many matches)",
    }
    assert unmatched == set()
    shrunk = table.replace("| `direct` | a pool owned by another key | `not_owner` | no |\n", "")
    assert coverage(documented_rows(shrunk), ALL_SCENARIOS) == (set(), {"not_owner-direct"})


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.id)
async def test_the_server_answers_as_documented(scenario: Scenario, tmp_path: Path) -> None:
    await drive(scenario, tmp_path)
