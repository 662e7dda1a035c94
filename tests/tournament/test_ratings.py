"""Tournament ratings: Elo fit on synthetic results, standings, crosstable.

The Elo/score conversions and LOS the fit uses are tested in test_stats.py.
"""

from __future__ import annotations

import math
import random
import statistics

import pytest

from tournament.ratings import GameResult, crosstable, fit_elo, fit_ratings, standings
from tournament.stats import ELO_SCALE, elo_from_score, score_from_elo

TRUE = {"a": -200.0, "b": 0.0, "c": 100.0, "d": 300.0}
PLAYERS = list(TRUE)
TRUE_MEAN = sum(TRUE.values()) / len(TRUE)


def simulate(games_per_pair: int, seed: int) -> list[GameResult]:
    """Round robin from known ratings; draws included, mean score = Elo expectation."""
    rng = random.Random(seed)
    results = []
    for i, a in enumerate(PLAYERS):
        for b in PLAYERS[i + 1 :]:
            e = score_from_elo(TRUE[a] - TRUE[b])
            draw = e * (1.0 - e)  # P(win) = e - draw/2 >= e² >= 0, mean score stays e
            for k in range(games_per_pair):
                u = rng.random()
                score = 1.0 if u < e - draw / 2 else 0.5 if u < e + draw / 2 else 0.0
                # alternate sides so both orientations of a result are exercised
                results.append(GameResult(a, b, score) if k % 2 else GameResult(b, a, 1.0 - score))
    return results


def log_likelihood(ratings: dict[str, float], results: list[GameResult]) -> float:
    """Independent plain Bradley-Terry log-likelihood (draw = half a win)."""
    total = 0.0
    for g in results:
        e = 1.0 / (1.0 + 10.0 ** (-(ratings[g.player_a] - ratings[g.player_b]) / 400.0))
        total += g.score_a * math.log(e) + (1.0 - g.score_a) * math.log(1.0 - e)
    return total


# -- the fit recovers known ratings ---------------------------------------------


def test_fit_recovers_known_ratings_within_margins() -> None:
    fit = fit_ratings(PLAYERS, simulate(400, seed=7))
    assert sum(fit.ratings) == pytest.approx(0.0, abs=1e-6)
    for p in PLAYERS:
        assert abs(fit.rating(p) - (TRUE[p] - TRUE_MEAN)) < fit.margin(p), p
        assert 10 < fit.margin(p) < 40, p  # ~1200 games each: a couple dozen Elo
    for a in PLAYERS:
        for b in PLAYERS:
            if a != b:
                diff, margin = fit.difference(a, b)
                assert abs(diff - (TRUE[a] - TRUE[b])) < margin, (a, b)


def test_margins_are_calibrated_over_many_tournaments() -> None:
    # 40 independent tournaments: the 95% intervals should cover the truth about
    # 95% of the time (a little more: draws make the binomial margins conservative),
    # and the spread of the estimates should match the margins.
    fits = [fit_ratings(PLAYERS, simulate(100, seed=seed)) for seed in range(40)]
    covered = sum(
        abs(f.rating(p) - (TRUE[p] - TRUE_MEAN)) < f.margin(p) for f in fits for p in PLAYERS
    )
    assert covered / (len(fits) * len(PLAYERS)) >= 0.88
    for p in PLAYERS:
        spread = statistics.stdev(f.rating(p) for f in fits)
        predicted = statistics.mean(f.margin(p) for f in fits) / 1.96
        assert 0.6 < spread / predicted < 1.4, p
        bias = statistics.mean(f.rating(p) for f in fits) - (TRUE[p] - TRUE_MEAN)
        assert abs(bias) < 3 * predicted / math.sqrt(len(fits)), p


def test_margins_shrink_with_more_games() -> None:
    few = fit_ratings(PLAYERS, simulate(100, seed=1))
    many = fit_ratings(PLAYERS, simulate(400, seed=1))
    for p in PLAYERS:
        assert 0.4 < many.margin(p) / few.margin(p) < 0.6, p  # ~ 1/sqrt(4)


def test_plain_mle_matches_two_player_closed_form() -> None:
    results = [("x", "y", 1.0)] * 75 + [("x", "y", 0.0)] * 25
    fit = fit_ratings(["x", "y"], results, prior_games=0)
    diff, diff_margin = fit.difference("x", "y")
    assert diff == pytest.approx(elo_from_score(0.75))  # 190.85
    assert fit.rating("x") == pytest.approx(-fit.rating("y"))
    # Fisher information of the difference: n s² p (1 - p)
    sd = 1.0 / math.sqrt(100 * ELO_SCALE**2 * 0.75 * 0.25)
    assert diff_margin == pytest.approx(1.959964 * sd, rel=1e-5)
    assert fit.margin("x") == pytest.approx(1.959964 * sd / 2, rel=1e-5)


def test_plain_mle_maximises_the_likelihood() -> None:
    results = simulate(30, seed=3)
    fitted = fit_elo(PLAYERS, results, prior_games=0)
    best = {p: r for p, (r, _) in fitted.items()}
    top = log_likelihood(best, results)
    for p in PLAYERS:
        for step in (-5.0, 5.0):
            moved = dict(best)
            moved[p] += step
            assert log_likelihood(moved, results) < top


def test_prior_pulls_slightly_towards_the_mean() -> None:
    results = simulate(50, seed=5)
    plain = fit_ratings(PLAYERS, results, prior_games=0)
    shrunk = fit_ratings(PLAYERS, results, prior_games=2)
    stronger = fit_ratings(PLAYERS, results, prior_games=50)
    for p in PLAYERS:
        assert abs(stronger.rating(p)) < abs(shrunk.rating(p)) < abs(plain.rating(p))
        assert abs(shrunk.rating(p) - plain.rating(p)) < 0.05 * abs(plain.rating(p))


# -- degenerate fields ------------------------------------------------------------


def test_symmetric_results_give_equal_ratings() -> None:
    cycle = [("a", "b", 1.0), ("b", "c", 1.0), ("c", "a", 1.0)] * 5
    fit = fit_ratings(["a", "b", "c"], cycle)
    assert fit.ratings == pytest.approx((0.0, 0.0, 0.0), abs=1e-9)
    margins = [fit.margin(p) for p in "abc"]
    assert margins == pytest.approx([margins[0]] * 3)
    draws = fit_elo(["a", "b"], [("a", "b", 0.5)] * 4, prior_games=0)
    assert draws["a"][0] == pytest.approx(0.0, abs=1e-9)
    assert draws["b"][0] == pytest.approx(0.0, abs=1e-9)


def test_perfect_score_stays_finite() -> None:
    ten = fit_elo(["x", "y"], [("x", "y", 1.0)] * 10)
    hundred = fit_elo(["x", "y"], [("x", "y", 1.0)] * 100)
    for fit in (ten, hundred):
        (rx, mx), (ry, my) = fit["x"], fit["y"]
        assert all(math.isfinite(v) for v in (rx, mx, ry, my))
        assert rx > 0 > ry and rx == pytest.approx(-ry)
    assert ten["x"][0] < hundred["x"][0]  # more evidence, bigger gap, still finite
    # one player beats everyone in a larger field
    results = [("top", p, 1.0) for p in "abc" for _ in range(6)]
    results += [(p, q, 0.5) for p in "abc" for q in "abc" if p < q]
    top = fit_ratings(["top", "a", "b", "c"], results)
    assert math.isfinite(top.rating("top")) and top.rating("top") > 300


def test_plain_mle_without_solution_is_refused() -> None:
    with pytest.raises(ValueError, match="prior_games=0"):
        fit_ratings(["x", "y"], [("x", "y", 1.0)] * 3, prior_games=0)
    # two groups that never met
    with pytest.raises(ValueError, match="prior_games=0"):
        fit_ratings(["a", "b", "c", "d"], [("a", "b", 0.5), ("c", "d", 0.5)], prior_games=0)


def test_player_without_games_gets_zero_and_infinite_margin() -> None:
    results = simulate(20, seed=2)
    with_idle = fit_ratings([*PLAYERS, "idle"], results)
    without = fit_ratings(PLAYERS, results)
    assert with_idle.rating("idle") == 0.0 and with_idle.margin("idle") == math.inf
    assert with_idle.difference("a", "idle")[1] == math.inf
    for p in PLAYERS:
        assert with_idle.rating(p) == pytest.approx(without.rating(p))
        assert with_idle.margin(p) == pytest.approx(without.margin(p))
    assert fit_elo(["x", "y"], []) == {"x": (0.0, math.inf), "y": (0.0, math.inf)}


def test_disconnected_groups_stay_finite_with_the_prior() -> None:
    fit = fit_ratings(["a", "b", "c", "d"], [("a", "b", 1.0)] * 4 + [("c", "d", 0.5)] * 4)
    assert all(math.isfinite(fit.margin(p)) for p in "abcd")
    assert fit.rating("a") > fit.rating("c") == pytest.approx(fit.rating("d"))


# -- standings and crosstable -------------------------------------------------------


def test_standings_add_up_and_are_sorted() -> None:
    results = simulate(10, seed=4)
    rows = standings([*PLAYERS, "idle"], results)
    assert [r.player for r in rows] == ["d", "c", "b", "a", "idle"]
    assert sum(r.points for r in rows) == len(results)
    assert sum(r.games for r in rows) == 2 * len(results)
    assert sum(r.wins for r in rows) == sum(r.losses for r in rows)
    for r in rows[:-1]:
        assert r.games == 30 and r.wins + r.draws + r.losses == r.games
        assert r.points == r.wins + r.draws / 2 and r.score == r.points / r.games
    idle = rows[-1]
    assert (idle.games, idle.score, idle.elo, idle.elo_margin) == (0, None, 0.0, math.inf)
    elos = dict(fit_elo([*PLAYERS, "idle"], results))
    assert all(r.elo == pytest.approx(elos[r.player][0]) for r in rows)


def test_standings_break_elo_ties_by_points_then_name() -> None:
    rows = standings(["b", "a"], [("a", "b", 0.5), ("b", "a", 0.5)])
    assert [r.player for r in rows] == ["a", "b"]
    assert all(r.draws == 2 and r.points == 1.0 for r in rows)


def test_crosstable_totals_add_up() -> None:
    results = simulate(10, seed=6)
    table = crosstable([*PLAYERS, "idle"], results)
    assert sum(pts for row in table.values() for pts, _ in row.values()) == len(results)
    assert sum(games for row in table.values() for _, games in row.values()) == 2 * len(results)
    for a in PLAYERS:
        assert a not in table[a]
        for b in PLAYERS:
            if a != b:
                (pa, na), (pb, nb) = table[a][b], table[b][a]
                assert na == nb == 10 and pa + pb == 10
    assert table["idle"]["a"] == (0.0, 0) and table["a"]["idle"] == (0.0, 0)
    small = crosstable(["x", "y"], [("x", "y", 1.0), ("y", "x", 0.5)])
    assert small == {"x": {"y": (1.5, 2)}, "y": {"x": (0.5, 2)}}


# -- validation ---------------------------------------------------------------------


def test_bad_input_is_rejected() -> None:
    with pytest.raises(ValueError, match=r"score_a must be 0, 0\.5 or 1"):
        GameResult("a", "b", 0.7)
    with pytest.raises(ValueError, match="cannot play itself"):
        GameResult("a", "a", 1.0)
    with pytest.raises(ValueError, match="unknown player 'z'"):
        standings(["a", "b"], [("a", "z", 1.0)])
    with pytest.raises(ValueError, match="listed twice"):
        crosstable(["a", "a"], [])
    with pytest.raises(ValueError, match="prior_games must be"):
        fit_elo(["a", "b"], [], prior_games=-1)
    with pytest.raises(ValueError, match="confidence must be"):
        fit_ratings(["a", "b"], [], confidence=1.0)
    with pytest.raises(ValueError, match="unknown player 'q'"):
        fit_ratings(["a", "b"], []).rating("q")


def test_confidence_level_scales_margins() -> None:
    results = simulate(20, seed=8)
    m95 = fit_ratings(PLAYERS, results).margin("a")
    m99 = fit_ratings(PLAYERS, results, confidence=0.99).margin("a")
    assert m99 / m95 == pytest.approx(2.5758 / 1.9600, rel=1e-3)
