"""Every attack of issue 11 ("open to the network"), over real sockets, now failing harmlessly."""

from __future__ import annotations

import secrets
import sqlite3
from pathlib import Path

import msgspec
import pytest
import trio
import trio.testing

from protocol.codec import encode_frame
from protocol.messages import (
    Directing,
    Error,
    MatchEnd,
    Matches,
    MatchStart,
    Paired,
    Pong,
    PoolStatus,
    Seeking,
    Welcome,
)
from server.config import MatchPolicy
from tests.server.harness import RawClient, memory_server, play_randomly, running_server

POOL_PLAYERS = [{"name": "p0", "secret": "s0"}, {"name": "p1", "secret": "s1"}]


async def _director(port: int, pool: str, owner: str = "") -> tuple[RawClient, Directing]:
    director = await RawClient.connect(port)
    await director.hello(f"director-{pool}")
    await director.send({"type": "direct", "pool": pool, "players": POOL_PLAYERS, "owner": owner})
    directing: Directing = await director.expect(Directing)
    return director, directing


async def _seekers(port: int, pool: str) -> list[RawClient]:
    players = []
    for i in range(2):
        player = await RawClient.connect(port)
        await player.hello(f"p{i}")
        await player.send({"type": "seek", "game": "tictactoe", "pool": pool, "secret": f"s{i}"})
        await player.expect(Seeking)
        players.append(player)
    return players


async def _wait_idle(director: RawClient, count: int) -> None:
    while True:
        status: PoolStatus = await director.expect(PoolStatus, skip=(Directing,))
        if sum(status.idle.values()) >= count:
            return


async def test_a_pool_cannot_be_hijacked_while_its_director_is_away() -> None:
    async with running_server() as server:
        assert server.port is not None
        director, directing = await _director(server.port, "cup", owner="real-owner-key-1")
        assert directing.owner == "real-owner-key-1"
        players = await _seekers(server.port, "cup")
        await _wait_idle(director, 2)
        await director.aclose()  # the director is killed

        thief = await RawClient.connect(server.port)
        await thief.hello("thief")
        for owner in ("", "guess"):
            await thief.send({"type": "direct", "pool": "cup", "players": [], "owner": owner})
            error: Error = await thief.expect(Error)
            assert error.code == "not_owner" and not error.fatal
        await thief.send(
            {"type": "pair", "pool": "cup", "seats": ["p0", "p1"], "game": "tictactoe"}
        )
        assert (await thief.expect(Error)).code == "not_director"

        # the waiting players were not evicted; the real director takes its pool back
        back, _ = await _director(server.port, "cup", owner="real-owner-key-1")
        await _wait_idle(back, 2)
        for player in players:
            with trio.move_on_after(0.2):
                message = await player.receive()
                pytest.fail(f"a seeker was disturbed: {message!r}")


async def test_a_director_gets_an_owner_key_when_it_brings_none() -> None:
    async with running_server() as server:
        assert server.port is not None
        director, directing = await _director(server.port, "open-cup")
        assert len(directing.owner) >= 24
        await director.aclose()
        _back, again = await _director(server.port, "open-cup", owner=directing.owner)
        assert again.owner == directing.owner


async def test_forged_tournament_games_are_not_the_tournaments(tmp_path: Path) -> None:
    db = str(tmp_path / "arena.sqlite")
    pair = {
        "type": "pair",
        "seats": ["p0", "p1"],
        "game": "tictactoe",
        "tournament": "t-forged",
        "index": 0,
        "seed": 3,
    }
    async with running_server(db=db) as server:
        assert server.port is not None
        forger, _ = await _director(server.port, "forger-pool", owner="forger-key-123")
        forged = await _seekers(server.port, "forger-pool")
        await _wait_idle(forger, 2)
        await forger.send({**pair, "pool": "forger-pool"})
        first: Paired = await forger.expect(Paired, skip=(PoolStatus,))
        await play_randomly(forged[0], 1)
        await play_randomly(forged[1], 2)
        assert (await forger.expect(MatchEnd, skip=(PoolStatus,))).recorded

        real, _ = await _director(server.port, "real-pool", owner="real-key-456")
        players = await _seekers(server.port, "real-pool")
        await _wait_idle(real, 2)
        await real.send({**pair, "pool": "real-pool"})
        paired: Paired = await real.expect(Paired, skip=(PoolStatus,))
        assert not paired.existing and paired.match != first.match  # played, not adopted
        for player in players:
            await player.expect(MatchStart)


async def test_limits_bound_what_one_connection_holds() -> None:
    async with running_server(max_pools_per_connection=3, max_rooms_per_connection=2) as server:
        assert server.port is not None
        client = await RawClient.connect(server.port)
        await client.hello("hoarder")
        for i in range(4):
            await client.send({"type": "direct", "pool": f"pool-{i}", "players": []})
        for _ in range(3):
            await client.expect(Directing, skip=(PoolStatus,))
        error: Error = await client.expect(Error, skip=(PoolStatus,))
        assert error.code == "limit_reached" and not error.fatal
        for i in range(3):
            await client.send({"type": "join", "room": f"room-{i}", "game": "connect4"})
        await client.expect(Seeking, skip=(PoolStatus,))
        await client.expect(Seeking, skip=(PoolStatus,))
        assert (await client.expect(Error, skip=(PoolStatus,))).code == "limit_reached"
        assert len(server.lobby.rooms) == 2 if server.lobby else False


async def test_connections_per_address_are_bounded() -> None:
    async with running_server(max_connections_per_address=3) as server:
        assert server.port is not None
        held = [await RawClient.connect(server.port) for _ in range(3)]
        for i, client in enumerate(held):
            await client.hello(f"c{i}")
        extra = await RawClient.connect(server.port)
        error: Error = await extra.expect(Error)
        assert error.code == "too_many_connections" and error.fatal
        assert await extra.closed()
        await held[0].aclose()
        await trio.sleep(0.05)  # the server notices the close
        again = await RawClient.connect(server.port)
        await again.hello("again")


async def test_a_flood_is_slowed_to_its_rate_then_disconnected(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async with memory_server(message_rate=50.0, message_burst=100.0) as server:
        flooder = RawClient.in_memory(server)
        await flooder.hello("flooder")
        start = trio.current_time()
        pings = [
            encode_frame(msgspec.msgpack.encode({"type": "ping", "id": i})) for i in range(150)
        ]
        await flooder.send_raw(b"".join(pings))
        pongs: list[int] = []
        errors: list[Error] = []
        while len(pongs) < 150:
            message = await flooder.receive()
            if isinstance(message, Pong):
                pongs.append(message.id)
            elif isinstance(message, Error):
                errors.append(message)
        assert pongs == list(range(150))  # slowed down, nothing lost, in order
        assert [e.code for e in errors] == ["rate_limited"] and not errors[0].fatal
        # the burst at once, the other 50 at 50 per second
        assert trio.current_time() - start == pytest.approx(1.0, abs=0.05)

        bystander = RawClient.in_memory(server)
        await bystander.hello("bystander")
        with trio.fail_after(0.01):  # nobody else waits for the flooder
            await bystander.send({"type": "ping", "id": 7})
            assert (await bystander.expect(Pong)).id == 7

        # flooding on for message_burst / message_rate = 2 s ends the connection
        await flooder.send_raw(b"".join(pings * 4))
        while True:
            message = await flooder.receive()
            if isinstance(message, Error) and message.fatal:
                assert message.code == "rate_limited"
                break
        assert await flooder.closed()


async def test_guessing_seat_tokens_is_throttled() -> None:
    async with running_server(auth_failure_burst=5.0, auth_failure_rate=0.1) as server:
        assert server.port is not None
        guesser = await RawClient.connect(server.port)
        await guesser.hello("guesser")
        codes = []
        for _ in range(12):
            await guesser.send({"type": "rejoin", "token": secrets.token_urlsafe(16)})
            codes.append((await guesser.expect(Error)).code)
        assert codes[:5] == ["bad_token"] * 5
        assert set(codes[5:]) == {"rate_limited"}  # not even looked up any more


@pytest.mark.parametrize(
    "payload",
    [
        {"type": [1, 2]},
        {"type": {"a": 1}},
        {"type": 5},
        {"type": None},
        {"type": "move", "match": ["x"], "ply": 0, "move": 1},
    ],
)
async def test_frames_of_any_shape_get_an_error_frame(payload: object) -> None:
    async with running_server() as server:
        assert server.port is not None
        client = await RawClient.connect(server.port)
        await client.hello("fuzzy")
        await client.send_raw(encode_frame(msgspec.msgpack.encode(payload)))
        error: Error = await client.expect(Error)
        assert error.code == "bad_message" and error.fatal
        assert await client.closed()


async def test_invalid_utf8_anywhere_is_a_bad_message() -> None:
    body = b"\x82\xa4type\xa4ping\xa2\xff\xfe\xa1x"  # a map key that is not UTF-8
    async with running_server() as server:
        assert server.port is not None
        client = await RawClient.connect(server.port)
        await client.hello("bytes")
        await client.send_raw(encode_frame(body))
        assert (await client.expect(Error)).code == "bad_message"


async def test_a_seated_player_sending_garbage_loses_by_protocol_error() -> None:
    policy = MatchPolicy(move_time=5.0, reconnect_grace=0.3)
    async with running_server(policy=policy) as server:
        assert server.port is not None
        a, b = await RawClient.connect(server.port), await RawClient.connect(server.port)
        for i, client in enumerate((a, b)):
            await client.hello(f"p{i}")
            await client.send({"type": "seek", "game": "tictactoe"})
        starts = [await c.expect(MatchStart, skip=(Seeking,)) for c in (a, b)]
        cheat, honest = (a, b) if starts[0].seat == 0 else (b, a)
        await cheat.send_raw(encode_frame(msgspec.msgpack.encode({"type": {"evil": True}})))
        end: MatchEnd = await honest.expect(MatchEnd, skip=(Error,))
        assert end.termination == "protocol_error"
        assert end.winner == starts[(a, b).index(honest)].seat


async def test_a_spectators_move_is_the_wrong_role() -> None:
    async with running_server() as server:
        assert server.port is not None
        viewer = await RawClient.connect(server.port)
        await viewer.hello("viewer", role="spectator")
        await viewer.send({"type": "move", "match": "m1", "ply": 0, "move": 1})
        assert (await viewer.expect(Error)).code == "wrong_role"
        await viewer.send({"type": "list"})
        await viewer.expect(Matches)


async def test_welcome_carries_the_keepalive_settings() -> None:
    async with running_server(ping_interval=7.0, idle_timeout=21.0) as server:
        assert server.port is not None
        client = await RawClient.connect(server.port)
        welcome: Welcome = await client.hello("w")
        assert (welcome.ping_interval, welcome.idle_timeout) == (7.0, 21.0)


async def _hello(port: int, name: str, password: str = "", role: str = "player") -> Welcome | Error:
    client = await RawClient.connect(port)
    await client.send(
        {"type": "hello", "version": 1, "name": name, "password": password, "role": role}
    )
    message = await client.receive()
    assert isinstance(message, Welcome | Error)
    return message


async def test_a_registered_name_is_usable_only_with_its_password(tmp_path: Path) -> None:
    async with running_server(db=str(tmp_path / "arena.sqlite")) as server:
        assert server.port is not None
        first = await _hello(server.port, "alice", "correct horse")
        assert isinstance(first, Welcome) and first.account == "alice"  # registered now
        again = await _hello(server.port, "alice", "correct horse")
        assert isinstance(again, Welcome) and again.account == "alice"
        wrong = await _hello(server.port, "alice", "wrong horse!")
        assert isinstance(wrong, Error) and wrong.code == "bad_password" and wrong.fatal
        bare = await _hello(server.port, "alice")
        assert isinstance(bare, Error) and bare.code == "name_registered"
        short = await _hello(server.port, "bob", "short")
        assert isinstance(short, Error) and short.code == "bad_password"
        open_play = await _hello(server.port, "carol")  # unregistered names stay open
        assert isinstance(open_play, Welcome) and open_play.account is None
    stored = sqlite3.connect(tmp_path / "arena.sqlite").execute(
        "SELECT password_hash FROM accounts WHERE name='alice'"
    )
    assert stored.fetchone()[0].startswith("scrypt$")  # a salted KDF hash, never the password


async def test_a_registered_only_server_refuses_open_names(tmp_path: Path) -> None:
    async with running_server(
        db=str(tmp_path / "arena.sqlite"), accounts="registered", registration=False
    ) as server:
        assert server.port is not None
        refused = await _hello(server.port, "dave")
        assert isinstance(refused, Error) and refused.code == "registration_required"
        # watching, ping and status (health checks) stay open to everyone
        watcher = await _hello(server.port, "dave", role="spectator")
        assert isinstance(watcher, Welcome) and watcher.account is None
        closed = await _hello(server.port, "dave", "a long password")
        assert isinstance(closed, Error) and closed.code == "registration_closed"


async def test_password_guessing_is_throttled(tmp_path: Path) -> None:
    async with running_server(
        db=str(tmp_path / "arena.sqlite"), address_auth_failure_burst=3.0
    ) as server:
        assert server.port is not None
        assert isinstance(await _hello(server.port, "erin", "the real one"), Welcome)
        replies = [await _hello(server.port, "erin", f"guess {i:04}") for i in range(6)]
        codes = [reply.code if isinstance(reply, Error) else "welcome" for reply in replies]
        assert codes[:3] == ["bad_password"] * 3
        assert set(codes[3:]) == {"rate_limited"}


async def test_the_player_client_sends_its_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from protocol.client import open_connection

    monkeypatch.setenv("ARENA_PASSWORD", "a long enough secret")
    async with running_server(db=str(tmp_path / "arena.sqlite")) as server:
        assert server.port is not None
        connection = await open_connection("127.0.0.1", server.port)
        welcome = await connection.handshake("frank", "player")
        assert welcome.account == "frank"
        await connection.aclose()
        monkeypatch.setenv("ARENA_PASSWORD", "not the secret")
        intruder = await open_connection("127.0.0.1", server.port)
        with pytest.raises(Exception, match="wrong password"):
            await intruder.handshake("frank", "player")


async def test_a_refused_request_changes_nothing() -> None:
    async with running_server(max_move_time=60.0) as server:
        assert server.port is not None and server.lobby is not None
        # a refused seek keeps the connection's earlier seek open
        waiting = await RawClient.connect(server.port)
        await waiting.hello("waiting")
        await waiting.send({"type": "seek", "game": "tictactoe"})
        await waiting.expect(Seeking)
        await waiting.send({"type": "direct", "pool": "guarded", "players": [], "owner": "k"})
        await waiting.expect(Directing)
        await waiting.send(
            {"type": "seek", "game": "tictactoe", "pool": "guarded", "secret": "wrong"}
        )
        assert (await waiting.expect(Error, skip=(PoolStatus,))).code == "bad_secret"
        other = await RawClient.connect(server.port)
        await other.hello("other")
        await other.send({"type": "seek", "game": "tictactoe"})
        await other.expect(MatchStart, skip=(Seeking,))
        await waiting.expect(MatchStart, skip=(PoolStatus,))

        # a refused join creates no room
        joiner = await RawClient.connect(server.port)
        await joiner.hello("joiner")
        await joiner.send({"type": "join", "room": "r", "game": "tictactoe", "seat": 7})
        assert (await joiner.expect(Error)).code == "bad_request"
        assert "r" not in server.lobby.rooms

        # a refused pair takes no player
        director, _ = await _director(server.port, "cup", owner="cup-key")
        players = await _seekers(server.port, "cup")
        await _wait_idle(director, 2)
        pair = {"type": "pair", "pool": "cup", "seats": ["p0", "p1"], "game": "tictactoe"}
        await director.send({**pair, "move_time": 600})
        assert (await director.expect(Error, skip=(PoolStatus,))).code == "bad_request"
        await director.send(pair)  # both players are still there
        paired: Paired = await director.expect(Paired, skip=(PoolStatus,))
        assert not paired.existing
        for player in players:
            await player.expect(MatchStart)
