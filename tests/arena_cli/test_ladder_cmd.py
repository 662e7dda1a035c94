"""A ladder as its users run it: `arena serve --ladder`, bots joining with `arena play
--ladder`, the rating list read from the JSON API (docs/LADDER.md).

Real processes over real sockets: a server, three bots of different
strengths (random, greedy, MCTS), games between every pair one after
another, the rating list in their order, a bot killed with SIGKILL dropped
and back in when it is started again.
"""

from __future__ import annotations

import itertools
import json
import signal
import sqlite3
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.arena_cli.cli import Arena, arena, clean_env, free_port, run

BOTS = {"rnd": "random", "greedy": "greedy", "mcts": "mcts:iterations=300,engine=python"}


def get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            body = response.read().decode()
            kind = response.headers.get("Content-Type", "")
            return response.status, json.loads(body) if kind == "application/json" else body
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read().decode())


def until(what: str, check: Callable[[], Any], timeout: float = 60.0, about: Any = None) -> Any:
    """Poll `check` until it returns something true (AssertionError naming `what`)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            found = check()
        except (urllib.error.URLError, ConnectionError):
            found = None
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(
        f"not within {timeout:g}s: {what}" + ("" if about is None else f" {about()}")
    )


@contextmanager
def ladder_server(db: Path, *extra: str) -> Iterator[tuple[Arena, int, str]]:
    port, web = free_port(), free_port()
    env = clean_env(ARENA_LADDER_RATING_INTERVAL="0.3", ARENA_LOG_FORMAT="json")
    with arena(
        "serve", "--port", str(port), "--db", str(db), "--web", f"127.0.0.1:{web}",
        "--ladder", "ttt=tictactoe", "--ladder-tc", "ttt=2s", "--ladder-anchor", "rnd=1000",
        *extra, env=env,
    ) as server:  # fmt: skip
        server.wait_for("web_listening")
        yield server, port, f"http://127.0.0.1:{web}"


def bot(port: int, name: str, spec: str) -> Arena:
    return Arena(
        "play", "tictactoe", spec, "--port", str(port), "--name", name, "--ladder", "ttt",
        env=clean_env(),
    )  # fmt: skip


def ladder_games(db: Path) -> list[tuple[str, str, str]]:
    """(first, second, termination) of the ladder's finished games, in the order they began."""
    with sqlite3.connect(db) as con:
        rows = con.execute(
            "SELECT players, termination FROM matches WHERE json_extract(tags, '$.ladder')"
            " = 'ttt' AND status = 'finished' ORDER BY started_at"
        ).fetchall()
    return [(*json.loads(players), termination) for players, termination in rows]


def test_bots_of_three_strengths_are_paired_and_rated(tmp_path: Path) -> None:
    db = tmp_path / "ladder.sqlite"
    with ladder_server(db) as (server, port, url), ExitStack() as stack:
        bots = {name: bot(port, name, spec) for name, spec in BOTS.items()}
        for proc in bots.values():
            stack.callback(proc.kill)

        def rated(count: int) -> Callable[[], dict[str, Any] | None]:
            def check() -> dict[str, Any] | None:
                status, doc = get(f"{url}/api/ladders/ttt")
                return doc if status == 200 and doc["rated_games"] >= count else None

            return check

        # two bots alone play each other again and again, until the third comes
        until(
            "three bots in the ladder",
            lambda: len(get(f"{url}/api/ladders/ttt")[1]["now"]["bots"]) == 3,
            about=lambda: bots["mcts"].stderr[-2000:],
        )
        before = len(ladder_games(db)) + 1  # (the game being played when it came)
        doc = until("30 rated games more", rated(before + 30), timeout=90)
        games = ladder_games(db)[before:]
        pairs = Counter(frozenset(game[:2]) for game in games)
        assert len(pairs) == 3, pairs  # every pair plays
        for name in BOTS:  # nobody plays the same opponent twice in a row
            opponents = [g[1] if g[0] == name else g[0] for g in games if name in g[:2]]
            assert all(a != b for a, b in itertools.pairwise(opponents)), (name, opponents)
        for a, b in itertools.combinations(BOTS, 2):  # colours balanced in every pair
            firsts = Counter(g[0] for g in ladder_games(db) if {a, b} == set(g[:2]))
            assert abs(firsts[a] - firsts[b]) <= 1, (a, b, firsts)
        ratings = {row["bot"]: row for row in doc["ratings"]}
        assert ratings["rnd"]["rating"] == 1000 and ratings["rnd"]["anchor"]
        assert ratings["mcts"]["rating"] > ratings["rnd"]["rating"]
        assert ratings["greedy"]["rating"] > ratings["rnd"]["rating"]
        assert all(row["margin"] is not None for row in doc["ratings"] if not row["anchor"])
        # a bot's page: results by opponent, failures, games with their downloads
        status, page = get(f"{url}/api/ladders/ttt/bots/mcts")
        assert status == 200 and {r["opponent"] for r in page["by_opponent"]} == {"rnd", "greedy"}
        assert page["failures"] == {"time": 0, "illegal": 0, "crash": 0, "stall": 0, "protocol": 0}
        game = page["recent"][0]
        status, text = get(url + game["jsonl"])
        assert status == 200 and json.loads(text.splitlines()[0])["id"] == game["match"]
        status, text = get(url + game["sgf"])
        assert status == 200 and text.startswith("(;")
        # a killed bot leaves the ladder; started again, it is back and plays
        bots["rnd"].process.send_signal(signal.SIGKILL)
        until(
            "rnd gone from the ladder",
            lambda: "rnd" not in get(f"{url}/api/ladders/ttt")[1]["now"]["bots"],
        )
        played = sum("rnd" in g[:2] for g in ladder_games(db))
        bots["rnd"] = bot(port, "rnd", BOTS["rnd"])
        stack.callback(bots["rnd"].kill)
        until("rnd plays again", lambda: sum("rnd" in g[:2] for g in ladder_games(db)) > played)
        status, listing = get(f"{url}/api/ladders")
        assert status == 200 and listing["ladders"][0]["name"] == "ttt"
        assert listing["ladders"][0]["move_time"] == 2.0
        assert server.process.poll() is None


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ladder-tc", "1s"], "--ladder-tc '1s': no --ladder to apply it to"),
        (["--ladder", "chess"], "ladder chess: unknown game 'chess'"),
        (["--ladder", "t=tictactoe", "--ladder-tc", "t=fast"], "is not a time control"),
        (["--ladder", "t=tictactoe", "--ladder-anchor", "gnugo"], "write [LADDER:]BOT=RATING"),
        (["--ladder", "t=tictactoe", "--ladder", "t=connect4"], "two ladders are named 't'"),
    ],
)
def test_bad_ladder_flags_are_one_line_errors(args: list[str], message: str) -> None:
    done = run("serve", "--no-db", "--port", str(free_port()), *args)
    assert done.returncode == 2
    assert message in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_play_refuses_a_time_control_with_a_ladder() -> None:
    done = run("play", "tictactoe", "random", "--ladder", "t", "--tc", "1+0")
    assert done.returncode == 2
    assert "a ladder has its own time control" in done.stderr, done.stderr
