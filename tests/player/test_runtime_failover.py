"""A player on an arena of several servers (player/runtime.py): it goes back to the servers
it knows when its node, or the node a ``redirect`` sent it to, is gone, and says so.

The network is faked (`tests.player.test_runtime.Network`, on virtual time); a
node that is "gone" refuses every connection, as the port of a killed server does.
The same behaviour against real `arena serve` processes is in
tests/server/test_cluster_faults.py.
"""

from __future__ import annotations

import random
import signal
import time
from pathlib import Path

import trio
import trio.testing

from player.client import PlayerClient, PlayerConfig
from protocol.messages import Error, Redirect, Rejoin, Seek, Seeking
from tests.arena_cli.cli import arena, clean_env, free_port
from tests.player.test_runtime import (
    FakeServer,
    Network,
    ScriptedAgent,
    play_match,
    start_message,
)


class Nodes(Network):
    """The fake network of an arena: connections to the ports in `gone` are refused."""

    def __init__(self) -> None:
        super().__init__()
        self.gone: set[int] = set()
        self.tried: list[int] = []

    async def connect(self, host: str, port: int) -> trio.abc.Stream:
        self.tried.append(port)
        if port in self.gone:
            raise ConnectionRefusedError(111, "Connection refused")
        return await super().connect(host, port)


def player(network: Nodes, said: list[str], **config: object) -> PlayerClient:
    settings: dict[str, object] = {"name": "p1", "connect_wait": 10.0, "games": 0} | config
    return PlayerClient(
        ScriptedAgent(),
        "tictactoe",
        config=PlayerConfig(**settings),  # type: ignore[arg-type]
        connect=network.connect,
        on_retry=said.append,
        rng=random.Random(1),
    )


async def test_a_redirect_whose_node_is_gone_sends_the_player_back_home(
    autojump_clock: trio.testing.MockClock,
) -> None:
    network, said = Nodes(), list[str]()
    client = player(network, said, host="home", port=1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        home: FakeServer = await network.seeker()
        network.gone.add(2)  # the node that paired it dies before the player gets there
        await home.send(Redirect(match="m1", host="away", port=2, token="t"))
        back = await network.seeker()  # not a rejoin: the match over there is gone
        await back.send(Seeking(game="tictactoe", options={}, move_time=1.0))
        nursery.cancel_scope.cancel()
    assert network.tried[0] == 1 and 2 in network.tried and network.tried[-1] == 1
    assert any(
        "the server at away:2 (a redirect) is gone" in line and "back to home:1" in line
        for line in said
    ), said


async def test_a_player_whose_redirected_match_node_dies_mid_game_plays_on_at_home(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Mid-game on the redirect's node, that node dies: the player tries it again for a
    while, then goes home, where its seat's token is unknown (the match is lost), and
    seeks again there."""
    network, said = Nodes(), list[str]()
    client = player(network, said, host="home", port=1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        home = await network.seeker()
        await home.send(Redirect(match="m1", host="away", port=2, token="t"))
        away = await network.accept()
        await away.handshake()
        assert (await away.expect(Rejoin)).token == "t"
        await away.send(start_message(0))
        network.gone.add(2)
        await away.close()  # killed
        home = await network.accept()
        await home.handshake()
        assert (await home.expect(Rejoin)).token == start_message(0).token
        await home.send(Error("bad_token", "unknown or expired reconnect token"))
        await home.expect(Seek)
        nursery.cancel_scope.cancel()
    [lost] = client.results
    assert lost.outcome is None and "bad_token" in lost.reason
    assert any("away:2 (a redirect) is gone" in line for line in said), said


async def test_a_player_given_several_servers_turns_to_the_next_and_says_so(
    autojump_clock: trio.testing.MockClock,
) -> None:
    network, said = Nodes(), list[str]()
    client = player(network, said, host="a", port=1, servers=(("b", 2),))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        a = await network.seeker()
        network.gone.add(1)  # a dies while the player waits there
        await a.close()
        b = await network.seeker()  # b takes its seek
        network.gone.discard(1)
        network.gone.add(2)  # then b dies, and a is back
        await b.close()
        await network.seeker()
        nursery.cancel_scope.cancel()
    assert "the server at a:1 does not answer: now on b:2" in said, said
    assert "the server at b:2 does not answer: now on a:1" in said, said


async def test_a_match_start_after_failing_over_is_played_as_usual(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Nothing is lost by a failover between matches: the next node's match is played."""
    network, said = Nodes(), list[str]()
    network.gone.add(1)
    client = player(network, said, host="a", port=1, servers=(("b", 2),), games=1)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        b = await network.seeker()
        await play_match(b, seat=0, match="m1")
    assert [r.match for r in client.results] == ["m1"]
    assert client.results[0].outcome is not None
    assert "the server at a:1 does not answer: now on b:2" in said, said


def test_a_player_whose_server_freezes_turns_to_the_next_one(tmp_path: Path) -> None:
    """Real processes: the node a player seeks on is stopped (SIGSTOP: TCP stays open, nothing
    comes). Two missed pings later the player counts the connection as lost and seeks on the
    next server it was given; it does not wait for the frozen node to come back."""
    first, second = free_port(), free_port()
    quick = clean_env(ARENA_PING_INTERVAL="1")  # silence limit 2 * 1 + 5 = 7 s
    with (
        arena("serve", "--port", str(first), "--db", str(tmp_path / "a.db"), env=quick) as a,
        arena("serve", "--port", str(second), "--db", str(tmp_path / "b.db")) as b,
    ):
        a.wait_for('"listening"')
        b.wait_for('"listening"')
        servers = f"127.0.0.1:{first},127.0.0.1:{second}"
        with arena("play", "tictactoe", "random", "--server", servers) as player:
            player.wait_for('"seeking"')
            a.process.send_signal(signal.SIGSTOP)
            try:
                player.wait_for("sent nothing for 7 s", timeout=20)
                player.wait_for(f"now trying 127.0.0.1:{second}", timeout=5)
                b.wait_for('"hello"', timeout=30)  # welcomed there, and seeking again:
                deadline = time.monotonic() + 30
                while player.stderr.count('"seeking"') + player.stdout.count('"seeking"') < 2:
                    assert time.monotonic() < deadline, player.stderr
                    time.sleep(0.05)
            finally:
                a.process.send_signal(signal.SIGCONT)
