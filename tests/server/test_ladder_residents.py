"""Resident bots (server/ladder_residents.py): agents and engines `arena serve` runs itself.

Real processes and real signals: a server whose residents play and are rated
on a server that admits registered names only; an impostor refused; a
resident whose engine crashes mid-game (it loses those games as crashes and
plays on), one whose own process crashes (restarted, counted); SIGTERM to the
server reaps every resident, SIGKILL leaves none behind either (checked by
session id, not by name: a resident is the leader of a session of its own,
and the engines it starts stay in that session).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from server.app import ArenaServer
from server.config import LOOPBACK, ServerConfig
from server.ladder_residents import (
    BACKOFF_FIRST,
    BACKOFF_MAX,
    HEALTHY,
    connect_host,
    exit_text,
    next_pause,
    resident_sources,
)
from server.ladder_spec import parse_ladder, with_resident
from tests.arena_cli.cli import ARENA, Arena, arena, clean_env, free_port, run
from tests.arena_cli.test_ladder_cmd import get, until

NO_FAILURES = {"time": 0, "illegal": 0, "crash": 0, "stall": 0, "protocol": 0}


def test_the_pause_doubles_to_its_cap_and_resets_after_a_healthy_run() -> None:
    pause, pauses = BACKOFF_FIRST, []
    for _ in range(7):
        wait, pause = next_pause(pause, lived=0.5)
        pauses.append(wait)
    assert pauses == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    assert next_pause(BACKOFF_MAX, lived=HEALTHY) == (BACKOFF_FIRST, 2 * BACKOFF_FIRST)


def test_residents_connect_over_loopback_which_is_trusted() -> None:
    assert connect_host("0.0.0.0") == connect_host("localhost") == "127.0.0.1"
    assert connect_host("::") == "::1"
    assert connect_host("10.1.2.3") == "10.1.2.3"
    assert resident_sources("0.0.0.0") == LOOPBACK
    assert resident_sources("10.1.2.3") == (*LOOPBACK, "10.1.2.3")
    assert resident_sources("ladder.example.org") == LOOPBACK
    assert exit_text(3) == "exit code 3" and exit_text(-9) == "signal SIGKILL"


def test_a_server_with_residents_never_caps_their_connections() -> None:
    """Hundreds of residents on one host: loopback is exempt from the per-address cap
    (its connections still count toward ``max_connections``); others are not."""
    ladder = with_resident([parse_ladder("t=tictactoe")], "random", lambda agent: agent)
    config = ServerConfig(db=None, ladders=tuple(ladder), max_connections_per_address=2)
    server = ArenaServer(config)
    assert server.residents is not None and set(server.accounts.residents) == {"random"}
    assert all(server.addresses.admit("127.0.0.1") is None for _ in range(300))
    assert server.addresses.admit("10.9.8.7") is None
    assert server.addresses.admit("10.9.8.7") is None
    refused = server.addresses.admit("10.9.8.7")
    assert refused is not None and "max_connections_per_address" in refused
    # without residents, nothing is trusted that the operator did not name
    plain = ArenaServer(ServerConfig(db=None, max_connections_per_address=2))
    assert plain.residents is None and plain.config.trusted_addresses == ()


# --- processes ----------------------------------------------------------------------


def processes() -> dict[int, tuple[int, int, int, str]]:
    """Every process now: pid -> (parent, group, session, state), from /proc."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stat:
                text = stat.read()
        except OSError:
            continue  # gone meanwhile
        fields = text[text.rindex(")") + 2 :].split()
        state, parent, group, session = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
        found[int(entry)] = (parent, group, session, state)
    return found


def resident_sessions(server: Arena) -> set[int]:
    """The processes of the residents the server started (its ``resident_started`` log
    lines): each leads a session of its own, which its engines stay in."""
    started = set()
    for line in server.out:
        if '"resident_started"' in line:
            started.add(int(json.loads(line)["pid"]))
    return started


def alive_in(sessions: set[int]) -> dict[int, tuple[int, int, int, str]]:
    """The live (not zombie) processes of `sessions`."""
    return {
        pid: info
        for pid, info in processes().items()
        if info[2] in sessions and info[3] not in ("Z", "X")
    }


@contextmanager
def serve(db: Path, *extra: str) -> Iterator[tuple[Arena, int, str]]:
    port, web = free_port(), free_port()
    env = clean_env(
        ARENA_LADDER_RATING_INTERVAL="0.3", ARENA_LADDER_REPEAT_WAIT="0.5", ARENA_LOG_FORMAT="json"
    )
    with arena(
        "serve", "--port", str(port), "--db", str(db), "--web", f"127.0.0.1:{web}",
        "--ladder", "ttt=tictactoe", "--ladder-tc", "ttt=2s", *extra, env=env,
    ) as server:  # fmt: skip
        server.wait_for("web_listening")
        yield server, port, f"http://127.0.0.1:{web}"


def ladder(url: str) -> Callable[[], dict[str, Any]]:
    def read() -> dict[str, Any]:
        status, doc = get(f"{url}/api/ladders/ttt")
        assert status == 200, doc
        return doc  # type: ignore[no-any-return]

    return read


def rows(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["bot"]: row for row in doc["ratings"]}


def residents(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["bot"]: row for row in doc["now"]["residents"]}


def test_residents_play_on_a_registered_server_and_sigterm_reaps_them(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    with serve(
        db, "--accounts", "registered", "--ladder-resident", "random",
        "--ladder-resident", "ttt=sharp@greedy",
    ) as (server, port, url):  # fmt: skip
        read = ladder(url)
        doc = until(
            "20 rated games of the two residents",
            lambda: (d := read())["rated_games"] >= 20 and len(d["ratings"]) == 2 and d,
            about=lambda: server.stderr[-2000:],
        )
        assert set(rows(doc)) == {"random", "sharp"}
        assert rows(doc)["sharp"]["rating"] > rows(doc)["random"]["rating"]
        assert all(row["failures"] == NO_FAILURES for row in doc["ratings"])
        assert residents(doc) == {
            bot: {"bot": bot, "running": True, "restarts": 0, "last_exit": None}
            for bot in ("random", "sharp")
        }
        # a resident's name is the server's: nobody else plays under it
        impostor = run("play", "tictactoe", "random", "--port", str(port), "--name", "sharp",
                       "--ladder", "ttt")  # fmt: skip
        assert impostor.returncode == 1
        assert "'sharp' is a resident bot of this server" in impostor.stderr, impostor.stderr
        sessions = resident_sessions(server)
        now = processes()
        assert len(sessions) == 2 and all(now[pid][2] == pid for pid in sessions)
        code, _ = server.stop(signal.SIGTERM)
        assert code == 128 + signal.SIGTERM, server.stderr[-2000:]
        # reaped before the server exited: the residents themselves are gone at once
        assert not set(processes()) & sessions
        until("no process of a resident's session", lambda: not alive_in(sessions), timeout=5)


def test_crashes_are_counted_restarted_and_sigkill_leaves_no_process(
    tmp_path: Path, engines: dict[str, str]
) -> None:
    db = tmp_path / "ladder.sqlite"
    crasher = f"crasher@engine:cmd={engines['misbehave']},args=die-at 3"
    with serve(
        db, "--reconnect-grace", "1", "--ladder-resident", "rnd@random",
        "--ladder-resident", crasher, "--ladder-resident", "faulty:crash_after=3",
    ) as (server, _, url):  # fmt: skip
        read = ladder(url)

        def crashed() -> dict[str, Any] | None:
            doc = read()
            table, now = rows(doc), residents(doc)
            done = (
                table.get("crasher", {}).get("failures", {}).get("crash", 0) >= 2
                and table.get("faulty", {}).get("failures", {}).get("crash", 0) >= 1
                # it exits when asked for its 4th move: a second exit means it came back
                # after the first and played
                and now["faulty"]["restarts"] >= 2
            )
            return doc if done else None

        doc = until("the crashes counted", crashed, about=lambda: json.dumps(read()["now"]))
        table, now = rows(doc), residents(doc)
        # the engine crashed in a game, twice: the resident process lived on and played on
        assert now["crasher"] == {"bot": "crasher", "running": True, "restarts": 0,
                                  "last_exit": None}  # fmt: skip
        # (it loses nearly every game: its engine dies at its 3rd move of each game)
        assert table["crasher"]["games"] >= table["crasher"]["failures"]["crash"] >= 2
        assert now["faulty"]["last_exit"] == "exit code 3"
        # its game lost as a crash (its program exited) or a disconnect (it did not return)
        crashes = [g for g in doc["recent"] if g["termination"] in ("crash", "disconnect")]
        assert crashes
        for game in crashes:  # lost by who crashed, the reason naming it
            loser = game["players"][game["scores"].index(0.0)]
            assert loser in ("crasher", "faulty") and game["reason"].startswith(loser), game
        assert "resident_exited" in server.stdout
        sessions = resident_sessions(server)
        assert len(sessions) >= 4  # three, and faulty's after its first exit
        live = alive_in(sessions)
        # the crasher's engine: a process in a resident's session with a group of its own
        assert any(group != session for _, group, session, _ in live.values()), live
        server.process.send_signal(signal.SIGKILL)
        server.process.wait(timeout=10)
        until(
            "no process of a resident's session after the server's SIGKILL",
            lambda: not alive_in(sessions),
            timeout=5,
            about=lambda: alive_in(sessions),
        )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ladder-resident", "random"], "--ladder-resident 'random': no --ladder to apply it to"),
        (
            ["--ladder", "t=tictactoe", "--ladder-resident", "chess=random"],
            "no ladder 'chess' (ladders: t)",
        ),
        (["--ladder", "t=tictactoe", "--ladder-resident", "t=wizard"], "unknown agent 'wizard'"),
        (
            ["--ladder", "t=tictactoe", "--ladder-resident", "mcts:tme=1"],
            "unknown option 'tme' for agent 'mcts'",
        ),
        (["--ladder", "t=tictactoe", "--ladder-resident", "human"], "not a human"),
        (
            [
                "--ladder",
                "t=tictactoe",
                "--ladder-resident",
                "random",
                "--ladder-resident",
                "random:seed=1",
            ],
            "ladder t has a resident 'random' already: name each one (BOT@AGENTSPEC)",
        ),
        (
            ["--ladder", "c=connect4", "--ladder-resident", "engine:cmd=gnugo,protocol=gtp"],
            "protocol gtp cannot play connect4",
        ),
        (["--ladder", "t=tictactoe", "--ladder-resident", "a b@random"], "a bot's name is 1-64"),
    ],
)
def test_bad_residents_are_one_line_errors(args: list[str], message: str) -> None:
    done = run("serve", "--no-db", "--port", str(free_port()), *args)
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_a_resident_named_as_an_account_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "arena.sqlite"
    added = subprocess.run(
        [*ARENA, "accounts", "add", "gnugo", "--db", str(db)],
        input="a long password\n",
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
    )
    assert added.returncode == 0, added.stderr
    done = run(
        "serve", "--db", str(db), "--port", str(free_port()), "--ladder", "t=tictactoe",
        "--ladder-resident", "gnugo@random",
    )  # fmt: skip
    assert done.returncode == 2
    assert "'gnugo' is a registered account here" in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1


def test_gnugo_as_a_resident_anchor(tmp_path: Path, gnugo: str) -> None:
    """The motivating use: GNU Go, hosted by the server, the anchor of a Go ladder."""
    db = tmp_path / "go.sqlite"
    port, web = free_port(), free_port()
    env = clean_env(ARENA_LADDER_RATING_INTERVAL="0.3", ARENA_LOG_FORMAT="json")
    spec = f"go5=gnugo@engine:cmd={gnugo},args=--mode gtp --level 1,protocol=gtp"
    with arena(
        "serve", "--port", str(port), "--db", str(db), "--web", f"127.0.0.1:{web}",
        "--ladder", "go5=go:size=5", "--ladder-tc", "go5=2s", "--ladder-anchor", "gnugo=1800",
        "--ladder-resident", spec, "--ladder-resident", "go5=random", env=env,
    ) as server:  # fmt: skip
        server.wait_for("web_listening")
        url = f"http://127.0.0.1:{web}/api/ladders/go5"
        doc = until(
            "3 rated games against GNU Go",
            lambda: (d := get(url)[1])["rated_games"] >= 3 and len(d["ratings"]) == 2 and d,
            about=lambda: server.stderr[-2000:],
        )
        table = rows(doc)
        assert table["gnugo"]["rating"] == 1800 and table["gnugo"]["anchor"]
        assert table["gnugo"]["failures"] == NO_FAILURES
        assert residents(doc)["gnugo"]["restarts"] == 0
        sessions = resident_sessions(server)
        code, _ = server.stop(signal.SIGTERM)
        assert code == 128 + signal.SIGTERM
        until("no GNU Go left", lambda: not alive_in(sessions), timeout=5)


def test_sessions_helper_sees_this_process() -> None:
    """The /proc reader the tests above rely on: it finds this very process."""
    me = processes()[os.getpid()]
    assert me[0] == os.getppid() and me[2] == os.getsid(0) and me[3] in "RS"
