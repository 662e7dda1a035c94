"""The SPRT: bounds, LLR, decisions, parsing, JSON state.

Independent sources for the LLR values:
* `test_fastchess_values`: the numbers asserted by fastchess's own test suite
  (app/tests/sprt_test.cpp in Disservin/fastchess; counts are given there as
  Stats(LL, LD, WL, DD, WD, WW)), to fastchess's 1% tolerance;
* `test_two_outcome_closed_form`: with only LL and WW pairs the logistic
  model reduces to a Bernoulli trial on the pair (per-game score 0 or 1) and
  the LLR is N·[p̂ log(s1/s0) + (1-p̂) log((1-s1)/(1-s0))], written out by hand;
* `test_bounds`: Wald's bounds for alpha = beta = 0.05 are ±log(19) = ±2.944439.
"""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tournament.sprt import SPRT, Decision, SprtError, SprtState, parse_sprt
from tournament.stats import Pentanomial


def test_bounds() -> None:
    sprt = SPRT(0, 5, 0.05, 0.05)
    assert sprt.lower == pytest.approx(-2.944439, abs=1e-6)
    assert sprt.upper == pytest.approx(2.944439, abs=1e-6)
    asym = SPRT(0, 5, alpha=0.01, beta=0.1)
    assert asym.lower == pytest.approx(math.log(0.1 / 0.99))
    assert asym.upper == pytest.approx(math.log(0.9 / 0.01))


@pytest.mark.parametrize(
    ("counts", "elo0", "elo1", "model", "expected"),
    [
        ((365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
        ((127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
        ((0, 0, 0, 0, 0, 5550), 0, 5, "normalized", 111.82),
        ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
        ((871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
    ],
)
def test_fastchess_values(
    counts: tuple[int, ...], elo0: float, elo1: float, model: str, expected: float
) -> None:
    llr = SPRT(elo0, elo1, 0.05, 0.05, model).llr(Pentanomial(*counts))
    assert llr == pytest.approx(expected, rel=0.01)


def test_two_outcome_closed_form() -> None:
    ll, ww = 380, 620
    n, p = ll + ww, ww / (ll + ww)
    s0, s1 = 1 / (1 + 10 ** (-0 / 400)), 1 / (1 + 10 ** (-50 / 400))
    expected = n * (p * math.log(s1 / s0) + (1 - p) * math.log((1 - s1) / (1 - s0)))
    llr = SPRT(0, 50, model="logistic").llr(Pentanomial(ll=ll, ww=ww))
    # the three empty bins hold 0.001 pairs each (fastchess's regularization)
    assert llr == pytest.approx(expected, abs=0.02)


def test_decisions() -> None:
    sprt = SPRT(0, 10)
    assert sprt.status(Pentanomial()).decision is Decision.CONTINUE
    assert sprt.status(Pentanomial()).llr == 0.0
    assert sprt.status(Pentanomial(ww=200, wd=100, dd=100)).decision is Decision.H1
    assert sprt.status(Pentanomial(ll=200, ld=100, dd=100)).decision is Decision.H0
    assert sprt.decide(sprt.upper) is Decision.H1
    assert sprt.decide(sprt.lower) is Decision.H0
    assert sprt.decide(0.0) is Decision.CONTINUE


def test_parse() -> None:
    assert parse_sprt("elo0=0,elo1=5,alpha=0.05,beta=0.05") == SPRT(0, 5, 0.05, 0.05)
    assert parse_sprt(" elo0=-1.5 , elo1=2 ") == SPRT(-1.5, 2)
    assert parse_sprt("elo0=0,elo1=5,model=logistic").model == "logistic"
    sprt = SPRT(0, 5, 0.01, 0.1, "logistic")
    assert parse_sprt(sprt.describe()) == sprt


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("elo0=0,elo1=5,gamma=1", "unknown SPRT key 'gamma'"),
        ("elo0=0,elo1=five", "SPRT elo1 must be a number, not 'five'"),
        ("elo0=0", "lack elo1"),
        ("elo0=5,elo1=0", "elo0 must be less than elo1"),
        ("elo0=0,elo1=5,alpha=1.5", "alpha must be between 0 and 1, not 1.5"),
        ("elo0=0,elo1=5,beta=0", "beta must be between 0 and 1, not 0.0"),
        ("elo0=0,elo1=5,alpha=0.6,beta=0.5", "alpha + beta must be less than 1"),
        ("elo0=0,elo1=5,model=bayes", "model must be one of normalized, logistic, not 'bayes'"),
        ("elo0=0,elo1", "'elo1' must be written key=value"),
        ("elo0=0,elo0=1,elo1=5", "'elo0' is given twice"),
        ("elo0=nan,elo1=5", "elo0 must be finite"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(SprtError, match=message.replace("+", r"\+")) as info:
        parse_sprt(text)
    assert "\n" not in str(info.value)


def test_state_json_round_trip() -> None:
    state = SprtState(SPRT(0, 5, 0.05, 0.05))
    state.add_pair(1, 0.5)
    status = state.add_pair(0, 1)
    assert state.penta == Pentanomial(wd=1, wl=1)
    text = json.dumps(state.as_dict())
    again = SprtState.from_dict(json.loads(text))
    assert again.sprt == state.sprt and again.penta == state.penta
    assert again.status() == status
    with pytest.raises(SprtError, match="unknown SPRT key 'x'"):
        SprtState.from_dict({"sprt": {"elo0": 0, "elo1": 1, "x": 2}, "pentanomial": {}})
    with pytest.raises(SprtError, match="pentanomial"):
        SprtState.from_dict({"sprt": {"elo0": 0, "elo1": 1}, "pentanomial": {"ww": 1}})


counts = st.integers(min_value=0, max_value=300)
pentanomials = st.builds(Pentanomial, counts, counts, counts, counts, counts, counts)
models = st.sampled_from(["normalized", "logistic"])


@settings(max_examples=60, deadline=None)
@given(pentanomials, st.floats(-20, 20), st.floats(0.5, 20), models)
def test_mirror_antisymmetry(penta: Pentanomial, elo0: float, width: float, model: str) -> None:
    """The other player's view of the same pairs, with mirrored hypotheses, negates the LLR."""
    elo1 = elo0 + width
    llr = SPRT(elo0, elo1, model=model).llr(penta)
    mirrored = SPRT(-elo1, -elo0, model=model).llr(penta.swapped())
    assert mirrored == pytest.approx(-llr, abs=1e-6 * max(1.0, abs(llr)))
    assert math.isfinite(llr)


@settings(max_examples=60, deadline=None)
@given(pentanomials, models)
def test_more_wins_never_lower_the_llr(penta: Pentanomial, model: str) -> None:
    """Turning a lost pair into a won one is evidence for H1: the LLR does not drop."""
    if penta.ll == 0:
        return
    sprt = SPRT(0, 10, model=model)
    better = Pentanomial(penta.ll - 1, penta.ld, penta.wl, penta.dd, penta.wd, penta.ww + 1)
    assert sprt.llr(better) >= sprt.llr(penta) - 1e-9


def test_summary_line() -> None:
    state = SprtState(SPRT(0, 5))
    assert state.summary().startswith("games 0 (0 pairs): +0 =0 -0, LLR 0.00 (-2.94, 2.94) [0, 5]")
    for pair in [(1, 0.5), (0.5, 0.5), (1, 1), (0, 1)]:
        state.add_pair(*pair)
    line = state.summary()
    assert line.startswith("games 8 (4 pairs): +4 =3 -1, score 68.8%, Elo ")
    assert "LOS " in line and line.endswith("[0, 5] continue") and "\n" not in line
    assert "Elo inf, nElo inf," in SprtState(SPRT(0, 5), Pentanomial(ww=2)).summary()
    # one pair (or pairs all alike): a margin of "-", never "± 0.0"
    one = SprtState(SPRT(0, 5), Pentanomial(wd=1)).summary()
    assert "Elo 190.8 ± -, nElo inf, LOS 100.0%" in one and "± 0.0" not in one
    draws = SprtState(SPRT(0, 5), Pentanomial(dd=3)).summary()
    assert "Elo 0.0 ± -, nElo 0.0 ± -," in draws
