"""Go in a real headless Chromium: the board at 9×9, 13×13 and 19×19, a person's game
against an engine by clicking, and the final score on the watch and replay pages.

Screenshots go to tests/web/artifacts/ (git-ignored), named go-*.png.
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from games.go import LETTERS, Go, GoState, result_text
from store import MatchRecord, MoveRecord, SqliteDatabase
from tests.web.browser import WebServer, chromium_path, screenshot, web_server

playwright_api = pytest.importorskip("playwright.sync_api")

TIMEOUT = 60_000  # ms
#: star points per board size (the 4-4 points, 3-3 below 13×13, centre, edge midpoints)
STARS = {9: 5, 13: 5, 19: 9}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    chromium_path()  # skip early without a browser
    with web_server(tmp_path_factory.mktemp("web-go"), "--engine", "random") as running:
        yield running


def played_out(game: Go, seed: int) -> tuple[GoState, list[int]]:
    """A game to its end by random playout moves (no own-eye filling: it ends by passes)."""
    state, rng, moves = game.initial_state(), random.Random(seed), []
    while not game.is_terminal(state):
        after = game.playout(state, rng, max_moves=1)
        move = after[6]
        moves.append(move)
        state = game.apply(state, move)
        assert state[:2] == after[:2]
    return state, moves


def stones(board: list[str]) -> int:
    return sum(row.count("X") + row.count("O") for row in board)


def check_board(page: Any, box: str, game: Go, state: GoState) -> None:
    """The board in `box` shows `state`: stones, star points, coordinates, last move, captures."""
    n = game.size
    svg = page.locator(f"{box} svg[data-game=go][data-size='{n}']")
    svg.wait_for()
    view = game.encode_view(state)
    assert svg.locator(".piece").count() == stones(view["board"])
    assert svg.locator(".piece.X").count() == sum(row.count("X") for row in view["board"])
    assert svg.locator(".star").count() == STARS[n]
    letters = list(LETTERS[:n])
    numbers = [str(n - i) for i in range(n)]
    for side, want in (
        ("top", letters),
        ("bottom", letters),
        ("left", numbers),
        ("right", numbers),
    ):
        assert svg.locator(f"text.coord.{side}").all_text_contents() == want, side
    last = state[6]
    if last >= 0:
        assert svg.locator(".last-move").get_attribute("data-cell") == str(last)
    else:
        assert svg.locator(".last-move").count() == 0
    note = page.locator(f"{box} .board-note").inner_text()
    assert f"captures: Black {state[7]}, White {state[8]}" in note, note
    if game.is_terminal(state):
        black, white = game.area(state)
        assert f"area: Black {black}, White {white}" in note, note


@pytest.mark.parametrize("size", [9, 13, 19])
def test_go_boards_draw_stones_stars_coordinates_and_the_last_move(
    server: WebServer, page: Any, size: int
) -> None:
    game = Go(size=size)
    state, rng = game.initial_state(), random.Random(size)
    while state[7] + state[8] == 0 or state[2] < size * size // 3:  # some captures
        state = game.playout(state, rng, max_moves=1)
        if game.is_terminal(state):
            state = game.initial_state()
    assert state[7] + state[8] > 0 and not game.is_terminal(state)
    legal = [game.encode_move(m) for m in game.legal_moves(state)]
    page.goto(server.url)
    page.get_by_role("heading", name="Lobby").wait_for()
    page.evaluate(
        """async ([state, legal]) => {
            const { drawBoard } = await import('/static/boards.js');
            const box = document.createElement('div');
            box.id = 'sample';
            box.className = 'board';
            document.getElementById('app').replaceChildren(box);
            drawBoard(box, { game: 'go', state, legal, last: state.last, onMove: null });
        }""",
        [game.encode_state(state), legal],
    )
    check_board(page, "#sample", game, state)
    assert page.locator("#sample svg .legal").count() == len(legal) - 1  # all but the pass
    screenshot(page, f"go-board-{size}.png")


def store_game(server: WebServer, match_id: str, game: Go, moves: list[int]) -> MatchRecord:
    """`moves` stored as a finished match between first-player (Black) and second-player."""
    now = time.time()
    state = game.initial_state()
    rows = []
    for ply, move in enumerate(moves):
        rows.append(MoveRecord(match_id, ply, ply % 2, move, game.format_move(move), 0.1, now, 0.5))
        state = game.apply(state, move)
    outcome = game.outcome(state)
    assert outcome is not None
    who = "draw" if outcome.winner is None else f"{game.seat_names[outcome.winner]} wins"
    record = MatchRecord(
        id=match_id,
        game="go",
        options=game.options,
        move_time=2.0,
        lag_margin=0.2,
        players=["first-player", "second-player"],
        status="finished",
        scores=list(outcome.scores),
        winner=outcome.winner,
        termination=outcome.termination.value,
        reason=f"{who} ({outcome.termination.value})",
        points=None if outcome.points is None else list(outcome.points),
        plies=len(moves),
        started_at=now - 10,
        ended_at=now,
        tournament=None,
    )
    store = SqliteDatabase(str(server.db))
    try:
        assert store.import_match(record, rows)
    finally:
        store.close()
    return record


@pytest.mark.parametrize("size", [9, 19])
def test_a_finished_go_game_shows_its_score_and_areas_on_watch_and_replay(
    server: WebServer, page: Any, size: int
) -> None:
    game = Go(size=size)
    state, moves = played_out(game, seed=11 + size)
    outcome = game.outcome(state)
    assert outcome is not None and outcome.winner is not None
    match_id = f"m-go-{size}"
    record = store_game(server, match_id, game, moves)
    # the replay API sends each ply's board, not the superko history that grows with it
    document = server.get(f"/api/matches/{match_id}")
    assert len(document["states"]) == len(moves) + 1
    assert all("history" not in s for s in document["states"])
    assert document["states"][-1]["area"] == list(game.area(state))
    winner = record.players[outcome.winner]
    headline = f"{winner} ({game.seat_names[outcome.winner]}) wins · {result_text(outcome)} · score"
    for address in (f"/watch/{match_id}", f"/replay/{match_id}"):
        page.goto(server.url + address)
        page.locator("#ply-slider").wait_for()
        assert page.locator("#result .headline").inner_text() == headline
        check_board(page, "#board", game, state)
        assert page.locator("#moves .mv .san").last.inner_text() == "pass"
        screenshot(page, f"go-finished-{size}{'-replay' if 'replay' in address else ''}.png")
    # stepping back a ply shows the position before it, its last move marked
    page.click("#first")
    check_board(page, "#board", game, game.initial_state())
    page.goto(f"{server.url}/replay/{match_id}?ply=40")
    page.locator("#ply-label").wait_for()
    early = game.initial_state()
    for move in moves[:40]:
        early = game.apply(early, move)
    check_board(page, "#board", game, early)


def start_go(page: Any, server: WebServer, size: int, name: str) -> None:
    """The Play form: Go at `size` against the random engine, the person as Black."""
    page.goto(f"{server.url}/play")
    page.locator("#play-form").wait_for()
    page.select_option("#game", "go")
    page.fill("input[name=opt-size]", str(size))
    page.select_option("#opponent", "random")
    page.select_option("#seat", "0")
    page.fill("#move-time", "30")
    page.fill("#name", name)
    page.click("#start")
    page.locator(f"#board svg[data-game=go][data-size='{size}']").wait_for()


def test_a_person_plays_go_by_clicking_passes_and_resigns(server: WebServer, page: Any) -> None:
    start_go(page, server, 9, "go-clicker")
    page.get_by_text("you play seat 0").wait_for()
    # the random engine may take any point: each click goes to the first still offered
    candidates = ["E5", "C3", "G7", "C7", "G3", "E3", "E7"]
    for _ in range(3):
        page.locator("#board svg .legal").first.wait_for()  # our turn: points are offered
        vertex = next(
            v for v in candidates if page.locator(f"#board svg .legal[aria-label={v}]").count()
        )
        candidates.remove(vertex)
        page.locator(f"#board svg .legal[aria-label={vertex}]").click()
        # our stone is on the board, marked as the last move until the engine answers
        cell = Go(size=9).parse_move(vertex)
        page.locator(f"#board svg .piece.X[data-cell='{cell}']").wait_for()
    page.locator("#board svg .legal").first.wait_for()
    screenshot(page, "go-play-9.png")
    page.locator("#pass").click()
    page.locator("#moves .mv .san", has_text="pass").first.wait_for()
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#resign").click()
    result = page.locator("#result .headline")
    result.wait_for()
    assert result.inner_text() == "random (White) wins · W+R · resignation · you lose"
    screenshot(page, "go-play-resigned.png")


def test_a_person_passes_to_the_end_and_sees_the_count(server: WebServer, page: Any) -> None:
    """On 5×5 the engine passes soon (or the move cap ends it): the game is counted."""
    start_go(page, server, 5, "go-passer")
    deadline = time.monotonic() + 60
    result = page.locator("#result .headline")
    while not result.is_visible():
        assert time.monotonic() < deadline, "the game did not end"
        button = page.locator("#pass")
        if button.is_visible():
            button.click()
        else:
            page.wait_for_timeout(20)
    text = result.inner_text()
    assert re.fullmatch(
        r"(go-passer \(Black\)|random \(White\)) wins · [BW]\+\d+(\.5)? · score"
        r" · you (win|lose)|Draw · score · draw",
        text,
    ), text
    page.locator("#board .board-note", has_text="area: Black").wait_for()
    screenshot(page, "go-play-counted.png")
