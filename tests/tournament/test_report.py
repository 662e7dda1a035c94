"""The results document: pairs found by the schedule, statistics per pairing and per player."""

from __future__ import annotations

import json
from typing import Any

from games import make_game
from tournament.config import TournamentConfig, TournamentPlayer
from tournament.report import pairing_stats, results_document, sprt_state
from tournament.results import GameResult
from tournament.schedule import build_schedule
from tournament.sprt import SPRT

GAME = make_game("tictactoe", {})


def make_config(names: tuple[str, ...] = ("a", "b", "c"), **fields: Any) -> TournamentConfig:
    players = tuple(TournamentPlayer(n, "random") for n in names)
    return TournamentConfig(game="tictactoe", options=GAME.options, players=players, **fields)


def test_pairs_are_the_two_games_of_one_opening_with_the_seats_swapped() -> None:
    config = make_config(games_per_pair=4, openings={"kind": "random", "plies": 1, "seed": 0})
    schedule = build_schedule(config, GAME)
    results = {}
    for game in schedule:
        # "a" wins every game it plays; b and c draw; one b-c game is missing
        if set(game.seats) == {"b", "c"} and game.index == max(
            g.index for g in schedule if set(g.seats) == {"b", "c"}
        ):
            continue
        if "a" in game.seats:
            scores = tuple(1.0 if name == "a" else 0.0 for name in game.seats)
        else:
            scores = (0.5, 0.5)
        results[game.index] = GameResult(game.index, game.seats, scores, "line", "m", 5)
    stats = pairing_stats(config, results)
    assert stats[("a", "b")].penta.ww == 2 and stats[("a", "b")].unpaired.games == 0
    assert stats[("b", "c")].penta.dd == 1 and stats[("b", "c")].unpaired.draws == 1
    document = results_document(config, results, status="stopped", game=GAME)
    json.dumps(document)  # JSON-ready (no inf, no tuples that matter)
    rows = {row["name"]: row for row in document["standings"]}
    assert rows["a"]["pentanomial"]["ww"] == 4 and rows["a"]["draw_ratio"] == 0.0
    assert rows["b"]["pentanomial"] == {"ll": 2, "ld": 0, "wl": 0, "dd": 1, "wd": 0, "ww": 0}
    assert rows["a"]["elo_lower"] < rows["a"]["elo"] < rows["a"]["elo_upper"]
    pairing = next(p for p in document["pairings"] if p["players"] == ["a", "b"])
    assert pairing["pairs"] == 2 and pairing["wins"] == 4
    assert pairing["elo_pentanomial"]["los"] == 1.0
    assert all(len(g["opening"]) == 1 for g in document["games"])
    assert document["status"] == "stopped" and "sprt" not in document


def test_the_sprt_state_is_recounted_from_the_stored_games() -> None:
    config = make_config(names=("new", "old"), format="sprt", sprt=SPRT(0, 10).as_dict())
    results = {
        0: GameResult(0, ("new", "old"), (1.0, 0.0), "line", "m0", 5),
        1: GameResult(1, ("old", "new"), (0.5, 0.5), "board_full", "m1", 9),
        2: GameResult(2, ("new", "old"), (1.0, 0.0), "line", "m2", 5),  # its pair is unfinished
    }
    state = sprt_state(config, results)
    assert state is not None and state.penta.wd == 1 and state.penta.pairs == 1
    document = results_document(config, results)
    assert document["sprt"]["pentanomial"]["wd"] == 1
    assert document["sprt"]["decision"] == "continue"
    assert document["sprt"]["lower"] < document["sprt"]["llr"] < document["sprt"]["upper"]
