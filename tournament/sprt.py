"""Sequential probability ratio test (SPRT) between two players, on game pairs.

The test decides between H0: "the first player is `elo0` stronger" and H1:
"it is `elo1` stronger" (elo0 < elo1), with false-positive rate `alpha` and
false-negative rate `beta`. After each finished pair the log-likelihood ratio
(LLR) of the observed pentanomial counts is compared with Wald's bounds
``log(beta / (1 - alpha))`` and ``log((1 - beta) / alpha)``: below the lower
bound accept H0, above the upper accept H1, else continue.

The LLR is a *generalized* LLR (GSPRT): the distribution of a pair's score is
not fixed by an Elo value alone, so for each hypothesis we take the pentanomial
distribution of maximum likelihood among those satisfying it (Van den Bergh,
"Comparing the approximations for the generalized log likelihood ratio of a
multinomial distribution", and "Comments on normalized Elo"), and
``LLR = N · Σ p̂_i · log(p1_i / p0_i)``. This is exactly what fastchess does
(``app/src/matchmaking/sprt/sprt.cpp``), including its regularization of empty
bins to 0.001 pairs, so our LLR matches its numbers.

Two models of "Elo" are offered, as in fastchess:

* ``normalized`` (the default, fastchess's default and fishtest's): the
  hypotheses are about normalized Elo, ``t = (s - 0.5) / σ_pair`` scaled so
  that nElo = ``800 / ln 10 · t / sqrt(2)``. It measures the difference in
  units of its own noise, so the same bounds mean the same expected test
  length whatever the draw rate — which matters here: tic-tac-toe between
  strong players is nearly all draws, reversi has few. Logistic bounds would
  be far too easy or far too hard depending on the game.
* ``logistic``: the hypotheses are about the classical logistic Elo,
  ``s = 1 / (1 + 10^(-elo/400))``; easier to explain, draw-rate dependent.

The state (`SprtState`: the test plus its pentanomial counts) is plain JSON
for ``--resume``.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tournament.errors import SprtError as SprtError
from tournament.stats import NELO_SCALE, PAIR_SCORES, MatchStats, Pentanomial, score_from_elo

__all__ = ["MODELS", "SPRT", "Decision", "SprtError", "SprtState", "SprtStatus", "parse_sprt"]

MODELS = ("normalized", "logistic")

#: an empty bin counts as this many pairs (as in fastchess), so no log(0) appears
REGULARIZATION = 1e-3


class Decision(enum.Enum):
    """Where the test stands."""

    H0 = "H0"  # accept H0: the first player is at most elo0 stronger
    H1 = "H1"  # accept H1: the first player is at least elo1 stronger
    CONTINUE = "continue"


def _bisect_decreasing(
    f: Callable[[float], float], low: float, high: float, tolerance: float = 1e-12
) -> float:
    """A root of `f` (decreasing from +inf at `low` to -inf at `high`) by bisection."""
    for _ in range(200):
        middle = (low + high) / 2.0
        if high - low <= tolerance * max(1.0, abs(middle)):
            return middle
        if f(middle) > 0.0:
            low = middle
        else:
            high = middle
    return (low + high) / 2.0


def _mle_given_mean(probs: Sequence[float], phi: Sequence[float]) -> list[float]:
    """The distribution q maximizing Σ p̂_i log q_i subject to Σ q_i φ_i = 0.

    By Lagrange, ``q_i = p̂_i / (1 + θ φ_i)`` with θ the root of
    ``Σ p̂_i φ_i / (1 + θ φ_i) = 0`` inside ``(-1 / max φ, -1 / min φ)``.
    """
    low, high = -1.0 / max(phi), -1.0 / min(phi)

    def f(theta: float) -> float:
        return sum(p * x / (1.0 + theta * x) for p, x in zip(probs, phi, strict=True))

    theta = _bisect_decreasing(f, low, high)
    return [p / (1.0 + theta * x) for p, x in zip(probs, phi, strict=True)]


def _mle_logistic(scores: Sequence[float], probs: Sequence[float], s: float) -> list[float]:
    """The most likely distribution with mean score `s`."""
    return _mle_given_mean(probs, [a - s for a in scores])


def _mle_normalized(scores: Sequence[float], probs: Sequence[float], t: float) -> list[float]:
    """The most likely distribution with ``(mean - 0.5) / sd == t`` (fixed-point iteration)."""
    q = [1.0 / len(scores)] * len(scores)
    for _ in range(100):
        mu = sum(a * p for a, p in zip(scores, q, strict=True))
        sigma = math.sqrt(sum(p * (a - mu) ** 2 for a, p in zip(scores, q, strict=True)))
        phi = [a - 0.5 - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in scores]
        new = _mle_given_mean(probs, phi)
        change = max(abs(a - b) for a, b in zip(new, q, strict=True))
        q = new
        if change < 1e-10:
            break
    return q


@dataclass(frozen=True, slots=True)
class SprtStatus:
    """The test after some pairs: LLR, bounds and the decision."""

    llr: float
    lower: float
    upper: float
    decision: Decision

    def as_dict(self) -> dict[str, Any]:
        return {
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "decision": self.decision.value,
        }


@dataclass(frozen=True, slots=True)
class SPRT:
    """An SPRT configuration: hypotheses elo0 < elo1, error rates alpha and beta."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05
    model: str = "normalized"

    def __post_init__(self) -> None:
        for name in ("elo0", "elo1", "alpha", "beta"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise SprtError(f"SPRT {name} must be a number, not {value!r}")
            if not math.isfinite(value):
                raise SprtError(f"SPRT {name} must be finite, not {value!r}")
        if not self.elo0 < self.elo1:
            raise SprtError(f"SPRT elo0 must be less than elo1, not {self.elo0!r} >= {self.elo1!r}")
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise SprtError(f"SPRT {name} must be between 0 and 1, not {value!r}")
        if self.alpha + self.beta >= 1.0:
            raise SprtError(
                f"SPRT alpha + beta must be less than 1, not {self.alpha!r} + {self.beta!r}"
            )
        if self.model not in MODELS:
            raise SprtError(f"SPRT model must be one of {', '.join(MODELS)}, not {self.model!r}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this LLR: ``log(beta / (1 - alpha))``."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this LLR: ``log((1 - beta) / alpha)``."""
        return math.log((1.0 - self.beta) / self.alpha)

    def llr(self, penta: Pentanomial) -> float:
        """The generalized log-likelihood ratio of H1 against H0 for these pair counts."""
        if penta.pairs == 0:
            return 0.0
        counts = [count if count else REGULARIZATION for count in penta.bins()]
        total = sum(counts)
        probs = [count / total for count in counts]
        scores = PAIR_SCORES
        if self.model == "normalized":
            # a pair's per-game score has sd sigma_pair; nElo is defined per game
            # pair as (s - 0.5) / (sqrt(2) sigma_pair) * 800 / ln 10
            t0 = math.sqrt(2.0) * self.elo0 / NELO_SCALE
            t1 = math.sqrt(2.0) * self.elo1 / NELO_SCALE
            p0 = _mle_normalized(scores, probs, t0)
            p1 = _mle_normalized(scores, probs, t1)
        else:
            p0 = _mle_logistic(scores, probs, score_from_elo(self.elo0))
            p1 = _mle_logistic(scores, probs, score_from_elo(self.elo1))
        return total * sum(
            p * (math.log(b) - math.log(a)) for p, a, b in zip(probs, p0, p1, strict=True)
        )

    def decide(self, llr: float) -> Decision:
        if llr >= self.upper:
            return Decision.H1
        if llr <= self.lower:
            return Decision.H0
        return Decision.CONTINUE

    def status(self, penta: Pentanomial) -> SprtStatus:
        llr = self.llr(penta)
        return SprtStatus(llr, self.lower, self.upper, self.decide(llr))

    def describe(self) -> str:
        """``elo0=0,elo1=5,alpha=0.05,beta=0.05`` (plus the model when not the default)."""
        text = f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"
        return text if self.model == "normalized" else f"{text},model={self.model}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "elo0": self.elo0,
            "elo1": self.elo1,
            "alpha": self.alpha,
            "beta": self.beta,
            "model": self.model,
        }

    @classmethod
    def from_dict(cls, data: Any) -> SPRT:
        if not isinstance(data, dict):
            raise SprtError(f"SPRT settings must be a JSON object, not {data!r}")
        unknown = sorted(set(data) - {"elo0", "elo1", "alpha", "beta", "model"})
        if unknown:
            raise SprtError(f"unknown SPRT key {unknown[0]!r}")
        missing = sorted({"elo0", "elo1"} - set(data))
        if missing:
            raise SprtError(f"SPRT settings lack {missing[0]!r}")
        return cls(**data)


_KEYS = ("elo0", "elo1", "alpha", "beta", "model")


def parse_sprt(text: str) -> SPRT:
    """Parse ``elo0=0,elo1=5,alpha=0.05,beta=0.05[,model=normalized]``.

    elo0 and elo1 are required; alpha and beta default to 0.05. Errors are one
    line naming the bad key or value.
    """
    values: dict[str, Any] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        key, sep, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise SprtError(f"SPRT setting {part!r} must be written key=value")
        if key not in _KEYS:
            raise SprtError(f"unknown SPRT key {key!r} (valid keys: {', '.join(_KEYS)})")
        if key in values:
            raise SprtError(f"SPRT key {key!r} is given twice")
        if key == "model":
            values[key] = value
            continue
        try:
            number = float(value)
        except ValueError:
            raise SprtError(f"SPRT {key} must be a number, not {value!r}") from None
        values[key] = number
    for key in ("elo0", "elo1"):
        if key not in values:
            raise SprtError(f"SPRT settings {text!r} lack {key}=...")
    return SPRT(**values)


@dataclass(slots=True)
class SprtState:
    """A running test: the settings and the pairs counted so far (for --resume)."""

    sprt: SPRT
    penta: Pentanomial = field(default_factory=Pentanomial)

    def add_pair(self, first: float, second: float) -> SprtStatus:
        """Count one finished pair (first player's scores) and return the new status."""
        self.penta = self.penta.add(first, second)
        return self.status()

    def status(self) -> SprtStatus:
        return self.sprt.status(self.penta)

    def as_dict(self) -> dict[str, Any]:
        return {"sprt": self.sprt.as_dict(), "pentanomial": self.penta.as_dict()}

    def verdict(self, max_pairs: int | None = None) -> str:
        """``H0``, ``H1``, ``continue``, or ``undecided`` once `max_pairs` pairs are in."""
        decision = self.status().decision
        stopped = max_pairs is not None and self.penta.pairs >= max_pairs
        if decision is Decision.CONTINUE and stopped:
            return "undecided"  # the test stops here: "continue" would contradict it
        return decision.value

    def summary(self, max_pairs: int | None = None) -> str:
        """The live progress line, fastchess style::

        games 40 (20 pairs): +14 =16 -10, score 55.0%, Elo 34.9 ± 60.2, nElo 40.1 ± 69.2,
        LOS 87.2%, LLR 0.42 (-2.94, 2.94) [0, 5] continue

        The last word is the verdict: at the `max_pairs` limit an open test ends
        ``undecided (max pairs 20)``, not ``continue``.
        """
        stats = MatchStats(self.penta)
        wdl, status = stats.wdl, self.status()
        parts = [
            f"games {wdl.games} ({self.penta.pairs} pairs): +{wdl.wins} ={wdl.draws} -{wdl.losses}"
        ]
        estimate = stats.elo_pentanomial()
        if estimate is not None:
            parts.append(f"score {100 * estimate.score:.1f}%")
            parts.append(f"Elo {_plus_minus(estimate.elo, estimate.error)}")
            parts.append(f"nElo {_plus_minus(estimate.nelo, estimate.nelo_error)}")
            parts.append(f"LOS {100 * estimate.los:.1f}%")
        parts.append(
            f"LLR {status.llr:.2f} ({status.lower:.2f}, {status.upper:.2f})"
            f" [{self.sprt.elo0:g}, {self.sprt.elo1:g}] {self.verdict(max_pairs)}"
            + (f" (max pairs {max_pairs})" if self.verdict(max_pairs) == "undecided" else "")
        )
        return ", ".join(parts)

    @classmethod
    def from_dict(cls, data: Any) -> SprtState:
        if not isinstance(data, dict) or set(data) != {"sprt", "pentanomial"}:
            raise SprtError(f"SPRT state must be {{sprt, pentanomial}}, not {data!r}")
        sprt = SPRT.from_dict(data["sprt"])
        try:
            penta = Pentanomial.from_dict(data["pentanomial"])
        except ValueError as exc:
            raise SprtError(str(exc)) from None
        return cls(sprt, penta)


def _plus_minus(value: float, error: float | None) -> str:
    """``34.9 ± 60.2``; ``190.8 ± -`` without a margin; just ``inf`` for a perfect score."""
    if not math.isfinite(value):
        return _number(value)
    shown = "-" if error is None or not math.isfinite(error) else f"{error:.1f}"
    return f"{value + 0.0:.1f} ± {shown}"  # + 0.0: never "-0.0"


def _number(value: float) -> str:
    return f"{value:.1f}" if math.isfinite(value) else ("inf" if value > 0 else "-inf")
