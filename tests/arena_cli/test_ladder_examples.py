"""docs/LADDER.md's examples, run as written: the servers of its ladders, a bot joining
one, the rating list read with curl and jq.

Placeholders are filled as tests/arena_cli/examples.py says (the web port
8080 and the server's port free ones, ``SERVER`` this machine). What is
checked is what the server says it runs, read from its JSON API, rather than
games played to their end: the documented agents search (an MCTS bot at
0.4 s a move, GNU Go at 5 minutes a game), and a first MCTS start may compile
its search for a minute. The games themselves are tested with cheap agents
in test_ladder_cmd.py and tests/server/test_ladder_residents.py. GNU Go's
example skips without gnugo (fails under ARENA_REQUIRE_ENGINES=1).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.arena_cli.cli import Arena, clean_env, free_port
from tests.arena_cli.examples import argv, substitute
from tests.arena_cli.test_ladder_cmd import get, until
from tests.arena_cli.test_readme_sections import served, sh
from tests.server.test_ladder_residents import alive_in, resident_sessions

SERVE = (
    "arena serve --db ladder.sqlite --web 8080 --ladder c4=connect4 --ladder-tc c4=0.5s"
    " --ladder 'go9=go:size=9' --ladder-tc 'go9=5+0' --ladder-anchor go9:gnugo=1800"
)
RESIDENTS = (
    "arena serve --db go.sqlite --web 8080 --ladder go9=go:size=9 --ladder-tc go9=5+0"
    " --ladder-anchor go9:gnugo=1800"
    " --ladder-resident 'go9=gnugo@engine:cmd=gnugo,args=--mode gtp --level 10,protocol=gtp'"
    " --ladder-resident 'go9=mcts-1s@mcts:time=1'"
)
#: what the server runs for each resident (its process's command line is checked)
RESIDENT_PLAYS = "arena play GAME AGENTSPEC --ladder NAME --name BOT"
JOIN = "arena play connect4 mcts:time=0.4 --ladder c4 --name my-bot-1.0 --host SERVER"
CURL = (
    "curl -s localhost:8080/api/ladders/c4"
    " | jq '.ratings[] | [.rank, .bot, .rating, .margin, .games]'"
)

SCENARIOS = {
    SERVE: "test_two_ladders_and_their_rating_list_read_with_curl",
    CURL: "test_two_ladders_and_their_rating_list_read_with_curl",
    JOIN: "test_a_bot_joins_the_connect_four_ladder",
    RESIDENTS: "test_gnugo_and_an_mcts_bot_hosted_as_residents",
    RESIDENT_PLAYS: "test_gnugo_and_an_mcts_bot_hosted_as_residents",
}


@contextmanager
def ladder_server(
    example: str, cwd: Path, **env: str
) -> Iterator[tuple[Arena, str, dict[str, str]]]:
    """The `arena serve` example on free ports, until its web API answers: the server,
    the API's base URL and the environment its bots need ($ARENA_PORT)."""
    web = str(free_port())
    environ = clean_env(ARENA_PORT=str(free_port()), ARENA_LADDER_RATING_INTERVAL="0.3", **env)
    with served(argv(example, **{"8080": web}), cwd, environ) as server:
        url = f"http://127.0.0.1:{web}"
        until("the web API", lambda: get(f"{url}/api/ladders")[0] == 200)
        yield server, url, {"ARENA_PORT": environ["ARENA_PORT"]}


def ladders(url: str) -> dict[str, dict[str, Any]]:
    status, listing = get(f"{url}/api/ladders")
    assert status == 200, listing
    return {row["name"]: row for row in listing["ladders"]}


def now(url: str, name: str) -> dict[str, Any]:
    status, doc = get(f"{url}/api/ladders/{name}")
    assert status == 200, doc
    return doc["now"]  # type: ignore[no-any-return]


def bot(name: str, spec: str, env: dict[str, str]) -> Arena:
    return Arena("play", "connect4", spec, "--ladder", "c4", "--name", name, env=clean_env(**env))


def jq_rows(text: str) -> list[Any]:
    """jq's output: one JSON value after the other."""
    decoder, values, at = json.JSONDecoder(), [], 0
    while text[at:].strip():
        at += len(text[at:]) - len(text[at:].lstrip())
        value, at = decoder.raw_decode(text, at)
        values.append(value)
    return values


def test_two_ladders_and_their_rating_list_read_with_curl(tmp_path: Path) -> None:
    with ladder_server(SERVE, tmp_path) as (_, url, env), ExitStack() as stack:
        # the terms as written: connect four at 0.5 s a move; 9x9 Go on a 5+0 clock, GNU Go
        # its anchor at 1800 (the list is centred on it once it plays)
        listed = ladders(url)
        assert list(listed) == ["c4", "go9"]
        c4, go9 = listed["c4"], listed["go9"]
        assert (c4["game"], c4["move_time"], c4["clock"], c4["anchors"]) == (
            "connect4", 0.5, None, {}
        )  # fmt: skip
        assert (go9["game"], go9["options"]["size"], go9["move_time"]) == ("go", 9, None)
        assert go9["clock"] == {"initial": 300.0, "increment": 0.0}
        assert go9["anchors"] == {"gnugo": 1800.0}
        for name in ("r1", "r2"):
            stack.callback(bot(name, "random", env).kill)

        def rated() -> dict[str, Any] | None:
            doc = get(f"{url}/api/ladders/c4")[1]
            return doc if doc["rated_games"] >= 2 and len(doc["ratings"]) == 2 else None

        until("two rated games of r1 and r2", rated)
        if shutil.which("curl") is None or shutil.which("jq") is None:
            pytest.skip("curl or jq is not installed")
        # the list as the doc reads it; the bots play on: read it and the API until they agree
        for _ in range(50):
            done = sh(substitute(CURL, **{"8080": url.rsplit(":", 1)[1]}), tmp_path)
            assert done.returncode == 0, done.stderr
            shown = jq_rows(done.stdout)
            doc = rated()
            assert doc is not None
            wanted = [
                [r[k] for k in ("rank", "bot", "rating", "margin", "games")] for r in doc["ratings"]
            ]
            if shown == wanted:
                break
        assert shown == wanted
        assert [row[:2] for row in shown] in ([[1, "r1"], [2, "r2"]], [[1, "r2"], [2, "r1"]])
        assert all(row[4] >= 2 for row in shown)


def test_a_bot_joins_the_connect_four_ladder(tmp_path: Path) -> None:
    """It plays the ladder's games at the ladder's time control (it names none)."""
    with ladder_server(SERVE, tmp_path) as (_, url, env), ExitStack() as stack:
        mine = Arena(*argv(JOIN, SERVER="127.0.0.1"), cwd=tmp_path, env=clean_env(**env))
        stack.callback(mine.kill)
        stack.callback(bot("rival", "random", env).kill)

        def playing() -> dict[str, Any] | None:
            live = get(f"{url}/api/live")[1]
            found = [m for m in live["matches"] if set(m["players"]) == {"my-bot-1.0", "rival"}]
            return found[0] if found else None

        # a first MCTS start compiles its search (numba, cached in the source tree's
        # __pycache__ for every later start): minutes on a loaded machine, seconds after
        match = until(
            "my-bot-1.0 paired with rival",
            playing,
            timeout=300,
            about=lambda: (mine.stdout + mine.stderr)[-2000:],
        )
        assert match["game"] == "connect4" and match["move_time"] == 0.5
        assert "my-bot-1.0" in now(url, "c4")["bots"]
        assert mine.process.poll() is None, mine.stderr


def test_gnugo_and_an_mcts_bot_hosted_as_residents(tmp_path: Path, gnugo: str) -> None:
    """Both are started as `arena play GAME AGENTSPEC --ladder NAME --name BOT` against the
    server's port; GNU Go (`cmd=gnugo`, found on PATH) connects. The MCTS resident may
    still be compiling its search (it connects after that): it is running."""
    path = f"{os.path.dirname(gnugo)}{os.pathsep}{os.environ.get('PATH', '')}"
    with ladder_server(RESIDENTS, tmp_path, PATH=path, ARENA_LOG_FORMAT="json") as (
        server,
        url,
        _,
    ):
        go9 = ladders(url)["go9"]
        assert go9["clock"] == {"initial": 300.0, "increment": 0.0}
        assert go9["anchors"] == {"gnugo": 1800.0}
        seen = until(
            "GNU Go connected to its ladder",
            lambda: "gnugo" in (n := now(url, "go9"))["bots"] and n,
            about=lambda: server.stdout[-2000:],
        )
        assert seen["residents"] == [
            {"bot": bot, "running": True, "restarts": 0, "last_exit": None}
            for bot in ("gnugo", "mcts-1s")
        ]
        status, page = get(f"{url}/api/ladders/go9/bots/gnugo")
        assert status == 200 and page["resident"] == seen["residents"][0]
        # each resident's process: `arena play go AGENTSPEC --ladder go9 --name BOT`
        specs = {
            "gnugo": "engine:cmd=gnugo,args=--mode gtp --level 10,protocol=gtp",
            "mcts-1s": "mcts:time=1",
        }
        sessions = until(
            "both residents started", lambda: len(s := resident_sessions(server)) == 2 and s
        )
        commands = {}
        for pid in sessions:  # (its watcher's /bin/sh until it execs: the same arguments)
            words = cmdline(pid)
            play = words[words.index("play") :]
            commands[play[play.index("--name") + 1]] = play
        assert set(commands) == set(specs)
        for name, play in commands.items():
            assert play[1:3] == ["go", specs[name]]
            assert play[play.index("--ladder") + 1] == "go9"
    until("no resident left", lambda: not alive_in(sessions), timeout=5)


def cmdline(pid: int) -> list[str]:
    """The arguments process `pid` runs with."""
    with open(f"/proc/{pid}/cmdline", "rb") as file:
        return file.read().decode().split("\0")[:-1]
