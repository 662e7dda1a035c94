"""The ladder JSON API (server/web/ladders.py) of a real `arena serve --ladder --web`: a
ladder's past games in its records file, then bots playing new ones over TCP.

The bot page's `history` (the rating over time, server/ladder_history.py) is
read after the server started on 48 recorded games, and again after new
games arrived: its newest point moves to the newest game.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from server.ladder_history import prefix_counts
from tests.web.browser import ARENA, ROOT, WebServer, web_server
from tests.web.ladder_records import write_ladder

#: a name its owner chose to break pages: markup, quotes, a slash (64 characters at most)
HOSTILE = "<script>pwned=1</script><img src=x onerror=pwned=2>\"'"
BOTS = ["strong", "medium", HOSTILE, "crasher"]
GAMES = 48
LADDER = [
    "--ladder",
    "ttt=tictactoe",
    "--ladder-tc",
    "ttt=2s",
    "--ladder-anchor",
    "ttt:medium=1500",
]
LADDER += ["--ladder", "c4=connect4"]


def get(server: WebServer, path: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(server.url + path, timeout=10) as response:
            body = response.read().decode()
            kind = response.headers.get("Content-Type", "")
            return response.status, json.loads(body) if kind == "application/json" else body
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read().decode())


def bot_path(bot: str) -> str:
    return f"/api/ladders/ttt/bots/{urllib.parse.quote(bot, safe='')}"


def until(what: str, check: Callable[[], Any], timeout: float = 60.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if found := check():
            return found
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout:g}s: {what}")


def ladder_bot(server: WebServer, name: str, spec: str) -> subprocess.Popen[bytes]:
    """`arena play tictactoe SPEC --ladder ttt`: plays the ladder's games until killed."""
    return subprocess.Popen(
        [*ARENA, "play", "tictactoe", spec, "--port", str(server.tcp_port), "--name", name,
         "--ladder", "ttt"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        env={**os.environ, "ARENA_LOG_LEVEL": "warning"}, cwd=ROOT,
    )  # fmt: skip


@pytest.fixture
def server(tmp_path: Path) -> Iterator[WebServer]:
    write_ladder(tmp_path / "arena.sqlite", "ttt", BOTS, GAMES)
    write_ladder(tmp_path / "arena.sqlite", "c4", ["strong", "weak"], 2, game="connect4")
    env = {"ARENA_LADDER_RATING_INTERVAL": "0.2"}
    with web_server(tmp_path, *LADDER, env=env) as running:
        # the history follows the list's fit, in its own worker thread
        until("the recorded games rated", lambda: get(running, bot_path("strong"))[1]["history"])
        yield running


def test_a_bots_rating_over_time_follows_the_games(server: WebServer) -> None:
    status, doc = get(server, "/api/ladders/ttt")
    assert status == 200 and doc["rated_games"] == GAMES
    recent = doc["recent"]
    ended = sorted(game["ended_at"] for game in recent)
    rows = {row["bot"]: row for row in doc["ratings"]}
    assert set(rows) == set(BOTS) and rows["medium"]["anchor"]
    assert rows["crasher"]["failures"]["crash"] == GAMES // 2
    assert [game["sgf"] is not None for game in recent] == [True] * len(recent)

    status, page = get(server, bot_path("strong"))
    assert status == 200
    history = page["history"]
    # a point per prefix, but those too early to rate anyone (the first mover won every
    # game: no finite margin); the anchor played in the first game
    assert 20 <= len(history) <= len(prefix_counts(GAMES))
    assert [p["games"] for p in history] == sorted(p["games"] for p in history)
    assert history[-1]["time"] == ended[-1]  # the newest point is the newest game
    assert all(p["time"] is not None and p["margin"] > 0 for p in history)
    assert len(history) == len({p["time"] for p in history})
    # ... and is the list itself
    assert history[-1]["games"] == rows["strong"]["games"]
    assert history[-1]["rating"] == rows["strong"]["rating"]
    assert history[-1]["margin"] == rows["strong"]["margin"]
    status, anchored = get(server, bot_path("medium"))
    assert {p["rating"] for p in anchored["history"]} == {1500.0}

    # a name with markup, quotes and a slash is one bot, as written
    status, hostile = get(server, bot_path(HOSTILE))
    assert status == 200 and hostile["bot"] == HOSTILE and hostile["history"]
    assert {row["opponent"] for row in hostile["by_opponent"]} == set(BOTS) - {HOSTILE}
    assert get(server, bot_path("nobody"))[0] == 404

    # new games arrive: the history is refitted, its newest point is the newest game
    bots = [ladder_bot(server, name, "random") for name in ("rnd1", "rnd2")]
    try:
        until(
            "six new games rated",
            lambda: get(server, "/api/ladders/ttt")[1]["rated_games"] >= GAMES + 6,
        )
    finally:
        for bot in bots:
            bot.kill()
            bot.wait()

    def settled() -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]] | None:
        """The list, rnd1's page and strong's, once they agree (the history follows the fit;
        a game the killed bots left may still end, after their reconnect grace)."""
        doc = get(server, "/api/ladders/ttt")[1]
        rows = {row["bot"]: row for row in doc["ratings"]}
        status, page = get(server, bot_path("rnd1"))
        strong = get(server, bot_path("strong"))[1]
        if status != 200 or not page["history"] or "rnd1" not in rows:
            return None
        last = page["history"][-1]
        newest = max(g["ended_at"] for g in doc["recent"] if g["status"] == "finished")
        fresh = (last["games"], last["rating"]) == (rows["rnd1"]["games"], rows["rnd1"]["rating"])
        moved = last["time"] == strong["history"][-1]["time"] == newest
        return (doc, page, strong) if fresh and moved else None

    doc, page, strong = until("the history of the new games", settled)
    assert doc["rated_games"] >= GAMES + 6
    assert page["history"][-1]["games"] >= 6
    assert 10 <= len(strong["history"]) <= len(prefix_counts(doc["rated_games"]))


def test_every_ladder_is_listed_and_sgf_only_where_the_game_has_it(server: WebServer) -> None:
    status, listing = get(server, "/api/ladders")
    assert status == 200
    assert [(row["name"], row["game"]) for row in listing["ladders"]] == [
        ("ttt", "tictactoe"),
        ("c4", "connect4"),
    ]
    status, doc = get(server, "/api/ladders/ttt")
    game = doc["recent"][0]
    status, text = get(server, game["jsonl"])
    assert status == 200 and json.loads(text.splitlines()[0])["id"] == game["match"]
    status, text = get(server, game["sgf"])
    assert status == 200 and text.startswith("(;")
    # connect four has no SGF standard: its games have the JSONL download only
    status, c4 = get(server, "/api/ladders/c4")
    assert status == 200 and c4["rated_games"] == 2 and len(c4["recent"]) == 2
    assert all(g["sgf"] is None and g["jsonl"].endswith(".jsonl") for g in c4["recent"])
    status, bot = get(server, "/api/ladders/c4/bots/weak")
    assert status == 200 and [g["sgf"] for g in bot["recent"]] == [None, None]


def test_a_residents_page_shows_its_restarts(tmp_path: Path) -> None:
    """A resident that crashes at its first move (exit code 3) beside one that plays: each
    one's page carries its resident row, as the ladder's `now.residents` has it; a bot the
    server does not host has none."""
    write_ladder(tmp_path / "arena.sqlite", "ttt", ["strong", "medium"], 4)
    residents = ["--ladder-resident", "ttt=crashy@faulty:crash_after=0"]
    residents += ["--ladder-resident", "ttt=steady@random"]
    env = {"ARENA_LADDER_RATING_INTERVAL": "0.2", "ARENA_LADDER_REPEAT_WAIT": "0.5"}
    with web_server(tmp_path, *LADDER, "--reconnect-grace", "1", *residents, env=env) as server:

        def restarted() -> dict[str, Any] | None:
            status, page = get(server, bot_path("crashy"))
            return page if status == 200 and page["resident"]["restarts"] >= 1 else None

        page = until("crashy restarted after its crash", restarted)
        assert page["resident"]["bot"] == "crashy"
        assert page["resident"]["last_exit"] == "exit code 3"
        assert isinstance(page["resident"]["running"], bool)
        status, doc = get(server, "/api/ladders/ttt")
        (listed,) = [r for r in doc["now"]["residents"] if r["bot"] == "crashy"]
        assert listed["restarts"] >= page["resident"]["restarts"]
        assert listed["last_exit"] == "exit code 3"
        status, steady = get(server, bot_path("steady"))
        assert status == 200 and steady["resident"] == {
            "bot": "steady",
            "running": True,
            "restarts": 0,
            "last_exit": None,
        }
        status, strong = get(server, bot_path("strong"))
        assert status == 200 and strong["resident"] is None
        assert get(server, bot_path("nobody"))[0] == 404
