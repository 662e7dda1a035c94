"""Match statistics between two players: score, Elo with a 95% interval, LOS, draws, pairs.

Why this shape: engine testing (cutechess-cli, fastchess) plays each opening
twice with the seats swapped. The two games of such a *pair* share an opening
and are not independent, so the honest unit of sampling is the pair. A pair
scores 0, 0.5, 1, 1.5 or 2 points for the first player, counted in five bins
(the *pentanomial* distribution): LL, LD, WL+DD, WD, WW. Games that are not
part of a complete pair are summarised per game (the *trinomial* W/D/L).

Both estimates follow the same recipe (as fastchess does, in
``app/src/matchmaking/elo/elo_wdl.cpp`` and ``elo_pentanomial.cpp``):

* the mean score ``s`` per game, and the sample variance of one sampling unit
  (a game's score, or a pair's score divided by two: its mean is then ``s``
  too), divided by the number of units: the variance of ``s``;
* the 95% interval of the score, ``s ± 1.959964 · sqrt(var / n)``, mapped
  through the logistic Elo curve ``elo(s) = -400 · log10(1/s - 1)``: the
  interval is ``[elo(lo), elo(hi)]`` and the "± error" shown is half its width;
* the likelihood of superiority, ``LOS = Φ((s - 0.5) / sqrt(var / n))``.

A margin needs a spread to measure: with fewer than two samples, or with
every sample the same (one pair, three WW pairs, five draws), the sample
variance is 0, which is no information, not certainty. Such an estimate has
no margin and no interval (``None``: shown as ``-``, JSON ``null``); see
`margin_or_none`. (A perfect score is a sample all alike, so it has none
either.) With a spread, an interval can still reach a score of 0 or 1: that
bound is infinite, which `EloEstimate.as_dict` also writes as ``null``.

This is the one module for Elo/score conversions, LOS and error margins:
`tournament.ratings` (the Bradley-Terry fit) and `tournament.sprt` import
their conversions from here.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

__all__ = [
    "ELO_SCALE",
    "MIN_SAMPLES",
    "NELO_SCALE",
    "PAIR_SCORES",
    "Z95",
    "EloEstimate",
    "MatchStats",
    "Pentanomial",
    "Wdl",
    "elo_from_score",
    "estimate",
    "finite_or_none",
    "los",
    "margin_or_none",
    "pair_bin",
    "score_from_elo",
]

Z95 = NormalDist().inv_cdf(0.975)
"""The two-sided 95% quantile of the standard normal (1.959963984540054)."""

NELO_SCALE = 800.0 / math.log(10.0)
"""nElo per unit of (score - 0.5) / sd: makes nElo match Elo near 0 for a draw-free game."""

ELO_SCALE = math.log(10.0) / 400.0
"""Natural-log slope of the Elo curve: ``score_from_elo(d) = sigmoid(ELO_SCALE · d)``."""

MIN_SAMPLES = 2
"""Fewer games (or pairs) than this support no error margin."""

#: the score of a pair in each pentanomial bin, per game (pair points / 2)
PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)


def score_from_elo(difference: float) -> float:
    """Expected score per game of a player `difference` Elo stronger: ``1 / (1 + 10^(-d/400))``.

    Evaluated as a logistic sigmoid in the form that cannot overflow, so any
    difference gives a score in [0, 1]: it rounds to exactly 1.0 above about
    +6,400 Elo and to 0.0 below about -129,300 Elo; ``inf`` gives 1.0 and
    ``-inf`` 0.0. ``score_from_elo(-d) == 1 - score_from_elo(d)`` up to
    rounding. NaN raises ValueError (it would poison a fit silently).
    """
    if math.isnan(difference):
        raise ValueError(f"an Elo difference must be a number, not {difference!r}")
    x = ELO_SCALE * difference
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def elo_from_score(score: float) -> float:
    """The Elo difference giving expected score `score`: ``-400 · log10(1/s - 1)``.

    ``-inf`` at 0 and ``inf`` at 1; a score outside [0, 1] or NaN raises
    ValueError.
    """
    if not 0.0 <= score <= 1.0:  # also false for NaN
        raise ValueError(f"score must be between 0 and 1, not {score!r}")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def los(score: float, standard_error: float) -> float:
    """Likelihood of superiority: P(true score > 0.5), ``Φ((score - 0.5) / standard_error)``.

    The normal approximation fastchess uses, with the standard error of the
    mean score per game (trinomial or pentanomial). Cutechess's LOS from wins
    and losses only, ``Φ((W - L) / sqrt(W + L))``, is this with ``score = W /
    (W + L)`` and the standard error under equal strength, ``0.5 / sqrt(W +
    L)``. A standard error of 0 (no spread) gives 1.0 above 0.5, 0.0 below
    and 0.5 at it. A score outside [0, 1], a negative standard error or NaN
    raises ValueError.
    """
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score must be between 0 and 1, not {score!r}")
    if not standard_error >= 0.0:
        raise ValueError(f"a standard error must be >= 0, not {standard_error!r}")
    if standard_error > 0.0:
        return NormalDist().cdf((score - 0.5) / standard_error)
    return 0.5 if score == 0.5 else (1.0 if score > 0.5 else 0.0)


def finite_or_none(value: float) -> float | None:
    """`value`, or None when it is infinite or NaN (JSON has no infinity)."""
    return value if math.isfinite(value) else None


def margin_or_none(margin: float | None, samples: int) -> float | None:
    """`margin` when the data can support it, else None (shown as ``-``, JSON ``null``).

    None when fewer than `MIN_SAMPLES` samples (games or pairs) back it, or
    when it is not a positive finite number: 0 comes from a sample without
    spread (no information, not certainty), infinity from an interval that
    reaches a score of 0 or 1.
    """
    if margin is None or samples < MIN_SAMPLES or not 0.0 < margin < math.inf:
        return None
    return margin


def _check_count(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a count (an integer >= 0), not {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Wdl:
    """Per-game results from the first player's side: wins, draws, losses."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    def __post_init__(self) -> None:
        for name in ("wins", "draws", "losses"):
            _check_count(name, getattr(self, name))

    @classmethod
    def from_scores(cls, scores: Iterable[float]) -> Wdl:
        """Count game scores (1, 0.5 or 0 for the first player)."""
        wins = draws = losses = 0
        for score in scores:
            if score == 1.0:
                wins += 1
            elif score == 0.5:
                draws += 1
            elif score == 0.0:
                losses += 1
            else:
                raise ValueError(f"a game score must be 0, 0.5 or 1, not {score!r}")
        return cls(wins, draws, losses)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        return self.wins + 0.5 * self.draws

    def __add__(self, other: Wdl) -> Wdl:
        return Wdl(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)

    def swapped(self) -> Wdl:
        """The same results from the second player's side."""
        return Wdl(self.losses, self.draws, self.wins)

    def as_dict(self) -> dict[str, int]:
        return {"wins": self.wins, "draws": self.draws, "losses": self.losses}

    @classmethod
    def from_dict(cls, data: Any) -> Wdl:
        if not isinstance(data, dict) or set(data) != {"wins", "draws", "losses"}:
            raise ValueError(f"W/D/L counts must be {{wins, draws, losses}}, not {data!r}")
        return cls(data["wins"], data["draws"], data["losses"])


def pair_bin(first: float, second: float) -> str:
    """The pentanomial bin of a pair from the first player's two game scores.

    ``pair_bin(1, 0.5) == "wd"``; a win and a loss is ``"wl"``, two draws ``"dd"``.
    """
    for score in (first, second):
        if score not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game score must be 0, 0.5 or 1, not {score!r}")
    if {first, second} == {0.0, 1.0}:
        return "wl"
    return _BIN_BY_POINTS[first + second]


_BIN_BY_POINTS = {0.0: "ll", 0.5: "ld", 1.0: "dd", 1.5: "wd", 2.0: "ww"}


@dataclass(frozen=True, slots=True)
class Pentanomial:
    """Counts of game pairs by the first player's two results (fastchess's bins).

    ``wl`` and ``dd`` both score one point per pair; they are kept apart for
    reporting (many WL pairs mean the openings decide the games) but pooled by
    every statistic.
    """

    ll: int = 0
    ld: int = 0
    wl: int = 0
    dd: int = 0
    wd: int = 0
    ww: int = 0

    def __post_init__(self) -> None:
        for name in ("ll", "ld", "wl", "dd", "wd", "ww"):
            _check_count(name, getattr(self, name))

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[float, float]]) -> Pentanomial:
        """Count pairs given as the first player's scores in its two games."""
        counts = dict.fromkeys(("ll", "ld", "wl", "dd", "wd", "ww"), 0)
        for first, second in pairs:
            counts[pair_bin(first, second)] += 1
        return cls(**counts)

    @property
    def pairs(self) -> int:
        return self.ll + self.ld + self.wl + self.dd + self.wd + self.ww

    def bins(self) -> tuple[int, int, int, int, int]:
        """The five pooled bins: pairs scoring 0, 0.5, 1, 1.5 and 2 points."""
        return (self.ll, self.ld, self.wl + self.dd, self.wd, self.ww)

    @property
    def wdl(self) -> Wdl:
        """The per-game W/D/L totals implied by the pairs."""
        return Wdl(
            wins=2 * self.ww + self.wd + self.wl,
            draws=self.ld + 2 * self.dd + self.wd,
            losses=2 * self.ll + self.ld + self.wl,
        )

    def __add__(self, other: Pentanomial) -> Pentanomial:
        return Pentanomial(
            self.ll + other.ll,
            self.ld + other.ld,
            self.wl + other.wl,
            self.dd + other.dd,
            self.wd + other.wd,
            self.ww + other.ww,
        )

    def add(self, first: float, second: float) -> Pentanomial:
        """These counts plus one pair."""
        return self + Pentanomial.from_pairs([(first, second)])

    def swapped(self) -> Pentanomial:
        """The same pairs from the second player's side."""
        return Pentanomial(self.ww, self.wd, self.wl, self.dd, self.ld, self.ll)

    def as_dict(self) -> dict[str, int]:
        return {
            "ll": self.ll,
            "ld": self.ld,
            "wl": self.wl,
            "dd": self.dd,
            "wd": self.wd,
            "ww": self.ww,
        }

    @classmethod
    def from_dict(cls, data: Any) -> Pentanomial:
        keys = {"ll", "ld", "wl", "dd", "wd", "ww"}
        if not isinstance(data, dict) or set(data) != keys:
            raise ValueError(f"pentanomial counts must have exactly {sorted(keys)}, not {data!r}")
        return cls(**data)


@dataclass(frozen=True, slots=True)
class EloEstimate:
    """Score and Elo difference of the first player with a 95% interval.

    ``error`` is half the width of the Elo interval (the "±" engine testers
    quote); ``lower``/``upper`` are the exact interval bounds, which are not
    symmetric around ``elo``. All three, and ``nelo_error``, are None when
    the sample cannot support a margin (fewer than two samples, or all of
    them alike: see `margin_or_none`); a bound is infinite when the interval
    reaches a score of 0 or 1.
    """

    samples: int  # games (trinomial) or pairs (pentanomial)
    score: float
    variance: float  # of one sample's score per game
    elo: float
    lower: float | None
    upper: float | None
    error: float | None
    los: float
    nelo: float  # normalized Elo (fastchess's nElo): (s - 0.5) / sd of a game, scaled
    nelo_error: float | None

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: infinite values and missing margins become None."""
        return {
            "samples": self.samples,
            "score": self.score,
            "elo": finite_or_none(self.elo),
            "error": _json(self.error),
            "lower": _json(self.lower),
            "upper": _json(self.upper),
            "los": self.los,
            "nelo": finite_or_none(self.nelo),
            "nelo_error": _json(self.nelo_error),
        }


def _json(value: float | None) -> float | None:
    return None if value is None else finite_or_none(value)


def estimate(
    values: Iterable[float], weights: Iterable[int], games_per_sample: int = 1
) -> EloEstimate | None:
    """Elo estimate from a discrete sample: per-game `values` observed `weights` times.

    None when the sample is empty. `weights` are counts of samples: games
    (``games_per_sample=1``) or pairs (2, whose per-game values are pair
    points / 2). Normalized Elo divides by the standard deviation of one
    game's score, estimated as ``sqrt(games_per_sample · variance)``. With
    fewer than `MIN_SAMPLES` samples or a single distinct value the variance
    is 0 and the estimate has no margin (``error`` etc. None).
    """
    pairs = [(v, w) for v, w in zip(values, weights, strict=True) if w > 0]
    n = sum(w for _, w in pairs)
    if n == 0:
        return None
    score = sum(v * w for v, w in pairs) / n
    variance = sum(w * (v - score) ** 2 for v, w in pairs) / n
    error_of_mean = math.sqrt(variance / n)
    spread = math.sqrt(games_per_sample * variance)
    lower: float | None = None
    upper: float | None = None
    error: float | None = None
    nelo_error: float | None = None
    if n >= MIN_SAMPLES and len({v for v, _ in pairs}) >= 2:  # else no spread: no margin
        low = max(0.0, score - Z95 * error_of_mean)
        high = min(1.0, score + Z95 * error_of_mean)
        lower, upper = elo_from_score(low), elo_from_score(high)
        error = (upper - lower) / 2.0
        nelo_error = (_nelo(high, spread) - _nelo(low, spread)) / 2.0
    return EloEstimate(
        samples=n,
        score=score,
        variance=variance,
        elo=elo_from_score(score),
        lower=lower,
        upper=upper,
        error=error,
        los=los(score, error_of_mean),
        nelo=_nelo(score, spread),
        nelo_error=nelo_error,
    )


def _nelo(score: float, spread: float) -> float:
    if spread > 0.0:
        return (score - 0.5) / spread * NELO_SCALE
    return 0.0 if score == 0.5 else math.copysign(math.inf, score - 0.5)


@dataclass(frozen=True, slots=True)
class MatchStats:
    """Everything the standings show for one player against another.

    ``penta`` counts the complete pairs; ``unpaired`` the games outside them
    (an odd game out, an unfinished pair). ``wdl`` is every game.
    """

    penta: Pentanomial
    unpaired: Wdl = Wdl()

    @classmethod
    def from_results(
        cls, pairs: Iterable[tuple[float, float]], single_games: Iterable[float] = ()
    ) -> MatchStats:
        return cls(Pentanomial.from_pairs(pairs), Wdl.from_scores(single_games))

    @property
    def wdl(self) -> Wdl:
        return self.penta.wdl + self.unpaired

    @property
    def games(self) -> int:
        return self.wdl.games

    @property
    def score(self) -> float | None:
        """Mean points per game, or None before any game."""
        wdl = self.wdl
        return wdl.points / wdl.games if wdl.games else None

    @property
    def draw_ratio(self) -> float | None:
        wdl = self.wdl
        return wdl.draws / wdl.games if wdl.games else None

    def elo_trinomial(self) -> EloEstimate | None:
        """Per-game estimate over every game (treats the games as independent)."""
        wdl = self.wdl
        return estimate((1.0, 0.5, 0.0), (wdl.wins, wdl.draws, wdl.losses))

    def elo_pentanomial(self) -> EloEstimate | None:
        """Per-pair estimate over the complete pairs (the one to trust with paired openings)."""
        return estimate(PAIR_SCORES, self.penta.bins(), games_per_sample=2)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready summary for ``--json`` output."""
        tri, penta = self.elo_trinomial(), self.elo_pentanomial()
        return {
            "games": self.games,
            **self.wdl.as_dict(),
            "score": self.score,
            "draw_ratio": self.draw_ratio,
            "pentanomial": self.penta.as_dict(),
            "pairs": self.penta.pairs,
            "unpaired": self.unpaired.as_dict(),
            "elo": None if tri is None else tri.as_dict(),
            "elo_pentanomial": None if penta is None else penta.as_dict(),
        }
