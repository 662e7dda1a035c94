"""The web pages in a real headless Chromium (Playwright driving the system browser).

Screenshots go to tests/web/artifacts/ (git-ignored).
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from games import make_game
from protocol.messages import Clock
from store import MatchRecord, MoveRecord, SqliteDatabase
from store.matches import MatchTags
from tests.web.browser import WebServer, chromium_path, screenshot, start_player, web_server
from tests.web.test_api import add_tournament

playwright_api = pytest.importorskip("playwright.sync_api")

TIMEOUT = 60_000  # ms
#: the move list as read by a user, a row a move: "1. 4 3|2. 5 5|3. 4"
MOVE_LIST = """n => [...document.querySelectorAll('#moves tbody tr')].map(r =>
    [r.querySelector('th').textContent, ...[...r.querySelectorAll('.san')].map(s => s.textContent)]
        .join(' ')).join('|') === n"""
#: the running clock shows another time than `t` (it ticks)
CLOCK_TICKS = """t => { const c = document.querySelector('#players .clock.running');
    return c !== null && c.textContent !== t; }"""


def by_move(notations: list[str]) -> str:
    """The move list numbered by move, as MOVE_LIST reads it."""
    rows = [notations[i : i + 2] for i in range(0, len(notations), 2)]
    return "|".join(f"{k + 1}. {' '.join(row)}" for k, row in enumerate(rows))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebServer]:
    chromium_path()  # skip early without a browser
    with web_server(tmp_path_factory.mktemp("web"), "--engine", "random") as running:
        yield running


def wait_for_live_match(server: WebServer, game: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for match in server.get("/api/live")["matches"]:
            if match["game"] == game:
                return dict(match)
        time.sleep(0.05)
    raise AssertionError(f"no live {game} match appeared")


def test_lobby_loads(server: WebServer, page: Any) -> None:
    page.goto(server.url)
    page.get_by_role("heading", name="Lobby").wait_for()
    for section in ("Live matches", "Open seeks", "Recent results", "Tournaments"):
        page.get_by_text(section, exact=True).first.wait_for()
    screenshot(page, "lobby.png")


def test_watch_a_live_connect4_to_its_end_then_replay_it(server: WebServer, page: Any) -> None:
    # a larger board and k=5: a game long enough to be watched from its first moves
    # seeks on a 1+1 clock: both seats' clocks are shown, the running one ticks
    room = ["--tc", "1+1", "-o", "width=9", "-o", "height=8"]
    room += ["-o", "k=5"]
    page.goto(server.url)  # the lobby is open before the match starts
    page.get_by_role("heading", name="Lobby").wait_for()
    players = [
        start_player(server, "connect4", "mcts:time=0.4", *room, "--name", "mcts"),
        # a second searcher, not `random`: against random the game could end before the page
        # has subscribed to it (a flake seen once on a fresh clone)
        start_player(server, "connect4", "mcts:time=0.2", *room, "--name", "rival"),
    ]
    try:
        match = wait_for_live_match(server, "connect4")
        watch = f"{server.url}/watch/{match['match']}"
        # the lobby lists it (it refreshes by itself), with a link to watch it
        page.locator(f'#live a[href="/watch/{match["match"]}"]').click()
        page.wait_for_url(watch)
        page.locator("#board svg[data-game=connect4]").wait_for()
        # the players with their seats' names and discs, each with a clock
        for seat, (name, colour) in enumerate(zip(match["players"], "XO", strict=True)):
            row = page.locator(f"#players .player[data-seat='{seat}']")
            row.get_by_text(name, exact=True).wait_for()
            assert row.locator(".seat-name").inner_text() == colour
            assert row.locator(f"svg.swatch[aria-label='{colour}'] .piece.{colour}").count() == 1
        page.locator("#players .clock.running").wait_for()
        clocks = page.locator("#players .clock").all_inner_texts()
        assert len(clocks) == 2 and all(re.fullmatch(r"[01]:\d\d\.\d", c) for c in clocks), clocks
        page.wait_for_function(
            CLOCK_TICKS, arg=page.locator("#players .clock.running").inner_text()
        )
        # the engines' evaluation, live: the bar, under the players, beside each move
        page.locator("#eval-bar [role=meter]").wait_for()
        page.locator("#players .info", has_text="eval").first.wait_for()
        page.locator("#moves .mv .ev").first.wait_for()
        page.locator("#moves tbody tr th", has_text="2.").wait_for()  # numbered by move
        screenshot(page, "watch-connect4-live.png")
        result = page.locator("#result")
        result.wait_for(state="visible", timeout=TIMEOUT)
        # the page turns into the finished game at the same address
        page.locator("#ply-slider").wait_for()
        assert page.url == watch
        page.get_by_role("heading", name=re.compile("finished")).wait_for()
        screenshot(page, "watch-connect4-end.png")
        text = result.inner_text()
        assert re.search(r"(mcts|rival) \([XO]\) wins · line|Draw · board full", text), text
        for process in players:
            assert process.wait(timeout=30) == 0
    finally:
        for process in players:
            if process.poll() is None:
                process.kill()
    record = server.get(f"/api/matches/{match['match']}")
    plies = record["match"]["plies"]
    # every move was seen, in order, with its notation, numbered by move
    expected = by_move([m["notation"] for m in record["moves"]])
    page.wait_for_function(MOVE_LIST, arg=expected)
    assert page.locator("#board .piece").count() == plies
    assert page.locator("#ply-label").inner_text().startswith(f"ply {plies} / {plies}")

    # a watch link of a finished match shows the finished game
    page.goto(watch)
    page.locator("#ply-slider").wait_for()
    assert page.url == watch
    page.wait_for_function(MOVE_LIST, arg=expected)
    assert page.locator("#board .piece").count() == plies
    assert re.search(r"wins · line|Draw · board full", page.locator("#result").inner_text())

    page.locator("#result a", has_text="replay").click()
    page.wait_for_url(re.compile(rf"/replay/{match['match']}"))
    page.locator("#ply-label").wait_for()
    assert page.locator("#ply-label").inner_text().startswith(f"ply {plies} / {plies}")
    meta = page.locator("#meta").inner_text()
    assert "connect4 (width=9, height=8, k=5)" in meta and "1+1 clock" in meta, meta
    assert page.locator("#meta time").get_attribute("datetime")
    assert page.locator("#players svg.swatch").count() == 2
    page.click("#first")
    assert page.locator("#board .piece").count() == 0
    page.click("#next")
    page.click("#next")
    assert page.locator("#ply-label").inner_text().startswith(f"ply 2 / {plies}")
    assert page.url.endswith("?ply=2")
    assert page.locator("#board .piece").count() == 2
    page.click("#prev")
    assert page.locator("#board .piece").count() == 1
    # a link to a ply opens at that ply
    page.goto(f"{server.url}/replay/{match['match']}?ply=3")
    page.locator("#ply-label").wait_for()
    assert page.locator("#ply-label").inner_text().startswith(f"ply 3 / {plies}")
    assert page.locator("#board .piece").count() == 3
    assert page.locator("#moves .mv.current .san").inner_text() == record["moves"][2]["notation"]
    assert page.locator("#moves .mv.current").get_attribute("data-ply") == "3"
    screenshot(page, "replay-connect4-ply3.png")


def play_until_over(page: Any, *, reload_after: int | None = None) -> None:
    """Click a legal move whenever it is our turn until the result shows."""
    moves = 0
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if page.locator("#result").is_visible():
            return
        legal = page.locator("#board svg .legal")
        if legal.count():
            legal.first.click()
            moves += 1
            if moves == reload_after:
                page.reload()  # the page rejoins its seat with the stored token
                page.locator("#board svg").wait_for()
                page.get_by_text("you play seat 0").wait_for()
        else:
            page.wait_for_timeout(50)
    raise AssertionError("the game did not end")


def test_play_tictactoe_against_the_random_engine_by_clicking(server: WebServer, page: Any) -> None:
    page.goto(f"{server.url}/play")
    page.locator("#play-form").wait_for()
    page.select_option("#game", "tictactoe")
    page.select_option("#opponent", "random")
    page.select_option("#seat", "0")
    page.fill("#move-time", "20")
    page.fill("#name", "clicker")
    screenshot(page, "play-form.png")
    page.click("#start")
    page.locator("#board svg[data-game=tictactoe]").wait_for()
    page.locator("#board svg .legal").first.wait_for()  # seat 0 moves first
    assert page.locator("#board svg .legal").count() == 9
    # 20 s a move: our clock runs down from 20 s, the engine's shows its full 20 s
    assert page.locator("#players [data-seat='1'] .clock").inner_text() == "20.0s"
    page.wait_for_function(CLOCK_TICKS, arg="20.0s")
    assert page.locator("#players [data-seat='0'] .clock.running").count() == 1
    screenshot(page, "play-tictactoe-first-turn.png")
    play_until_over(page, reload_after=1)
    screenshot(page, "play-tictactoe-end.png")
    assert re.search(r"you (win|lose)|draw", page.locator("#result").inner_text())
    assert page.evaluate("localStorage.getItem('arena.seat')") is None
    recent = server.get("/api/matches?status=finished&limit=5")["matches"]
    [mine] = [m for m in recent if m["players"] == ["clicker", "random"]]
    record = server.get(f"/api/matches/{mine['id']}")
    expected = by_move([m["notation"] for m in record["moves"]])
    page.wait_for_function(MOVE_LIST, arg=expected)  # also the moves before the reload


@pytest.mark.parametrize("name", ["tictactoe", "gomoku", "connect4", "reversi", "ultimate"])
def test_every_builtin_board_renders_pieces_and_legal_moves(
    server: WebServer, page: Any, name: str
) -> None:
    game = make_game(name, {"width": 9, "height": 9} if name == "gomoku" else {})
    state = game.initial_state()
    rng = random.Random(5)
    for _ in range(14):
        if game.is_terminal(state):
            break
        state = game.apply(state, rng.choice(list(game.legal_moves(state))))
    encoded = game.encode_state(state)
    legal = [game.encode_move(m) for m in game.legal_moves(state)]
    page.goto(server.url)
    page.get_by_role("heading", name="Lobby").wait_for()
    page.evaluate(
        """async ([game, state, legal]) => {
            const { drawBoard } = await import('/static/boards.js');
            const box = document.createElement('div');
            box.id = 'sample';
            box.className = 'board';
            document.getElementById('app').replaceChildren(box);
            drawBoard(box, { game, state, legal, last: legal.length ? null : null, onMove: null });
        }""",
        [name, encoded, legal],
    )
    pieces = sum(row.count("X") + row.count("O") for row in encoded["board"])
    assert page.locator(f"#sample svg[data-game={name}] .piece").count() == pieces
    assert page.locator("#sample svg .legal").count() == len([m for m in legal if m >= 0])
    screenshot(page, f"board-{name}.png")


def test_tournament_standings_and_crosstable(server: WebServer, page: Any) -> None:
    store = SqliteDatabase(str(server.db))
    try:
        add_tournament(store)
    finally:
        store.close()
    page.goto(server.url)
    lobby = page.locator('#tournaments [data-tournament="t-demo"]')
    lobby.wait_for()  # the lobby shows it (it refreshes by itself)
    assert "2/2 games" in lobby.inner_text()
    page.goto(f"{server.url}/tournament/t-demo")
    page.locator("table.crosstable").wait_for()
    standings = page.locator(".tournament table").first.inner_text()
    assert re.search(r"1\s+mcts\s+2\s+2/0/0\s+2", standings), standings
    assert "2/2" in page.locator("table.crosstable").inner_text()
    screenshot(page, "tournament.png")


def test_generic_view_for_a_game_without_a_renderer(server: WebServer, page: Any) -> None:
    """A plug-in game's state is shown as text (its board rows, else JSON)."""
    page.goto(server.url)
    page.get_by_role("heading", name="Lobby").wait_for()
    page.evaluate(
        """async () => {
            const { drawBoard } = await import('/static/boards.js');
            const box = document.createElement('div');
            box.id = 'generic';
            document.body.append(box);
            drawBoard(box, { game: 'hex', state: { board: ['.X', 'O.'], to_move: 0 }, legal: [1, 2] });
        }"""
    )
    text = page.locator("#generic pre.generic").inner_text()
    assert text.startswith(".X\nO.") and '"to_move":0' in text


def test_pages_ship_no_external_resources(server: WebServer, page: Any) -> None:
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(server.url)
    page.get_by_role("heading", name="Lobby").wait_for()
    assert requested and all(url.startswith(server.url) for url in requested), requested


def test_replay_says_the_result_once_with_colours_date_and_time_control(
    server: WebServer, page: Any
) -> None:
    """A drawn tic-tac-toe on a 1+2 clock: "Draw · board full", not the termination twice."""
    store = SqliteDatabase(str(server.db))
    now = time.time()
    record = MatchRecord(
        id="m-drawn",
        game="tictactoe",
        options={},
        move_time=5.0,
        lag_margin=0.2,
        players=["alice", "bob"],
        status="finished",
        scores=[0.5, 0.5],
        winner=None,
        termination="board_full",
        reason="draw (board_full)",
        points=None,
        plies=9,
        started_at=now - 30,
        ended_at=now,
        tournament=None,
        tags=MatchTags(clock=Clock(60.0, 2.0)),
    )
    cells = [4, 0, 8, 2, 1, 7, 6, 3, 5]  # a full board, nobody's line
    moves = [
        MoveRecord(
            record.id, ply, ply % 2, cell, str(cell + 1), 0.5, now, 0.5, 3, 100, (str(cell + 1),)
        )
        for ply, cell in enumerate(cells)
    ]
    try:
        assert store.import_match(record, moves)
    finally:
        store.close()
    for address in ("/replay/m-drawn", "/watch/m-drawn"):
        page.goto(server.url + address)
        page.locator("#ply-slider").wait_for()
        assert page.locator("#result .headline").inner_text() == "Draw · board full"
        assert page.locator("#result .detail").count() == 0
        meta = page.locator("#meta").inner_text()
        assert "1+2 clock" in meta, meta
        for seat, colour in enumerate(["X", "O"]):
            row = page.locator(f"#players .player[data-seat='{seat}']")
            assert row.locator(".seat-name").inner_text() == colour
            assert row.locator(".clock").inner_text() == ("2.5s" if seat == 0 else "2.0s")
        page.wait_for_function(MOVE_LIST, arg=by_move([str(c + 1) for c in cells]))
        assert page.locator("#eval-bar [role=meter]").get_attribute("aria-valuenow") == "0.50"
    assert page.url == server.url + "/watch/m-drawn"
    screenshot(page, "watch-finished-tictactoe.png")


@pytest.mark.parametrize("name", ["tictactoe", "gomoku", "connect4", "reversi", "ultimate"])
def test_a_finished_game_of_every_builtin_game_at_its_watch_address(
    server: WebServer, page: Any, name: str
) -> None:
    """A stored random game: its board, players with their seats' colours, moves by move."""
    game = make_game(name, {"width": 9, "height": 9} if name == "gomoku" else {})
    state, rng, now = game.initial_state(), random.Random(7), time.time()
    match_id = f"m-every-{name}"
    moves: list[Any] = []
    while (outcome := game.outcome(state)) is None:
        move = rng.choice(list(game.legal_moves(state)))
        seat, ply = game.to_move(state), len(moves)
        notation = game.format_move(move)
        moves.append(
            MoveRecord(match_id, ply, seat, game.encode_move(move), notation, 0.1, now, 0.25)
        )
        state = game.apply(state, move)
    termination = outcome.termination.value
    who = "draw" if outcome.winner is None else f"{game.seat_names[outcome.winner]} wins"
    record = MatchRecord(
        id=match_id,
        game=name,
        options=game.options,
        move_time=2.0,
        lag_margin=0.2,
        players=["first-player", "second-player"],
        status="finished",
        scores=list(outcome.scores),
        winner=outcome.winner,
        termination=termination,
        reason=f"{who} ({termination})",
        points=None,
        plies=len(moves),
        started_at=now - 10,
        ended_at=now,
        tournament=None,
    )
    store = SqliteDatabase(str(server.db))
    try:
        assert store.import_match(record, moves)
    finally:
        store.close()
    page.goto(f"{server.url}/watch/{match_id}")
    page.locator("#ply-slider").wait_for()
    page.locator(f"#board svg[data-game={name}]").wait_for()
    headline = page.locator("#result .headline").inner_text()
    if outcome.winner is None:
        assert headline == f"Draw · {termination.replace('_', ' ')}"
    else:
        winner = record.players[outcome.winner]
        assert headline.startswith(f"{winner} ({game.seat_names[outcome.winner]}) wins · ")
    for seat, label in enumerate(game.seat_names):
        row = page.locator(f"#players .player[data-seat='{seat}']")
        assert row.locator(".seat-name").inner_text() == label
        assert row.locator(f"svg.swatch[aria-label='{label}']").count() == 1
    page.wait_for_function(MOVE_LIST, arg=by_move([m.notation for m in moves]))
    encoded = game.encode_state(state)
    if name != "ultimate":  # ultimate also marks its won sub-boards
        pieces = sum(row.count("X") + row.count("O") for row in encoded["board"])
        assert page.locator("#board .piece").count() == pieces
    assert page.url == f"{server.url}/watch/{match_id}"
    screenshot(page, f"finished-{name}.png")


def test_missing_match_pages(server: WebServer, page: Any, tmp_path: Path) -> None:
    page.goto(f"{server.url}/watch/m9999-none")
    page.get_by_text("is not being played").wait_for()
    page.get_by_text("no recorded match").wait_for()
    page.goto(f"{server.url}/replay/m9999-none")
    page.get_by_text("no recorded match").wait_for()
