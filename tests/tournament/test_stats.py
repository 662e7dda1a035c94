"""Statistics of a two-player match.

Independent sources: the expected values in `test_published_*` are the ones
asserted by fastchess's own test suite (app/tests/elo_test.cpp, Disservin/fastchess,
checked against commit 74deac23), whose Stats constructors take (wins, losses,
draws) and (LL, LD, WL, DD, WD, WW), to fastchess's 1% tolerance; the
hand-worked examples are computed step by step in their comments.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tournament.stats import (
    ELO_SCALE,
    MatchStats,
    Pentanomial,
    Wdl,
    elo_from_score,
    finite_or_none,
    los,
    margin_or_none,
    pair_bin,
    score_from_elo,
)


def test_hand_worked_trinomial() -> None:
    # 6 wins, 2 draws, 2 losses: score 0.7; variance per game
    # (6*0.3^2 + 2*0.2^2 + 2*0.7^2) / 10 = 0.16; standard error sqrt(0.016) = 0.1264911
    # score interval 0.7 -/+ 1.959964 * 0.1264911 = [0.4520820, 0.9479180]
    # Elo = -400 log10(1/s - 1): 147.1907, interval [-33.3994, 504.0333]
    stats = MatchStats(Pentanomial(), Wdl(6, 2, 2))
    est = stats.elo_trinomial()
    assert est is not None
    assert est.score == pytest.approx(0.7)
    assert est.variance == pytest.approx(0.16)
    assert est.elo == pytest.approx(147.1907, abs=1e-3)
    assert est.lower == pytest.approx(-33.3994, abs=1e-3)
    assert est.upper == pytest.approx(504.0333, abs=1e-3)
    assert est.error == pytest.approx((504.0333 + 33.3994) / 2, abs=1e-3)
    # LOS = Phi(0.2 / 0.1264911) = Phi(1.581139) = 0.943077
    assert est.los == pytest.approx(0.943077, abs=1e-6)
    assert stats.draw_ratio == pytest.approx(0.2)


@pytest.mark.parametrize(
    ("wdl", "nelo", "nelo_error", "los_text", "score"),
    [
        # fastchess "EloWDL 1": Stats(76 wins, 89 losses, 123 draws): LOS from W/D/L
        (Wdl(wins=76, draws=123, losses=89), -20.76, 40.13, "15.53", 0.477),
        # fastchess "EloWDL 3": Stats(34 wins, 356 losses, 0 draws)
        (Wdl(wins=34, draws=0, losses=356), -508.44, 34.48, "0.00", 0.087),
    ],
)
def test_published_trinomial_nelo_and_los(
    wdl: Wdl, nelo: float, nelo_error: float, los_text: str, score: float
) -> None:
    est = MatchStats(Pentanomial(), wdl).elo_trinomial()
    assert est is not None
    assert est.nelo == pytest.approx(nelo, rel=0.01)
    assert est.nelo_error == pytest.approx(nelo_error, rel=0.01)
    assert f"{est.los * 100:.2f}" == los_text
    assert est.score == pytest.approx(score, rel=0.01)


def test_published_trinomial() -> None:
    # fastchess "EloWDL 2": Stats(136 wins, 96 losses, 111 draws)
    est = MatchStats(Pentanomial(), Wdl(wins=136, draws=111, losses=96)).elo_trinomial()
    assert est is not None
    assert est.elo == pytest.approx(40.70, rel=0.01)
    assert est.error == pytest.approx(30.43, rel=0.01)
    assert est.nelo == pytest.approx(49.77, rel=0.01)
    assert est.nelo_error == pytest.approx(36.77, rel=0.01)
    assert f"{est.los * 100:.2f}" == "99.60"
    assert est.score == pytest.approx(0.558, rel=0.01)


@pytest.mark.parametrize(
    ("counts", "elo", "error", "nelo", "nelo_error", "los", "score"),
    [
        # fastchess "EloPentanomial 1" and "EloPentanomial 2" (LL, LD, WL, DD, WD, WW)
        ((34, 54, 31, 32, 64, 75), 55.58, 27.65, 57.94, 28.28, "100.00", 0.579),
        ((332, 433, 457, 41, 333, 334), -8.64, 10.33, -9.17, 10.96, "5.05", 0.488),
        ((7895, 8757, 5485, 200, 568, 9999), -21.04, 2.95, -19.01, 2.65, "0.00", 0.470),
    ],
)
def test_published_pentanomial(
    counts: tuple[int, ...],
    elo: float,
    error: float,
    nelo: float,
    nelo_error: float,
    los: str,
    score: float,
) -> None:
    est = MatchStats(Pentanomial(*counts)).elo_pentanomial()
    assert est is not None
    assert est.elo == pytest.approx(elo, rel=0.01)
    assert est.error == pytest.approx(error, rel=0.01)
    assert est.nelo == pytest.approx(nelo, rel=0.01)
    assert est.nelo_error == pytest.approx(nelo_error, rel=0.01)
    assert f"{est.los * 100:.2f}" == los
    assert est.score == pytest.approx(score, rel=0.01)


def test_pair_bins() -> None:
    assert pair_bin(1, 1) == "ww"
    assert pair_bin(0.5, 1) == pair_bin(1, 0.5) == "wd"
    assert pair_bin(0, 1) == "wl"
    assert pair_bin(0.5, 0.5) == "dd"
    assert pair_bin(0.5, 0) == "ld"
    assert pair_bin(0, 0) == "ll"
    with pytest.raises(ValueError, match=r"0\.25"):
        pair_bin(0.25, 1)
    penta = Pentanomial.from_pairs([(1, 1), (1, 0), (0.5, 0.5), (0, 0.5)])
    assert penta == Pentanomial(ll=0, ld=1, wl=1, dd=1, wd=0, ww=1)
    assert penta.bins() == (0, 1, 2, 0, 1)
    assert penta.wdl == Wdl(wins=3, draws=3, losses=2)


def test_empty_and_perfect() -> None:
    empty = MatchStats(Pentanomial())
    assert empty.score is None and empty.draw_ratio is None
    assert empty.elo_trinomial() is None and empty.elo_pentanomial() is None
    perfect = MatchStats(Pentanomial(ww=3))
    est = perfect.elo_pentanomial()
    assert est is not None and est.elo == math.inf and est.los == 1.0
    data = perfect.as_dict()
    json.dumps(data, allow_nan=False)  # infinities become null
    assert data["elo_pentanomial"]["elo"] is None
    assert est.error is None and est.lower is None and est.upper is None
    all_draws = MatchStats(Pentanomial(dd=5)).elo_pentanomial()
    assert all_draws is not None
    # five identical pairs: variance 0 is no information, so no margin (not "± 0.0")
    assert (all_draws.elo, all_draws.error, all_draws.los) == (0.0, None, 0.5)


def test_one_pair_has_no_margin() -> None:
    # the outside check's case: one WD pair scores 0.75, Elo 400 log10(3) = 190.8485,
    # and a pentanomial variance of 0 (one sample): no error, no interval, JSON null
    est = MatchStats(Pentanomial(wd=1)).elo_pentanomial()
    assert est is not None and est.samples == 1 and est.variance == 0.0
    assert est.elo == pytest.approx(190.8485, abs=1e-4)
    assert (est.error, est.lower, est.upper, est.nelo_error) == (None, None, None, None)
    data = est.as_dict()
    assert (data["error"], data["lower"], data["upper"], data["nelo_error"]) == (None,) * 4
    assert data["elo"] == pytest.approx(190.8485, abs=1e-4)
    # a single game, and games all alike, support no margin either
    for wdl in (Wdl(wins=1), Wdl(draws=1), Wdl(losses=4), Wdl(draws=7)):
        single = MatchStats(Pentanomial(), wdl).elo_trinomial()
        assert single is not None and single.error is None and single.lower is None


def test_two_different_pairs_have_a_margin() -> None:
    # WD and DD: per-game pair scores 0.75 and 0.5, mean s = 0.625,
    # variance ((0.125)^2 + (0.125)^2) / 2 = 0.015625, standard error sqrt(0.015625 / 2)
    # = 0.0883883; interval 0.625 -/+ 1.959964 * 0.0883883 = [0.4517630, 0.7982370];
    # Elo 400 log10(5/3) = 88.7395, bounds -400 log10(1/s - 1): [-33.6238, 238.9172],
    # error (238.9172 + 33.6238) / 2 = 136.2705; LOS Phi(0.125 / 0.0883883) = 0.921350
    est = MatchStats(Pentanomial(wd=1, dd=1)).elo_pentanomial()
    assert est is not None
    assert est.variance == pytest.approx(0.015625)
    assert est.elo == pytest.approx(88.7395, abs=1e-4)
    assert est.lower == pytest.approx(-33.6238, abs=1e-3)
    assert est.upper == pytest.approx(238.9172, abs=1e-3)
    assert est.error == pytest.approx(136.2705, abs=1e-3)
    assert est.los == pytest.approx(0.921350, abs=1e-6)
    # a win and a loss: the score interval covers [0, 1], both bounds are infinite
    even = MatchStats(Pentanomial(), Wdl(wins=1, losses=1)).elo_trinomial()
    assert even is not None and even.lower == -math.inf and even.upper == math.inf
    assert even.as_dict()["lower"] is None and even.as_dict()["error"] is None


def test_margin_or_none() -> None:
    assert margin_or_none(120.5, 2) == 120.5
    assert margin_or_none(120.5, 1) is None  # one game: nothing to measure a spread with
    assert margin_or_none(0.0, 10) is None  # no spread is no information
    assert margin_or_none(math.inf, 10) is None
    assert margin_or_none(math.nan, 10) is None
    assert margin_or_none(None, 10) is None
    assert finite_or_none(1.5) == 1.5 and finite_or_none(-math.inf) is None
    assert finite_or_none(math.nan) is None


def test_validation() -> None:
    with pytest.raises(ValueError, match="-1"):
        Wdl(-1, 0, 0)
    with pytest.raises(ValueError, match="'x'"):
        Pentanomial(ww="x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"0\.3"):
        Wdl.from_scores([0.3])
    with pytest.raises(ValueError, match="pentanomial"):
        Pentanomial.from_dict({"ww": 1})
    with pytest.raises(ValueError, match=r"1\.5"):
        elo_from_score(1.5)


pair_scores = st.sampled_from([0.0, 0.5, 1.0])
pairs_strategy = st.lists(st.tuples(pair_scores, pair_scores), max_size=40)


@given(pairs_strategy, st.lists(pair_scores, max_size=5))
def test_properties(pairs: list[tuple[float, float]], singles: list[float]) -> None:
    stats = MatchStats.from_results(pairs, singles)
    assert stats.games == 2 * len(pairs) + len(singles)
    points = sum(a + b for a, b in pairs) + sum(singles)
    if stats.games:
        assert stats.score == pytest.approx(points / stats.games)
    # mirror: the other player's view has score 1 - s and the opposite Elo
    mirrored = MatchStats(stats.penta.swapped(), stats.unpaired.swapped())
    a, b = stats.elo_pentanomial(), mirrored.elo_pentanomial()
    if a is not None and b is not None:
        assert a.score == pytest.approx(1 - b.score)
        if math.isfinite(a.elo):
            assert a.elo == pytest.approx(-b.elo, abs=1e-9)
        assert a.los == pytest.approx(1 - b.los, abs=1e-12) or a.variance == 0
        if a.lower is None or a.upper is None:  # no margin: no spread to measure
            assert a.error is None and a.nelo_error is None and a.variance == 0
        else:
            assert a.variance > 0 and a.lower <= a.elo <= a.upper
    # JSON round trip of the counts
    assert Pentanomial.from_dict(json.loads(json.dumps(stats.penta.as_dict()))) == stats.penta
    assert Wdl.from_dict(json.loads(json.dumps(stats.unpaired.as_dict()))) == stats.unpaired
    json.dumps(stats.as_dict(), allow_nan=False)


@given(st.floats(min_value=-2000, max_value=2000))
def test_elo_score_inverse(elo: float) -> None:
    score = score_from_elo(elo)
    if 0.0 < score < 1.0 and abs(elo) < 1500:
        assert elo_from_score(score) == pytest.approx(elo, abs=1e-6)


def test_elo_score_conversions() -> None:
    # hand-derived: score_from_elo(400) = 1 / (1 + 10^-1) = 10/11; elo_from_score(0.75)
    # = -400 log10(1/0.75 - 1) = 400 log10(3) = 190.848502
    assert score_from_elo(0) == 0.5
    assert score_from_elo(400) == pytest.approx(10 / 11)
    assert score_from_elo(-400) == pytest.approx(1 / 11)
    assert elo_from_score(0.75) == pytest.approx(190.848502, abs=1e-6)
    assert elo_from_score(0.5) == 0.0
    assert elo_from_score(1.0) == math.inf and elo_from_score(0.0) == -math.inf
    assert math.log(10) / 400 == pytest.approx(ELO_SCALE)
    for d in (-700.0, -35.5, 0.0, 120.0, 900.0):
        assert elo_from_score(score_from_elo(d)) == pytest.approx(d, abs=1e-6)
        assert score_from_elo(d) + score_from_elo(-d) == pytest.approx(1.0, abs=1e-15)
    # no overflow anywhere: saturates to exactly 1 and 0, and at the infinities
    assert score_from_elo(1e6) == 1.0 and score_from_elo(-1e6) == 0.0
    assert score_from_elo(math.inf) == 1.0 and score_from_elo(-math.inf) == 0.0
    assert 0.0 < score_from_elo(-100_000) < 1e-200
    for bad in (1.5, -0.1, math.nan):
        with pytest.raises(ValueError, match="score must be between 0 and 1"):
            elo_from_score(bad)
    with pytest.raises(ValueError, match="nan"):
        score_from_elo(math.nan)


def test_los_known_values() -> None:
    # fastchess's LOS: Phi((s - 0.5) / standard error). Cutechess's LOS from wins and
    # losses, Phi((W - L) / sqrt(W + L)), is the case s = W / (W + L) with the standard
    # error under equal strength, 0.5 / sqrt(W + L):
    # 10 wins, 0 losses: Phi(10 / sqrt(10)) = Phi(3.162278) = 0.999217;
    # 60 wins, 40 losses: Phi(20 / 10) = Phi(2) = 0.977250
    assert los(1.0, 0.5 / math.sqrt(10)) == pytest.approx(0.999217, abs=1e-6)
    assert los(0.0, 0.5 / math.sqrt(10)) == pytest.approx(1 - 0.999217, abs=1e-6)
    assert los(0.6, 0.5 / math.sqrt(100)) == pytest.approx(0.977250, abs=1e-6)
    assert los(0.5, 0.1) == 0.5
    # no spread: a step at 0.5 (what an all-alike sample reports)
    assert (los(0.75, 0.0), los(0.5, 0.0), los(0.25, 0.0)) == (1.0, 0.5, 0.0)
    for score, error in ((1.5, 0.1), (0.5, -0.1), (math.nan, 0.1), (0.5, math.nan)):
        with pytest.raises(ValueError):
            los(score, error)
