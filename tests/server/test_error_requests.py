"""docs/PROTOCOL.md's error table, request by request: every request each row names, over a
real socket, gets exactly the row's code and fatal flag.

test_error_table.py reads the table and checks that these scenarios and its own cover
every (row, request) exactly once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from protocol.messages import MatchStart, Scoring, Seeking, Turn, Update, Welcome
from server.ladder_spec import LadderSpec
from tests.server.error_table import (
    DIRECT,
    JOIN,
    PAIR,
    POOL_SEEK,
    SEEK,
    Bench,
    Refusal,
    Run,
    Scenario,
    UnreadableRecords,
    adjudicate,
    ask,
    drive,
    move,
    told,
)
from tests.server.harness import RawClient

# --- bad_request ---------------------------------------------------------------------


async def seek_unknown_game(bench: Bench) -> Refusal:
    return await bench.asks({**SEEK, "game": "chess"})


async def join_unknown_game(bench: Bench) -> Refusal:
    return await bench.asks({**JOIN, "game": "chess"})


async def pair_unknown_game(bench: Bench) -> Refusal:
    return await ask(await bench.director(), {**PAIR, "game": "chess"})


async def join_missing_seat(bench: Bench) -> Refusal:
    return await bench.asks({**JOIN, "seat": 5})


async def pair_too_few_seats(bench: Bench) -> Refusal:
    return await ask(await bench.director(), {**PAIR, "seats": ["a"]})


async def adjudicate_missing_seat(bench: Bench) -> Refusal:
    director = await bench.director()
    paired = await bench.paired(director)
    return await ask(director, adjudicate(paired.match, winner=2))


# --- store_unavailable ---------------------------------------------------------------


async def seek_full_queue(bench: Bench) -> Refusal:
    bench.fill_the_results_queue()
    return await bench.asks(SEEK)


async def join_full_queue(bench: Bench) -> Refusal:
    bench.fill_the_results_queue()
    return await bench.asks(JOIN)


async def pair_full_queue(bench: Bench) -> Refusal:
    director = await bench.director()
    bench.fill_the_results_queue()
    return await ask(director, PAIR)


async def pair_unreadable_records(bench: Bench) -> Refusal:
    director = await bench.director()
    bench.server.recorder.store = UnreadableRecords()
    return await ask(director, {**PAIR, "tournament": "t", "index": 3})


# --- wrong_role: every request but watching ------------------------------------------

FOREIGN = "m-nobody-plays"  # checks that look further than the role would refuse these


def a_spectator_sends(request: dict[str, Any]) -> Run:
    async def run(bench: Bench) -> Refusal:
        return await bench.asks(request, role="spectator")

    return run


# --- ladders ---------------------------------------------------------------------------

LADDER_SEEK = {"type": "seek", "game": "tictactoe", "ladder": "ttt"}
ONE_LADDER = {"ladders": (LadderSpec("ttt", "tictactoe"),)}


async def seek_an_unknown_ladder(bench: Bench) -> Refusal:
    return await bench.asks({**LADDER_SEEK, "ladder": "chess"})


async def seek_a_ladder_with_a_time_control(bench: Bench) -> Refusal:
    return await bench.asks({**LADDER_SEEK, "move_time": 1.0})


# --- pools ---------------------------------------------------------------------------


async def seek_with_a_stranger_secret(bench: Bench) -> Refusal:
    await bench.director()
    return await bench.asks({**POOL_SEEK, "secret": "?"})


async def seek_a_second_pool(bench: Bench) -> Refusal:
    first = await bench.client("first")
    await first.send({**POOL_SEEK, "pool": "p1"})
    await first.expect(Seeking)
    return await bench.asks({**POOL_SEEK, "pool": "p2"})


async def direct_a_second_pool(bench: Bench) -> Refusal:
    await bench.director(pool="p1")
    return await bench.asks({**DIRECT, "pool": "p2"})


async def direct_a_second_pool_from_one_connection(bench: Bench) -> Refusal:
    director = await bench.director(pool="p1")
    return await ask(director, {**DIRECT, "pool": "p2"})


async def direct_with_another_key(bench: Bench) -> Refusal:
    await bench.director()
    return await bench.asks({**DIRECT, "owner": "key-2"})


async def pair_in_a_pool_not_directed(bench: Bench) -> Refusal:
    return await bench.asks(PAIR)


async def pair_nobody_waiting(bench: Bench) -> Refusal:
    return await ask(await bench.director(), PAIR)


async def adjudicate_a_match_of_no_pool(bench: Bench) -> Refusal:
    _a, _b, start = await bench.seated()
    return await ask(await bench.director(), adjudicate(start.match))


async def adjudicate_a_past_ply(bench: Bench) -> Refusal:
    director = await bench.director()
    paired = await bench.paired(director)
    return await ask(director, adjudicate(paired.match, ply=5))


# --- failed credentials: a burst of one ----------------------------------------------


async def _out_of_credentials(bench: Bench) -> RawClient:
    client = await bench.client()
    failed = await ask(client, {"type": "rejoin", "token": "wrong"})
    assert failed.error.code == "bad_token", failed.error
    return client


def after_a_failed_credential(request: dict[str, Any]) -> Run:
    async def run(bench: Bench) -> Refusal:
        return await ask(await _out_of_credentials(bench), request)

    return run


# --- rooms ---------------------------------------------------------------------------


async def _joined(bench: Bench, join: dict[str, Any]) -> None:
    first = await bench.client("first")
    await first.send(join)
    await first.expect(Seeking)


async def join_a_taken_seat(bench: Bench) -> Refusal:
    await _joined(bench, {**JOIN, "seat": 0})
    return await bench.asks({**JOIN, "seat": 0})


async def join_with_another_game(bench: Bench) -> Refusal:
    await _joined(bench, JOIN)
    return await bench.asks({**JOIN, "game": "connect4"})


async def join_a_second_room(bench: Bench) -> Refusal:
    client = await bench.client()
    await client.send({**JOIN, "room": "r1"})
    await client.expect(Seeking)
    return await ask(client, {**JOIN, "room": "r2"})


# --- seats and matches ---------------------------------------------------------------


async def rejoin_unknown_token(bench: Bench) -> Refusal:
    return await bench.asks({"type": "rejoin", "token": "nope"})


async def spectate_unknown_match(bench: Bench) -> Refusal:
    return await bench.asks({"type": "spectate", "match": FOREIGN}, role="spectator")


async def spectate_a_second_match(bench: Bench) -> Refusal:
    _a, _b, first = await bench.seated("a", "b")
    _c, _d, second = await bench.seated("c", "d")
    spectator = await bench.client("s", "spectator")
    await spectator.send({"type": "spectate", "match": first.match})
    await spectator.expect(MatchStart)
    return await ask(spectator, {"type": "spectate", "match": second.match})


async def follow_all_then_a_second_match_starts(bench: Bench) -> Refusal:
    await bench.seated("a", "b")
    spectator = await bench.client("s", "spectator")
    follow = {"type": "spectate", "match": "*"}
    await spectator.send(follow)
    await spectator.expect(MatchStart)
    _c, _d, skipped = await bench.seated("c", "d")
    refusal = await told(spectator, follow)
    assert refusal.error.match == skipped.match, refusal.error
    return refusal


async def move_in_a_foreign_match(bench: Bench) -> Refusal:
    _a, _b, start = await bench.seated()
    return await bench.asks(move(start.match), name="c")


async def resign_a_foreign_match(bench: Bench) -> Refusal:
    _a, _b, start = await bench.seated()
    return await bench.asks({"type": "resign", "match": start.match}, name="c")


async def move_out_of_turn(bench: Bench) -> Refusal:
    a, b, start = await bench.seated()
    waiting = b if start.to_move == start.seat else a
    return await ask(waiting, move(start.match))


# --- dead stones: a Go match between people, after two passes -------------------------

GO_SEEK = {"type": "seek", "game": "go", "options": {"size": 5}, "move_time": 30}


def marking(request: str, match: str, **fields: Any) -> dict[str, Any]:
    found: dict[str, dict[str, Any]] = {"mark": {"point": 0}, "accept": {"dead": []}, "resume": {}}
    return {"type": request, "match": match, **found[request], **fields}


async def people_marking(bench: Bench) -> tuple[dict[int, RawClient], str]:
    """Two people (``hello.human``) who passed twice on an empty 5×5 board: marking."""
    clients = []
    for name in ("a", "b"):
        client = await bench.connect()
        await client.send({"type": "hello", "version": 1, "name": name, "human": True})
        await client.expect(Welcome)
        await client.send(GO_SEEK)
        clients.append(client)
    starts = [await c.expect(MatchStart, skip=(Seeking,)) for c in clients]
    seats = {s.seat: c for s, c in zip(starts, clients, strict=True)}
    match = starts[0].match
    for ply in (0, 1):
        await seats[ply].expect(Turn, skip=(Update,))
        await seats[ply].send({"type": "move", "match": match, "ply": ply, "move": -1})
    await seats[0].expect(Scoring, skip=(Update,))
    return seats, match


async def mark_an_empty_point(bench: Bench) -> Refusal:
    seats, match = await people_marking(bench)
    return await ask(seats[0], marking("mark", match, point=12))


async def accept_a_stale_set(bench: Bench) -> Refusal:
    seats, match = await people_marking(bench)
    refusal = await ask(seats[1], marking("accept", match, dead=[12]))
    assert (await seats[1].expect(Scoring)).dead == []  # the marking as it is
    return refusal


def while_nothing_is_marked(request: str) -> Run:
    async def run(bench: Bench) -> Refusal:
        a, _b, start = await bench.seated()  # tictactoe: nothing to mark, ever
        return await ask(a, marking(request, start.match))

    return run


def in_a_foreign_match(request: str) -> Run:
    async def run(bench: Bench) -> Refusal:
        _a, _b, start = await bench.seated()
        return await bench.asks(marking(request, start.match), name="c")

    return run


def a_player_sends(request: dict[str, Any]) -> Run:
    async def run(bench: Bench) -> Refusal:
        return await bench.asks(request)

    return run


FULL_QUEUE = "queue of unwritten results"
#: one failed credential spends the connection's budget for good (in a test's time)
ONE_FAILURE = {"auth_failure_burst": 1.0, "auth_failure_rate": 1e-6}
ONE_POOL = {"max_pools": 1}
ONE_SPECTATED = {"max_spectating": 1}
# fmt: off
SCENARIOS = [
    Scenario("bad_request", "`seek`", seek_unknown_game, when="unknown game"),
    Scenario("bad_request", "`join`", join_unknown_game, when="unknown game"),
    Scenario("bad_request", "`pair`", pair_unknown_game, when="unknown game"),
    Scenario("store_unavailable", "`seek`", seek_full_queue, when=FULL_QUEUE),
    Scenario("store_unavailable", "`join`", join_full_queue, when=FULL_QUEUE),
    Scenario("store_unavailable", "`pair`", pair_full_queue, when=FULL_QUEUE),
    Scenario("wrong_role", "`seek`", a_spectator_sends(SEEK)),
    Scenario("wrong_role", "`join`", a_spectator_sends(JOIN)),
    Scenario("wrong_role", "`rejoin`", a_spectator_sends({"type": "rejoin", "token": "t"})),
    Scenario("wrong_role", "`move`", a_spectator_sends(move(FOREIGN))),
    Scenario("wrong_role", "`resign`", a_spectator_sends({"type": "resign", "match": FOREIGN})),
    Scenario("wrong_role", "`mark`", a_spectator_sends(marking("mark", FOREIGN))),
    Scenario("wrong_role", "`accept`", a_spectator_sends(marking("accept", FOREIGN))),
    Scenario("wrong_role", "`resume`", a_spectator_sends(marking("resume", FOREIGN))),
    Scenario("wrong_role", "`direct`", a_spectator_sends(DIRECT)),
    Scenario("wrong_role", "`pair`", a_spectator_sends(PAIR)),
    Scenario("wrong_role", "`adjudicate`", a_spectator_sends(adjudicate(FOREIGN))),
    Scenario("bad_secret", "`seek` with `pool`", seek_with_a_stranger_secret),
    Scenario("unknown_ladder", "`seek` with `ladder`", seek_an_unknown_ladder,
             settings=ONE_LADDER),
    Scenario("bad_request", "`seek` with `ladder`", seek_a_ladder_with_a_time_control,
             settings=ONE_LADDER),
    Scenario("limit_reached", "`seek` with `pool`", seek_a_second_pool, settings=ONE_POOL),
    Scenario("limit_reached", "`direct`", direct_a_second_pool, when="beyond",
             settings=ONE_POOL),
    Scenario("rate_limited", "`seek`", after_a_failed_credential(SEEK), settings=ONE_FAILURE),
    Scenario("rate_limited", "`rejoin`",
             after_a_failed_credential({"type": "rejoin", "token": "t"}), settings=ONE_FAILURE),
    Scenario("rate_limited", "`direct`", after_a_failed_credential(DIRECT),
             settings=ONE_FAILURE),
    Scenario("seat_taken", "`join`", join_a_taken_seat),
    Scenario("room_mismatch", "`join`", join_with_another_game),
    Scenario("bad_request", "`join`", join_missing_seat, when="a seat that does not exist"),
    Scenario("limit_reached", "`join`", join_a_second_room,
             settings={"max_rooms_per_connection": 1}),
    Scenario("bad_token", "`rejoin`", rejoin_unknown_token),
    Scenario("unknown_match", "`spectate`", spectate_unknown_match),
    Scenario("limit_reached", "`spectate`", spectate_a_second_match, settings=ONE_SPECTATED),
    Scenario("limit_reached", '`spectate` `"*"`', follow_all_then_a_second_match_starts,
             settings=ONE_SPECTATED),
    Scenario("unknown_match", "`move`", a_player_sends(move(FOREIGN))),
    Scenario("unknown_match", "`resign`", a_player_sends({"type": "resign", "match": FOREIGN})),
    Scenario("unknown_match", "`adjudicate`", a_player_sends(adjudicate(FOREIGN))),
    Scenario("unknown_match", "`mark`", a_player_sends(marking("mark", FOREIGN))),
    Scenario("unknown_match", "`accept`", a_player_sends(marking("accept", FOREIGN))),
    Scenario("unknown_match", "`resume`", a_player_sends(marking("resume", FOREIGN))),
    Scenario("not_in_match", "`mark`", in_a_foreign_match("mark")),
    Scenario("not_in_match", "`accept`", in_a_foreign_match("accept")),
    Scenario("not_in_match", "`resume`", in_a_foreign_match("resume")),
    Scenario("not_marking", "`mark`", while_nothing_is_marked("mark")),
    Scenario("not_marking", "`accept`", while_nothing_is_marked("accept")),
    Scenario("not_marking", "`resume`", while_nothing_is_marked("resume")),
    Scenario("bad_mark", "`mark`", mark_an_empty_point),
    Scenario("stale_marking", "`accept`", accept_a_stale_set),
    Scenario("not_in_match", "`move`", move_in_a_foreign_match),
    Scenario("not_in_match", "`resign`", resign_a_foreign_match),
    Scenario("not_your_turn", "`move`", move_out_of_turn),
    Scenario("not_owner", "`direct`", direct_with_another_key),
    Scenario("limit_reached", "`direct`", direct_a_second_pool_from_one_connection,
             when="directing", settings={"max_pools_per_connection": 1}),
    Scenario("not_director", "`pair`", pair_in_a_pool_not_directed),
    Scenario("not_available", "`pair`", pair_nobody_waiting),
    Scenario("bad_request", "`pair`", pair_too_few_seats, when="seats that do not fit"),
    Scenario("store_unavailable", "`pair`", pair_unreadable_records, when="looked up"),
    Scenario("not_director", "`adjudicate`", adjudicate_a_match_of_no_pool),
    Scenario("stale_position", "`adjudicate`", adjudicate_a_past_ply),
    Scenario("bad_request", "`adjudicate`", adjudicate_missing_seat),
]
# fmt: on


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.id)
async def test_the_server_answers_as_documented(scenario: Scenario, tmp_path: Path) -> None:
    await drive(scenario, tmp_path)
