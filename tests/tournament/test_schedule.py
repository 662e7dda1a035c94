"""Schedules and plans: who meets whom, seats swapped within every pair, openings per pair."""

from __future__ import annotations

import collections
from typing import Any

import pytest

from games import make_game
from tournament.config import TournamentConfig, TournamentPlayer
from tournament.results import GameResult
from tournament.schedule import SprtPlan, build_schedule, make_plan
from tournament.sprt import SPRT

GAME = make_game("tictactoe", {"width": 4, "height": 4, "k": 3})
NAMES = ("a", "b", "c", "d")


def config(names: tuple[str, ...] = NAMES, **fields: Any) -> TournamentConfig:
    players = tuple(TournamentPlayer(n, "random") for n in names)
    return TournamentConfig(game="tictactoe", options=GAME.options, players=players, **fields)


def test_a_gauntlet_plays_exactly_the_first_player_against_each_other() -> None:
    schedule = build_schedule(config(format="gauntlet", games_per_pair=4), GAME)
    meetings = collections.Counter(frozenset(g.seats) for g in schedule)
    assert meetings == {frozenset({"a", other}): 4 for other in ("b", "c", "d")}
    assert all("a" in g.seats for g in schedule)
    assert [g.index for g in schedule] == list(range(12))


def test_a_round_robin_plays_every_pair() -> None:
    schedule = build_schedule(config(games_per_pair=2), GAME)
    assert len(schedule) == 12
    assert {frozenset(g.seats) for g in schedule} == {
        frozenset(p)
        for p in [("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d")]
    }


@pytest.mark.parametrize("form", ["round-robin", "gauntlet"])
def test_every_opening_is_played_twice_with_the_seats_swapped(form: str) -> None:
    openings = {"kind": "random", "plies": 2, "seed": 5}
    schedule = build_schedule(config(format=form, games_per_pair=6, openings=openings), GAME)
    by_pair = collections.defaultdict(list)
    for game in schedule:
        by_pair[(frozenset(game.seats), game.pair)].append(game)
    for games in by_pair.values():
        assert len(games) == 2
        first, second = games
        assert first.seats == tuple(reversed(second.seats))
        assert first.opening == second.opening and len(first.opening) == 2
    # three pairs per pairing, three different openings, the same for every pairing
    per_pairing = collections.defaultdict(list)
    for (pairing, pair), games in by_pair.items():
        per_pairing[pairing].append((pair, games[0].opening))
    lists = [sorted(v, key=lambda x: x[0]) for v in per_pairing.values()]
    assert all(x == lists[0] for x in lists)
    assert len({o for _, o in lists[0]}) == 3


def test_schedules_without_openings_keep_their_old_order_and_seeds() -> None:
    # the schedule of a tournament stored before openings existed must not change on resume
    old = config(games_per_pair=2)
    assert old.id == config(games_per_pair=2, adjudication={}).id
    schedule = build_schedule(old, GAME)
    assert [g.seats for g in schedule[:6]] == [
        ("a", "b"), ("a", "c"), ("a", "d"), ("b", "c"), ("b", "d"), ("c", "d"),
    ]  # fmt: skip
    assert schedule[6].seats == ("b", "a")


def result(index: int, seats: tuple[str, ...], first_score: float) -> GameResult:
    return GameResult(index, seats, (first_score, 1.0 - first_score), "line", f"m{index}", 5)


def sprt_config(**fields: Any) -> TournamentConfig:
    return config(names=("new", "old"), format="sprt", sprt=SPRT(0, 100).as_dict(), **fields)


def test_an_sprt_plan_hands_out_pairs_until_it_decides() -> None:
    plan = make_plan(sprt_config(openings={"kind": "random", "plies": 1, "seed": 0}), GAME, 2)
    assert isinstance(plan, SprtPlan) and plan.total is None
    games = plan.initial({})
    assert [(g.index, g.seats, g.pair) for g in games] == [
        (0, ("new", "old"), 0), (1, ("old", "new"), 0),
        (2, ("new", "old"), 1), (3, ("old", "new"), 1),
    ]  # fmt: skip
    assert games[0].opening == games[1].opening != games[2].opening
    results: dict[int, GameResult] = {}
    index = 0
    while not plan.stopped(results):
        game = plan.game_at(index)
        winner_first = game.seats[0] == "new"  # "new" wins every game
        results[index] = result(index, game.seats, 1.0 if winner_first else 0.0)
        plan.more(results, 0)
        index += 1
        assert index < 200
    status = plan.count(results)
    assert status.decision.value == "H1"
    assert plan.state.penta.ww == len(results) // 2


def test_an_sprt_plan_resumes_with_the_missing_games_of_unfinished_pairs() -> None:
    plan = make_plan(sprt_config(max_pairs=3), GAME)
    done = {0: result(0, ("new", "old"), 0.5), 3: result(3, ("old", "new"), 0.5)}
    games = plan.initial(done)
    assert [g.index for g in games] == [1, 2]  # both pairs' missing games, no new pair yet
    assert plan.more(done, 2) == []  # two outstanding games keep one lookahead busy
    assert [g.index for g in plan.more(done, 0)] == [4, 5]
    assert plan.more(done, 0) == []  # max_pairs=3 reached
    assert plan.total == 6
