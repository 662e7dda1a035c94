"""Bayesian Elo (tournament/bayeselo.py): held to an independent fit, and to the truth of
simulated ladders with a first-move advantage and draws."""

from __future__ import annotations

import math
import random

import pytest

from tournament.bayeselo import LadderGame, fit_bayeselo
from tournament.ratings import fit_ratings


def expected(x: float) -> float:
    return 1.0 / (1.0 + math.pow(10.0, -x / 400.0))


def simulate(
    truth: dict[str, float], games: int, advantage: float, draw_elo: float, seed: int
) -> list[LadderGame]:
    """Random pairings; each game drawn from bayeselo's own model."""
    rng = random.Random(seed)
    names = sorted(truth)
    played = []
    for _ in range(games):
        first, second = rng.sample(names, 2)
        diff = truth[first] - truth[second] + advantage
        win, loss = expected(diff - draw_elo), expected(-diff - draw_elo)
        roll = rng.random()
        score = 1.0 if roll < win else 0.0 if roll < win + loss else 0.5
        played.append(LadderGame(first, second, score))
    return played


def test_without_draws_or_first_move_it_is_the_tournaments_fit_exactly() -> None:
    """With both terms at 0 the posterior is `tournament.ratings`' (virtual draws counted as
    half a win), written independently (pure Python Newton, Cholesky): same ratings, same
    margins."""
    truth = {f"p{n}": random.Random(n).gauss(0, 200) for n in range(8)}
    games = simulate(truth, 2000, advantage=0.0, draw_elo=0.0, seed=1)
    for prior in (2.0, 0.5):
        ours = fit_bayeselo(sorted(truth), games, prior=prior, advantage=0.0, draw_elo=0.0)
        theirs = fit_ratings(
            sorted(truth), [(g.first, g.second, g.score) for g in games], prior_games=prior
        )
        for name in truth:
            assert ours.rating(name) == pytest.approx(theirs.rating(name), abs=1e-6)
            assert ours.margin(name) == pytest.approx(theirs.margin(name), rel=1e-4)


def test_a_simulated_ladder_gives_back_its_ratings_advantage_and_draw_term() -> None:
    rng = random.Random(7)
    truth = {f"bot{n}": rng.gauss(0, 250) for n in range(16)}
    mean = sum(truth.values()) / len(truth)
    games = simulate(truth, 16_000, advantage=40.0, draw_elo=120.0, seed=3)
    fit = fit_bayeselo(sorted(truth), games)
    assert fit.advantage == pytest.approx(40.0, abs=12.0)
    assert fit.draw_elo == pytest.approx(120.0, abs=10.0)
    inside = sum(abs(fit.rating(name) - (truth[name] - mean)) <= fit.margin(name) for name in truth)
    assert inside >= 13, inside  # 95% intervals: about 15 of 16 hold the truth
    assert sum(fit.games) == 2 * len(games)


def test_an_anchor_keeps_its_rating_and_the_differences_stand() -> None:
    rng = random.Random(11)
    truth = {"gnugo": 0.0, **{f"bot{n}": rng.gauss(0, 200) for n in range(6)}}
    games = simulate(truth, 3000, advantage=20.0, draw_elo=50.0, seed=5)
    free = fit_bayeselo(sorted(truth), games)
    anchored = fit_bayeselo(sorted(truth), games, anchors={"gnugo": 1800.0})
    assert anchored.rating("gnugo") == 1800.0 and anchored.margin("gnugo") == 0.0
    assert anchored.anchors == ("gnugo",)
    shift = 1800.0 - free.rating("gnugo")
    for name in truth:
        assert anchored.rating(name) == pytest.approx(free.rating(name) + shift, abs=1e-4)
    assert anchored.advantage == pytest.approx(free.advantage, abs=1e-4)


def test_perfect_scores_stay_finite_with_a_prior_and_are_refused_without_one() -> None:
    games = [LadderGame("strong", "weak", 1.0), LadderGame("weak", "strong", 0.0)] * 5
    fit = fit_bayeselo(["strong", "weak", "idle"], games, advantage=0.0)
    assert math.isfinite(fit.rating("strong")) and fit.rating("strong") > fit.rating("weak")
    assert fit.rating("idle") == 0.0 and fit.margin("idle") == math.inf
    with pytest.raises(ValueError, match="infinite"):
        fit_bayeselo(["strong", "weak"], games, prior=0.0, advantage=0.0)


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="'ghost', who is not in the list"):
        fit_bayeselo(["a", "b"], [LadderGame("a", "ghost", 1.0)])
    with pytest.raises(ValueError, match="anchors that are not players: x"):
        fit_bayeselo(["a", "b"], [], anchors={"x": 1.0})
    with pytest.raises(ValueError, match=r"score is 1, 0\.5 or 0"):
        LadderGame("a", "b", 0.7)
    assert fit_bayeselo(["a", "b"], [], anchors={"a": 100.0}).rating("a") == 100.0


def test_the_curvature_is_the_gradients_derivative() -> None:
    """The analytic second derivatives (Newton's steps and the margins) against central
    differences of the gradient, at a point away from the optimum, all terms fitted."""
    from tournament.bayeselo import _Model

    truth = {f"p{n}": 60.0 * n for n in range(5)}
    games = simulate(truth, 400, advantage=30.0, draw_elo=80.0, seed=2)
    index = {name: n for n, name in enumerate(sorted(truth))}
    rows: dict[tuple[int, int, int], int] = {}
    for g in games:
        key = (index[g.first], index[g.second], {1.0: 0, 0.5: 1, 0.0: 2}[g.score])
        rows[key] = rows.get(key, 0) + 1
    import numpy as np

    table = np.array([(*key, c) for key, c in rows.items()], dtype=float)
    model = _Model(5, table, 2.0, {0: 0.0}, True, True)
    theta = np.array([50.0, 130.0, 170.0, 260.0, 25.0, 90.0])
    exact = model.hessian(theta, 0.0, 0.0)
    step = 1e-3
    for k in range(len(theta)):
        up, down = theta.copy(), theta.copy()
        up[k] += step
        down[k] -= step
        column = (
            model.value_and_gradient(up, 0.0, 0.0)[1] - model.value_and_gradient(down, 0.0, 0.0)[1]
        ) / (2 * step)
        assert np.allclose(exact[:, k], column, rtol=1e-5, atol=1e-9), k
