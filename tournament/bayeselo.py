"""Bayesian Elo for a ladder: a maximum a posteriori fit with a first-move term, a draw
term, a prior and anchors, in the model of Rémi Coulom's bayeselo.

Why another fit beside `tournament.ratings`: a tournament is balanced (every
pair meets, seats swapped), so a draw can count as half a win and the seats
cancel out. A ladder is not balanced: who plays first is not always equal
between two bots, draws are common in some games and rare in others, and a
rating list must hold still where an anchor (GNU Go level 10 = 1800 on 9×9
Go, as CGOS does) is named. bayeselo's model handles all three:

* ``P(first wins)  = f(r_first - r_second + advantage - draw_elo)``
* ``P(second wins) = f(r_second - r_first - advantage - draw_elo)``
* ``P(draw)        = 1 - P(first wins) - P(second wins)``

with ``f(x) = 1 / (1 + 10 ** (-x / 400))``. ``advantage`` (the first move's
worth) and ``draw_elo`` (how drawish the game is) are fitted with the
ratings unless given. The prior is bayeselo's: each player has ``prior``
virtual draws against a virtual opponent rated at the field mean, which keeps
perfect scores finite and fades as real games come in.

The fit is Newton's method on the log posterior over the aggregated results
(one row per ordered pair and result, so the cost does not grow with the
number of games); the margins come from the inverse of its curvature at the
optimum (the Laplace approximation bayeselo's ``covariance`` command uses).
Without anchors the ratings are centred on mean 0; with anchors those keep
their ratings and the others' margins are relative to them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from tournament.ratings import check_mle_exists

__all__ = ["BayesFit", "LadderGame", "fit_bayeselo"]

#: the slope of the logistic on the Elo scale
_K = math.log(10.0) / 400.0
_MAX_ITERATIONS = 100
_TOLERANCE = 1e-7  # Elo


@dataclass(frozen=True, slots=True)
class LadderGame:
    """One game: `first` moved first; `score` is the first player's (1, 0.5 or 0)."""

    first: str
    second: str
    score: float

    def __post_init__(self) -> None:
        if self.score not in (0.0, 0.5, 1.0):
            raise ValueError(f"a game's score is 1, 0.5 or 0, not {self.score!r}")
        if self.first == self.second:
            raise ValueError(f"a player cannot play itself: {self.first!r}")


@dataclass(frozen=True, slots=True)
class BayesFit:
    """A fitted rating list: ratings, their margins, and the two game terms."""

    players: tuple[str, ...]
    ratings: tuple[float, ...]
    #: half-widths of the confidence intervals (0 for an anchor, inf without games)
    margins: tuple[float, ...]
    games: tuple[int, ...]
    advantage: float
    draw_elo: float
    anchors: tuple[str, ...]

    def rating(self, player: str) -> float:
        return self.ratings[self.players.index(player)]

    def margin(self, player: str) -> float:
        return self.margins[self.players.index(player)]

    def as_dict(self) -> dict[str, tuple[float, float]]:
        """``{player: (rating, margin)}``."""
        return {p: (r, m) for p, r, m in zip(self.players, self.ratings, self.margins, strict=True)}


def _f(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-_K * x))


class _Model:
    """The log posterior and its gradient over (free ratings, advantage, draw_elo)."""

    def __init__(
        self,
        n: int,
        rows: np.ndarray,
        prior: float,
        fixed: dict[int, float],
        fit_advantage: bool,
        fit_draw: bool,
    ) -> None:
        self.n = n
        # rows: (first, second, result 0 win / 1 draw / 2 loss for first, count)
        self.i, self.j = rows[:, 0].astype(int), rows[:, 1].astype(int)
        self.result, self.count = rows[:, 2].astype(int), rows[:, 3]
        self.prior = prior
        self.fixed = fixed
        self.free = [p for p in range(n) if p not in fixed]
        self.fit_advantage, self.fit_draw = fit_advantage, fit_draw

    def unpack(
        self, theta: np.ndarray, advantage: float, draw: float
    ) -> tuple[np.ndarray, float, float]:
        r = np.zeros(self.n)
        for p, value in self.fixed.items():
            r[p] = value
        r[self.free] = theta[: len(self.free)]
        k = len(self.free)
        if self.fit_advantage:
            advantage = float(theta[k])
            k += 1
        if self.fit_draw:
            draw = float(theta[k])
        return r, advantage, draw

    def pack(self, r: np.ndarray, advantage: float, draw: float) -> np.ndarray:
        extra = ([advantage] if self.fit_advantage else []) + ([draw] if self.fit_draw else [])
        return np.concatenate([r[self.free], np.array(extra, dtype=float)])

    def value_and_gradient(
        self, theta: np.ndarray, advantage: float, draw: float
    ) -> tuple[float, np.ndarray]:
        r, advantage, draw = self.unpack(theta, advantage, draw)
        if draw < 0:
            return -math.inf, np.zeros_like(theta)
        # real games: the first's side of each row at r_i - r_j + advantage
        diff = r[self.i] - r[self.j] + advantage
        total, g_diff, g_draw = _terms(diff, draw, self.result, self.count)
        grad_r = np.zeros(self.n)
        np.add.at(grad_r, self.i, g_diff)
        np.add.at(grad_r, self.j, -g_diff)
        grad_adv, grad_draw = float(np.sum(g_diff)), g_draw
        # the prior: `prior` virtual games per player against the field mean, half won and
        # half lost (a virtual draw as `tournament.ratings` counts one: it needs no draw term)
        if self.prior > 0:
            vdiff = r - float(r.mean())
            up, down = _f(vdiff), _f(-vdiff)
            total += float(self.prior * 0.5 * np.sum(np.log(up) + np.log(down)))
            v_r = self.prior * 0.5 * _K * (down - up)
            grad_r += v_r - v_r.sum() / self.n  # d(vdiff_p)/d(r_q) = [p == q] - 1/n
        gradient = [grad_r[self.free]]
        if self.fit_advantage:
            gradient.append(np.array([grad_adv]))
        if self.fit_draw:
            gradient.append(np.array([grad_draw]))
        return total, np.concatenate(gradient)

    def hessian(self, theta: np.ndarray, advantage: float, draw: float) -> np.ndarray:
        """The log posterior's second derivatives over `theta` (the layout of `pack`)."""
        r, advantage, draw = self.unpack(theta, advantage, draw)
        n = self.n
        full = np.zeros((n + 2, n + 2))  # ratings, advantage, draw_elo
        h_dd, h_dD, h_DD = _curvature(r[self.i] - r[self.j] + advantage, draw, self.result)
        h_dd, h_dD, h_DD = h_dd * self.count, h_dD * self.count, h_DD * self.count
        adv, drw = n, n + 1
        # diff = r_i - r_j + advantage: its gradient row is +1 at i and adv, -1 at j
        np.add.at(full, (self.i, self.i), h_dd)
        np.add.at(full, (self.j, self.j), h_dd)
        np.add.at(full, (self.i, self.j), -h_dd)
        np.add.at(full, (self.j, self.i), -h_dd)
        for sign, who in ((1.0, self.i), (-1.0, self.j)):
            np.add.at(full[:, adv], who, sign * h_dd)
            np.add.at(full[:, drw], who, sign * h_dD)
        full[adv, :n] = full[:n, adv]
        full[drw, :n] = full[:n, drw]
        full[adv, adv] = float(np.sum(h_dd))
        full[adv, drw] = full[drw, adv] = float(np.sum(h_dD))
        full[drw, drw] = float(np.sum(h_DD))
        if self.prior > 0:  # by v = r - mean(r), whose Jacobian is I - J/n
            vdiff = r - float(r.mean())
            up = _f(vdiff)
            c = -self.prior * _K * _K * up * (1.0 - up)
            full[:n, :n] += np.diag(c) - (c[:, None] + c[None, :]) / n + float(c.sum()) / (n * n)
        keep = list(self.free)
        if self.fit_advantage:
            keep.append(adv)
        if self.fit_draw:
            keep.append(drw)
        return full[np.ix_(keep, keep)]


def _curvature(
    diff: np.ndarray, draw: float, result: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row, the second derivatives of one result's log likelihood by (diff, diff),
    (diff, draw) and (draw, draw), from those by a = diff - draw and b = -diff - draw."""
    fa, fb = _f(diff - draw), _f(-diff - draw)
    da, db = _K * fa * (1 - fa), _K * fb * (1 - fb)
    dda, ddb = _K * da * (1 - 2 * fa), _K * db * (1 - 2 * fb)  # f''(a), f''(b)
    win, drawn, loss = result == 0, result == 1, result == 2
    p = np.where(drawn, np.maximum(1.0 - fa - fb, 1e-150), 1.0)  # only drawn rows use it
    l_aa = np.where(win, -_K * da, np.where(drawn, -dda / p - da * da / (p * p), 0.0))
    l_bb = np.where(loss, -_K * db, np.where(drawn, -ddb / p - db * db / (p * p), 0.0))
    l_ab = np.where(drawn, -da * db / (p * p), 0.0)
    return l_aa - 2 * l_ab + l_bb, l_bb - l_aa, l_aa + 2 * l_ab + l_bb


def _terms(
    diff: np.ndarray, draw: float, result: np.ndarray, count: np.ndarray
) -> tuple[float, np.ndarray, float]:
    """The log likelihood of rows of `count` results (0 first wins, 1 draw, 2 second wins)
    at rating differences `diff` (the first's, with the first move's term), its derivative
    by each row's `diff`, and its derivative by `draw` (draw_elo)."""
    fa, fb = _f(diff - draw), _f(-diff - draw)
    da, db = _K * fa * (1 - fa), _K * fb * (1 - fb)  # f'(a), f'(b)
    win, drawn, loss = result == 0, result == 1, result == 2
    p_draw = np.where(drawn, np.maximum(1.0 - fa - fb, 1e-150), 1.0)  # only drawn rows use it
    logp = np.where(win, np.log(fa), np.where(drawn, np.log(p_draw), np.log(fb)))
    # by a = diff - draw and b = -diff - draw
    dla = np.where(win, da / fa, np.where(drawn, -da / p_draw, 0.0))
    dlb = np.where(loss, db / fb, np.where(drawn, -db / p_draw, 0.0))
    g_diff = count * (dla - dlb)
    return float(np.sum(count * logp)), g_diff, float(np.sum(count * (-dla - dlb)))


def fit_bayeselo(
    players: Sequence[str],
    games: Iterable[LadderGame],
    *,
    prior: float = 2.0,
    anchors: Mapping[str, float] | None = None,
    advantage: float | None = None,
    draw_elo: float | None = None,
    confidence: float = 0.95,
) -> BayesFit:
    """The MAP ratings of `players` from `games` (see the module's doc).

    `advantage` / `draw_elo` fix those terms (None: fitted); `anchors` fix
    those players' ratings. A ValueError names what is wrong with the input.
    """
    anchors = dict(anchors or {})
    unknown = sorted(set(anchors) - set(players))
    if unknown:
        raise ValueError(f"anchors that are not players: {', '.join(unknown)}")
    if not (math.isfinite(prior) and prior >= 0):
        raise ValueError(f"prior must be a finite number >= 0, not {prior!r}")
    index = {p: n for n, p in enumerate(players)}
    counts: dict[tuple[int, int, int], float] = {}
    played = [0] * len(players)
    any_draw = False
    for game in games:
        if game.first not in index or game.second not in index:
            missing = game.first if game.first not in index else game.second
            raise ValueError(f"a game names {missing!r}, who is not in the list of players")
        i, j = index[game.first], index[game.second]
        result = {1.0: 0, 0.5: 1, 0.0: 2}[game.score]
        any_draw |= result == 1
        counts[(i, j, result)] = counts.get((i, j, result), 0.0) + 1.0
        played[i] += 1
        played[j] += 1
    active = [p for n, p in enumerate(players) if played[n] or p in anchors]
    if not counts:
        return _empty(players, anchors, advantage or 0.0, draw_elo or 0.0)
    sub = {p: n for n, p in enumerate(active)}
    if prior == 0 and not anchors:  # the plain MLE: finite only on a connected field
        points = [[0.0] * len(active) for _ in active]
        for (i, j, result), c in counts.items():
            first, second = sub[players[i]], sub[players[j]]
            points[first][second] += c * (2 - result) / 2
            points[second][first] += c * result / 2
        check_mle_exists(active, points)
    rows = np.array(
        [(sub[players[i]], sub[players[j]], res, c) for (i, j, res), c in counts.items()],
        dtype=float,
    )
    fixed = {sub[p]: float(v) for p, v in anchors.items() if p in sub}
    fit_draw = draw_elo is None and any_draw
    model = _Model(len(active), rows, prior, fixed, advantage is None, fit_draw)
    adv0 = 0.0 if advantage is None else float(advantage)
    draw0 = (100.0 if any_draw else 0.0) if draw_elo is None else float(draw_elo)
    start = np.full(len(active), float(np.mean(list(fixed.values()))) if fixed else 0.0)
    theta = model.pack(start, adv0, draw0)
    theta, hessian = _newton(model, theta, adv0, draw0)
    r, adv, draw = model.unpack(theta, adv0, draw0)
    covariance = _covariance(hessian, len(model.free), centred=not fixed)
    if not fixed:
        r = r - r.mean()
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)
    ratings, margins, games_played = [], [], []
    free_at = {p: n for n, p in enumerate(model.free)}
    for n, p in enumerate(players):
        games_played.append(played[n])
        if p not in sub:
            ratings.append(0.0)
            margins.append(math.inf)
            continue
        q = sub[p]
        ratings.append(float(r[q]))
        margins.append(
            0.0 if q in fixed else z * math.sqrt(max(covariance[free_at[q], free_at[q]], 0.0))
        )
    return BayesFit(
        players=tuple(players),
        ratings=tuple(ratings),
        margins=tuple(margins),
        games=tuple(games_played),
        advantage=adv,
        draw_elo=draw,
        anchors=tuple(p for p in players if p in anchors),
    )


def _empty(
    players: Sequence[str], anchors: Mapping[str, float], advantage: float, draw: float
) -> BayesFit:
    return BayesFit(
        players=tuple(players),
        ratings=tuple(float(anchors.get(p, 0.0)) for p in players),
        margins=tuple(0.0 if p in anchors else math.inf for p in players),
        games=tuple(0 for _ in players),
        advantage=advantage,
        draw_elo=draw,
        anchors=tuple(p for p in players if p in anchors),
    )


def _newton(
    model: _Model, theta: np.ndarray, adv: float, draw: float
) -> tuple[np.ndarray, np.ndarray]:
    """Maximise the log posterior from `theta`: damped Newton steps (halved until the
    posterior rises), with the gauge (adding a constant to every rating) pinned when no
    player is anchored."""
    gauge = not model.fixed
    nfree = len(model.free)
    value, grad = model.value_and_gradient(theta, adv, draw)
    hessian = model.hessian(theta, adv, draw)
    for _ in range(_MAX_ITERATIONS):
        info = -hessian
        if gauge:  # the ratings' common shift changes nothing: pin it
            info[:nfree, :nfree] += 1.0 / nfree
        try:
            step = np.linalg.solve(info, grad)
        except np.linalg.LinAlgError:
            step = grad * 10.0
        scale = 1.0
        while True:
            candidate = theta + scale * step
            new_value, new_grad = model.value_and_gradient(candidate, adv, draw)
            if new_value >= value - 1e-12 or scale < 1e-6:
                break
            scale /= 2
        moved = float(np.max(np.abs(candidate - theta)))
        theta, value, grad = candidate, new_value, new_grad
        hessian = model.hessian(theta, adv, draw)
        if moved < _TOLERANCE:
            break
        if not math.isfinite(value) or float(np.max(np.abs(theta))) > 1e5:
            raise ValueError(
                "the ratings have no finite maximum: some player won or lost every game;"
                " use a prior > 0 or an anchor"
            )
    return theta, hessian


def _covariance(hessian: np.ndarray, nfree: int, *, centred: bool) -> np.ndarray:
    """The covariance of the free ratings: the inverse curvature of the log posterior (for
    centred ratings, its pseudo-inverse along the gauge)."""
    info = -hessian
    gauge = np.zeros_like(info)
    if centred:
        gauge[:nfree, :nfree] = 1.0 / nfree
    try:
        cov: np.ndarray = np.linalg.inv(info + gauge) - gauge
    except np.linalg.LinAlgError:  # a player with no information at all: no margin
        cov = np.full_like(info, np.inf)
    return cov
