"""Two people mark Go's dead stones in two real headless Chromium pages (the Play page).

Both seek 5×5 Go from the Play page (each says ``hello.human``) and play by clicking
to two passes. Black clicks White's stone at A3 (marked dead on both pages), White
resumes and passes again, Black marks it again, both Accept, and the result counts
without it. Screenshots go to tests/web/artifacts/ (git-ignored), go-marking-*.png.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from games.go import Go
from tests.web.browser import WebServer, chromium_path, screenshot, web_server

playwright_api = pytest.importorskip("playwright.sync_api")

TIMEOUT = 60_000  # ms
GAME = Go(size=5, komi=0.5)
#: Black walls column C, White column D, then White drops a stone at A3 in Black's area
MOVES = ["C1", "D1", "C2", "D2", "C3", "D3", "C4", "D4", "C5", "D5", "pass", "A3", "pass", "pass"]
A3 = GAME.parse_move("A3")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    chromium_path()  # skip early without a browser
    with web_server(tmp_path_factory.mktemp("web-go-marking")) as running:
        yield running


@pytest.fixture
def pages() -> Iterator[list[Any]]:
    executable = chromium_path()
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        errors: list[str] = []
        opened = []
        for _ in range(2):  # two contexts: each page keeps its own seat in localStorage
            context = chromium.new_context(viewport={"width": 1200, "height": 900})
            page = context.new_page()
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.set_default_timeout(TIMEOUT)
            opened.append(page)
        yield opened
        chromium.close()
    assert not errors, f"JavaScript errors: {errors}"


def seek(page: Any, server: WebServer, name: str) -> None:
    page.goto(f"{server.url}/play")
    page.locator("#play-form").wait_for()
    page.select_option("#game", "go")
    page.fill("input[name=opt-size]", "5")
    page.fill("input[name=opt-komi]", "0.5")
    page.fill("#move-time", "30")
    page.fill("#name", name)
    page.click("#start")


def play(page: Any, vertex: str) -> None:
    """Click `vertex` (or the pass button) once it is this page's turn."""
    page.locator("#board svg .legal").first.wait_for()
    if vertex == "pass":
        page.locator("#pass").click()
    else:
        page.locator(f"#board svg .legal[aria-label={vertex}]").click()


def test_two_people_mark_dead_stones_resume_and_agree_in_the_browser(
    server: WebServer, pages: list[Any]
) -> None:
    seek(pages[0], server, "ann")
    seek(pages[1], server, "bob")
    seats = {}
    for page in pages:
        page.get_by_text("you play seat").wait_for()
        seat = page.locator("#app .muted", has_text="you play seat").first.inner_text()
        seats[int(seat.rsplit(" ", 1)[1])] = page
    black, white = seats[0], seats[1]
    names = ["ann", "bob"] if black is pages[0] else ["bob", "ann"]
    for ply, vertex in enumerate(MOVES):
        play((black, white)[ply % 2], vertex)

    # both passed: Accept and Resume on both pages, nothing marked yet
    for page in (black, white):
        page.locator("#accept").wait_for()
        page.locator("#board .board-note", has_text="both passed: 0 dead marked").wait_for()
    black.locator(f"#board svg .markable[data-point='{A3}']").click()
    for page in (black, white):
        page.locator(f"#board svg .dead[data-cell='{A3}']").wait_for()
        page.locator("#board .board-note", has_text="Black 15, White 10 · B+4.5").wait_for()
    screenshot(black, "go-marking-marked.png")

    # White plays on instead: the pass is taken back, and White passes again
    white.locator("#resume").click()
    play(white, "pass")
    for page in (black, white):
        page.locator("#board .board-note", has_text="both passed: 0 dead marked").wait_for()
    black.locator(f"#board svg .markable[data-point='{A3}']").click()
    white.locator(f"#board svg .dead[data-cell='{A3}']").wait_for()
    white.locator("#accept").click()
    black.locator("#status", has_text=f"{names[1]} accepted").wait_for()
    black.locator("#accept").click()
    for page, verdict in ((black, "you win"), (white, "you lose")):
        result = page.locator("#result .headline")
        result.wait_for()
        assert result.inner_text() == f"{names[0]} (Black) wins · B+4.5 · score · {verdict}"
        detail = page.locator("#result .detail").inner_text()
        assert "with 1 dead stone taken off (A3): both agreed" in detail
    screenshot(black, "go-marking-agreed.png")
