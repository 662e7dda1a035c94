"""The web app of one node shows a match played on another (several servers, one database).

A real Chromium on node A's lobby page, a match played by two `arena play`
players on node B, both nodes on a real PostgreSQL: the lobby lists B's match,
its link opens the watch page, and the page shows every move, relayed from
the database, and the result.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.server.serverproc import ServerProcess, start_server
from tests.server.test_cluster_watch import web_url
from tests.web.browser import ARENA, ROOT, screenshot
from tests.web.test_browser import MOVE_LIST, TIMEOUT, by_move

pytestmark = pytest.mark.slow


def b_log_line(server: ServerProcess, match_id: str) -> str:
    """The log line of the node that started `match_id` ("" if it did not)."""
    assert server.log is not None
    for line in server.log.read_text(errors="replace").splitlines():
        if '"match_start"' in line and match_id in line:
            return line
    return ""


def engine(port: int, seat: int, name: str, think: str) -> subprocess.Popen[bytes]:
    room = ["--room", "cluster-c4", "--move-time", "1.5", "-o", "width=9", "-o", "height=8"]
    room += ["-o", "k=5", "--seat", str(seat), "--name", name, "--port", str(port)]
    return subprocess.Popen(
        # minimax (pure Python) spends its time on every move: no compilation to wait for
        [*ARENA, "play", "connect4", f"minimax:depth=40,time={think}", *room, "--games", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "ARENA_LOG_LEVEL": "warning"},
        cwd=ROOT,
    )


def test_the_lobby_of_one_node_watches_a_match_of_another(
    tmp_path: Path,
    postgres_url: str,
    page: Any,
) -> None:
    env = {"ARENA_NODE_LEASE": "5"}
    a = start_server(postgres_url, log=tmp_path / "a.log", env=env, extra=["--web", "127.0.0.1:0"])
    b = start_server(postgres_url, log=tmp_path / "b.log", env=env)
    players: list[subprocess.Popen[bytes]] = []
    try:
        url = web_url(a)
        page.goto(url)
        page.get_by_role("heading", name="Lobby").wait_for()
        players = [engine(b.port, 0, "mini", "0.2"), engine(b.port, 1, "rival", "0.2")]
        link = page.locator('#live a[href^="/watch/"]')
        link.wait_for(timeout=TIMEOUT)  # B's match, in A's lobby
        match_id = link.get_attribute("href").rsplit("/", 1)[1]
        link.click()
        page.locator("#board svg[data-game=connect4]").wait_for()
        page.locator("#players").get_by_text("rival").wait_for()
        screenshot(page, "cluster-watch-live.png")
        result = page.locator("#result")
        result.wait_for(state="visible", timeout=TIMEOUT)
        screenshot(page, "cluster-watch-end.png")
        assert re.search(r"(mini|rival) \([XO]\) wins|Draw", result.inner_text())
        for process in players:
            assert process.wait(timeout=30) == 0
        with urllib.request.urlopen(f"{url}/api/matches/{match_id}", timeout=10) as response:
            record = json.loads(response.read())
        # every move was seen on A's page, in order, as B recorded it
        page.wait_for_function(MOVE_LIST, arg=by_move([m["notation"] for m in record["moves"]]))
        # then the finished game, from the shared record, at the same address
        page.locator("#ply-slider").wait_for()
        assert page.url == f"{url}/watch/{match_id}"
        assert page.locator("#board .piece").count() == record["match"]["plies"]
        played_on_b = '"match_start"' in b_log_line(b, match_id)
        assert played_on_b and record["match"]["status"] == "finished"
    finally:
        for process in players:
            if process.poll() is None:
                process.kill()
        for server in (a, b):
            if server.alive():
                server.process.kill()
                server.process.wait()
