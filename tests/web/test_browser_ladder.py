"""The ladder pages in a real headless Chromium: every ladder, one ladder's rating list with
the games now and the latest, a bot's page with its rating over time and its downloads.

A real `arena serve --ladder --web` on a records file holding 48 past games
of four bots (tests/web/ladder_records.py: three strengths and an engine
that crashes; one bot's name is markup with quotes), and two MCTS bots
playing over TCP while the pages are open. Screenshots go to
tests/web/artifacts/ (git-ignored).
"""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.browser import WebServer, chromium_path, screenshot, web_server
from tests.web.ladder_records import write_ladder
from tests.web.test_ladders import BOTS, GAMES, HOSTILE, LADDER, bot_path, ladder_bot

playwright_api = pytest.importorskip("playwright.sync_api")

LIVE = ("live-a", "live-b")
#: hosted by the server on the c4 ladder: one that crashes at its first move, its opponent
RESIDENTS = [
    "--ladder-resident", "c4=c4-crashy@faulty:crash_after=0",
    "--ladder-resident", "c4=c4-rnd@random",
]  # fmt: skip
#: the rating chart as drawn, read at once (the page redraws itself every few seconds)
CHART = """() => { const svg = document.querySelector('#history svg.rating-chart');
    const line = svg.querySelector('path.line');
    return {d: line.getAttribute('d'), points: line.getAttribute('data-points'),
            dots: svg.querySelectorAll('circle.dot').length,
            bands: svg.querySelectorAll('polygon.band').length}; }"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    chromium_path()  # skip early without a browser
    tmp = tmp_path_factory.mktemp("ladder")
    write_ladder(tmp / "arena.sqlite", "ttt", BOTS, GAMES)
    # refitted every 3 s: the page (refreshed every 5 s) and the API agree between two fits
    env = {"ARENA_LADDER_RATING_INTERVAL": "3"}
    with web_server(tmp, *LADDER, *RESIDENTS, env=env) as running:
        # two searchers that take their time: a game is being played most of the time
        bots = [ladder_bot(running, name, "mcts:time=0.3,engine=python") for name in LIVE]
        try:
            deadline = time.monotonic() + 60
            while not running.get(bot_path("strong"))["history"]:
                assert time.monotonic() < deadline, "the ladder's history was not fitted"
                time.sleep(0.1)
            yield running
        finally:
            for bot in bots:
                bot.kill()
                bot.wait()


def js(value: float) -> str:
    """`value.toFixed(0)` (halves up, where Python's format rounds them to even)."""
    return str(math.floor(value + 0.5))


def row_texts(row: dict[str, Any]) -> list[str]:
    """A rating list row as the page writes it."""
    margin = row["margin"]
    if row["anchor"]:
        spread, interval = "fixed", ""
    elif margin is None:
        spread, interval = "-", "no games"
    else:
        spread = f"±{js(margin)}"
        interval = f"{js(row['rating'] - margin)} – {js(row['rating'] + margin)}"
    return [
        str(row["rank"]),
        row["bot"] + ("anchor" if row["anchor"] else "") + ("●" if row["bot"] in LIVE else ""),
        js(row["rating"]),
        spread,
        interval,
        str(row["games"]),
        *[
            str(row["failures"][kind] or "·")
            for kind in ("time", "illegal", "crash", "stall", "protocol")
        ],
    ]


def test_the_ladder_list_and_a_ladders_rating_list(server: WebServer, page: Any) -> None:
    page.goto(f"{server.url}/ladders")
    for name in ("ttt", "c4"):  # every ladder, with its terms
        page.locator(f"#ladders tr[data-ladder='{name}']").wait_for()
    assert "tictactoe" in page.locator("#ladders tr[data-ladder='ttt']").inner_text()
    page.locator("#ladders a", has_text="ttt").click()
    page.wait_for_url(f"{server.url}/ladders/ttt")
    page.get_by_role("heading", name="Ladder ttt").wait_for()
    page.locator("#ratings tr[data-bot='strong']").wait_for()
    # the list as the API has it: rank, rating, margin, interval, games, failures (the live
    # bots' games refit it every few seconds: read both until they agree)
    for _ in range(100):
        doc = server.get("/api/ladders/ttt")
        shown = [
            page.locator("#ratings tbody tr").nth(n).locator("td").all_inner_texts()
            for n in range(len(doc["ratings"]))
        ]
        wanted = [row_texts(row) for row in doc["ratings"]]
        if shown == wanted:
            break
        page.wait_for_timeout(200)
    assert shown == wanted
    crasher = page.locator("#ratings tr[data-bot='crasher'] td[data-failure='crash']")
    assert crasher.inner_text() == str(GAMES // 2)
    assert "first-move advantage" in page.locator("#model").inner_text()
    assert "draw Elo" in page.locator("#model").inner_text()
    # the games being played, each linked to its live view
    watch = page.locator("#playing a[href^='/watch/']").first
    watch.wait_for()
    assert all(name in page.locator("#playing").inner_text() for name in LIVE)
    # the latest games, newest first, each with its replay and downloads
    games = page.locator("#recent tbody tr")
    assert games.count() >= 40
    assert page.locator("#recent tbody tr").first.locator("a.jsonl").count() == 1
    assert page.locator("#recent a.sgf").count() == games.count()
    # the hostile name is text, never markup
    link = page.locator("#ratings td.bot a").filter(has_text="pwned").first
    assert link.inner_text() == HOSTILE
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.locator("#ratings img, #ratings script").count() == 0
    screenshot(page, "ladder.png")


def test_a_bots_page_with_its_rating_over_time(server: WebServer, page: Any) -> None:
    page.goto(f"{server.url}/ladders/ttt")
    page.locator("#ratings td.bot a").filter(has_text="pwned").first.click()
    page.locator("#history svg.rating-chart").wait_for()
    assert page.locator("h1 .bot-name").inner_text() == HOSTILE
    assert page.evaluate("typeof window.pwned") == "undefined"
    # the chart: one path through every point of the history, a dot each, the band (the
    # live games move the history on: read the page and the API until they agree)
    for _ in range(100):
        doc = server.get(bot_path(HOSTILE))
        history = doc["history"]
        chart = page.evaluate(CHART)
        if chart["points"] == str(len(history)):
            break
        page.wait_for_timeout(200)
    assert chart["points"] == str(len(history)) and len(history) >= 15
    assert len(re.findall(r"[ML]", chart["d"])) == len(history)
    assert chart["dots"] == len(history) and chart["bands"] == 1
    rating = doc["rating"]
    assert (
        page.locator("#rating").inner_text() == f"{js(rating['rating'])} ± {js(rating['margin'])}"
    )
    # results by opponent, as W / D / L and a score
    for row in doc["by_opponent"]:
        cells = page.locator("#opponents tr").filter(has_text=row["opponent"]).locator("td")
        assert cells.nth(2).inner_text() == f"{row['wins']} / {row['draws']} / {row['losses']}"
        assert cells.nth(3).inner_text() == f"{js(row['score'] * 100)}%"
    # its games, each with a JSONL and an SGF record to download: fetch one of each
    first = page.locator("#games tbody tr").first
    jsonl = first.locator("a.jsonl").get_attribute("href")
    sgf = first.locator("a.sgf").get_attribute("href")
    match = first.get_attribute("data-match")
    response = page.request.get(server.url + jsonl)
    assert response.ok
    assert "attachment" in response.headers["content-disposition"]
    record = json.loads(response.text().splitlines()[0])
    assert record["id"] == match and HOSTILE in record["players"]
    response = page.request.get(server.url + sgf)
    assert response.ok and response.text().startswith("(;")
    assert HOSTILE.replace("]", "\\]") in response.text()
    screenshot(page, "ladder-bot.png")


def test_a_crashing_engines_failures_on_its_page(server: WebServer, page: Any) -> None:
    page.goto(f"{server.url}/ladders/ttt/bots/crasher")
    page.locator("#failures tr[data-failure='crash']").wait_for()
    assert page.locator("#failures tr[data-failure='crash'] td").inner_text() == str(GAMES // 2)
    assert page.locator("#failures tr[data-failure='time'] td").inner_text() == "0"
    crash = page.locator("#games tbody tr").filter(has_text="crash").first
    assert "exited (code 5)" in (crash.locator("td").nth(3).get_attribute("title") or "")
    page.goto(f"{server.url}/ladders/ttt/bots/nobody")
    page.get_by_text("no bot 'nobody' in ladder 'ttt'").wait_for()


def resident_text(resident: dict[str, Any]) -> str:
    """A resident row as the bot page writes it."""
    restarts = resident["restarts"]
    parts = ["resident", None if resident["running"] else "waiting to restart"]
    parts += [f"{restarts} restart{'' if restarts == 1 else 's'}"]
    parts += [resident["last_exit"] and f"last exit: {resident['last_exit']}"]
    return " · ".join(part for part in parts if part)


def test_a_residents_restarts_on_its_page(server: WebServer, page: Any) -> None:
    page.goto(f"{server.url}/ladders/c4/bots/c4-crashy")
    page.locator("#resident").wait_for()
    # the page as the API has it, once the resident crashed (the page refreshes every 5 s)
    for _ in range(150):
        doc = server.get("/api/ladders/c4/bots/c4-crashy")
        shown = page.locator("#resident").inner_text()
        if doc["resident"]["restarts"] and shown == resident_text(doc["resident"]):
            break
        page.wait_for_timeout(200)
    assert shown == resident_text(doc["resident"]), (shown, doc["resident"])
    assert re.fullmatch(
        r"resident( · waiting to restart)? · \d+ restarts? · last exit: exit code 3", shown
    )
    page.goto(f"{server.url}/ladders/ttt/bots/strong")  # a bot the server does not host
    page.locator("h1 .bot-name").wait_for()
    assert page.locator("#resident").count() == 0


def test_an_unknown_ladder_says_so(server: WebServer, page: Any) -> None:
    page.goto(f"{server.url}/ladders/nope")
    page.get_by_text("no ladder 'nope'").wait_for()
