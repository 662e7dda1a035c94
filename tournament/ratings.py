"""Tournament statistics: standings, crosstable, Elo fit with error margins, LOS.

Why this shape: ratings are a maximum-likelihood Bradley-Terry fit on the Elo
scale (a draw counts as half a win and half a loss), expected score
``1 / (1 + 10 ** (-(Ra - Rb) / 400))``, solved by Newton's method. Ratings are
relative to the field: they are centred on mean 0 over the players who played.

Perfect scores (or a player who only ever lost) send the plain maximum
likelihood to infinity. Like BayesElo we add a weak prior: each player gets
``prior_games`` virtual draws (default 2) against a virtual opponent rated at
the field mean. Near 0 this is a Gaussian prior with standard deviation about
``347 / sqrt(prior_games)`` Elo (246 for the default), so it bounds runaway
ratings while real games quickly outweigh it. ``prior_games=0`` gives the
plain maximum-likelihood estimate, and a ValueError when that does not exist.

The 95% margins come from the observed information (the negative Hessian of
the log-posterior at the optimum). That matrix is singular along
``(1, ..., 1)`` (adding a constant to every rating changes nothing), so the
covariance of the centred ratings ``r_i - mean(r)`` is its pseudo-inverse,
computed as ``(F + J/n)^-1 - J/n`` with ``J`` the all-ones matrix. Treating a
draw as half a win slightly overstates the variance of drawn games, so with
many draws the margins are a little conservative.

Pure Python on purpose (no numpy/scipy): fields are small (< 50 players).
The Elo/score conversions come from `tournament.stats`, the one statistics
module.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from tournament.stats import ELO_SCALE, score_from_elo

__all__ = [
    "DEFAULT_PRIOR_GAMES",
    "EloFit",
    "GameResult",
    "Standing",
    "crosstable",
    "fit_elo",
    "fit_ratings",
    "standings",
]

DEFAULT_PRIOR_GAMES = 2.0
"""Virtual draws per player against the field mean (BayesElo-style prior)."""

_MAX_ITERATIONS = 200
_TOLERANCE = 1e-9  # Elo; Newton converges quadratically, so this is cheap


@dataclass(frozen=True, slots=True)
class GameResult:
    """One finished game between two players, from ``player_a``'s side.

    ``score_a`` is 1 for a win by ``player_a``, 0.5 for a draw, 0 for a loss.
    For games with more seats, record one result per pair of players.
    """

    player_a: str
    player_b: str
    score_a: float

    def __post_init__(self) -> None:
        if self.score_a not in (0.0, 0.5, 1.0):
            raise ValueError(f"score_a must be 0, 0.5 or 1, not {self.score_a!r}")
        if self.player_a == self.player_b:
            raise ValueError(f"a player cannot play itself: {self.player_a!r}")


ResultLike = GameResult | tuple[str, str, float]
"""A GameResult or an ``(player_a, player_b, score_a)`` tuple."""


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of the standings table."""

    player: str
    games: int
    wins: int
    draws: int
    losses: int
    points: float
    elo: float
    """Rating relative to the field mean (0), on the Elo scale."""
    elo_margin: float
    """Half-width of the confidence interval (95% by default); inf without games."""

    @property
    def score(self) -> float | None:
        """Fraction of the available points won, or None without games."""
        return self.points / self.games if self.games else None


@dataclass(frozen=True, slots=True)
class EloFit:
    """A fitted rating list with its covariance (Elo² units, centred ratings)."""

    players: tuple[str, ...]
    ratings: tuple[float, ...]
    covariance: tuple[tuple[float, ...], ...]
    """Covariance of the centred ratings; inf on the diagonal for players without games."""
    z: float
    """Normal quantile used for the margins (1.96 for 95%)."""

    def _index(self, player: str) -> int:
        try:
            return self.players.index(player)
        except ValueError:
            raise ValueError(f"unknown player {player!r}") from None

    def rating(self, player: str) -> float:
        """The player's rating relative to the field mean."""
        return self.ratings[self._index(player)]

    def margin(self, player: str) -> float:
        """Half-width of the player's confidence interval (inf without games)."""
        i = self._index(player)
        return self.z * math.sqrt(self.covariance[i][i])

    def difference(self, player_a: str, player_b: str) -> tuple[float, float]:
        """``rating(a) - rating(b)`` and the margin of that difference."""
        i, j = self._index(player_a), self._index(player_b)
        c = self.covariance
        variance = c[i][i] + c[j][j] - 2.0 * c[i][j] if i != j else 0.0
        return self.ratings[i] - self.ratings[j], self.z * math.sqrt(max(variance, 0.0))

    def as_dict(self) -> dict[str, tuple[float, float]]:
        """``{player: (rating, margin)}``."""
        return {p: (self.rating(p), self.margin(p)) for p in self.players}


# -- small helpers ------------------------------------------------------------


def _log_sigmoid(x: float) -> float:
    if x >= 0:
        return -math.log1p(math.exp(-x))
    return x - math.log1p(math.exp(x))


def _normalize(players: Sequence[str], results: Iterable[ResultLike]) -> list[GameResult]:
    seen: set[str] = set()
    for player in players:
        if player in seen:
            raise ValueError(f"player {player!r} is listed twice")
        seen.add(player)
    games: list[GameResult] = []
    for result in results:
        game = result if isinstance(result, GameResult) else GameResult(*result)
        for name in (game.player_a, game.player_b):
            if name not in seen:
                raise ValueError(f"result {game!r} names unknown player {name!r}")
        games.append(game)
    return games


# -- crosstable and standings -------------------------------------------------


def crosstable(
    players: Sequence[str], results: Iterable[ResultLike]
) -> dict[str, dict[str, tuple[float, int]]]:
    """``table[row][col] = (points row scored against col, games between them)``.

    Every ordered pair of distinct players appears (``(0.0, 0)`` when they never
    met); a player has no entry against itself.
    """
    games = _normalize(players, results)
    table = {a: {b: (0.0, 0) for b in players if b != a} for a in players}
    for g in games:
        points, count = table[g.player_a][g.player_b]
        table[g.player_a][g.player_b] = (points + g.score_a, count + 1)
        points, count = table[g.player_b][g.player_a]
        table[g.player_b][g.player_a] = (points + 1.0 - g.score_a, count + 1)
    return table


def standings(
    players: Sequence[str],
    results: Iterable[ResultLike],
    *,
    prior_games: float = DEFAULT_PRIOR_GAMES,
    confidence: float = 0.95,
) -> list[Standing]:
    """Per-player record and fitted Elo, best first.

    Sorted by Elo, then points, then name; players without games come last.
    ``prior_games`` and ``confidence`` are passed to :func:`fit_ratings`.
    """
    games = _normalize(players, results)
    record = {p: [0, 0, 0] for p in players}  # wins, draws, losses
    for g in games:
        if g.score_a == 0.5:
            record[g.player_a][1] += 1
            record[g.player_b][1] += 1
        else:
            winner, loser = (
                (g.player_a, g.player_b) if g.score_a == 1.0 else (g.player_b, g.player_a)
            )
            record[winner][0] += 1
            record[loser][2] += 1
    fit = fit_ratings(players, games, prior_games=prior_games, confidence=confidence)
    rows = [
        Standing(
            player=p,
            games=wins + draws + losses,
            wins=wins,
            draws=draws,
            losses=losses,
            points=wins + 0.5 * draws,
            elo=fit.rating(p),
            elo_margin=fit.margin(p),
        )
        for p, (wins, draws, losses) in record.items()
    ]
    rows.sort(key=lambda s: (s.games == 0, -s.elo, -s.points, s.player))
    return rows


# -- the Elo fit --------------------------------------------------------------


def fit_elo(
    players: Sequence[str],
    results: Iterable[ResultLike],
    prior_games: float = DEFAULT_PRIOR_GAMES,
    *,
    confidence: float = 0.95,
) -> dict[str, tuple[float, float]]:
    """``{player: (elo, margin)}``: see :func:`fit_ratings`."""
    return fit_ratings(players, results, prior_games=prior_games, confidence=confidence).as_dict()


def fit_ratings(
    players: Sequence[str],
    results: Iterable[ResultLike],
    *,
    prior_games: float = DEFAULT_PRIOR_GAMES,
    confidence: float = 0.95,
) -> EloFit:
    """Fit Elo ratings (mean 0 over players with games) and their covariance.

    ``prior_games`` virtual draws per player against the field mean keep the
    fit finite (0 = plain maximum likelihood; a ValueError names the players
    when that has no finite solution). Players without games get rating 0 and
    an infinite margin; they do not affect the others.
    """
    if not (math.isfinite(prior_games) and prior_games >= 0):
        raise ValueError(f"prior_games must be a finite number >= 0, not {prior_games!r}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence!r}")
    games = _normalize(players, results)
    z = NormalDist().inv_cdf(0.5 + confidence / 2.0)

    played = {name for g in games for name in (g.player_a, g.player_b)}
    active = [p for p in players if p in played]
    index = {p: i for i, p in enumerate(active)}
    n = len(active)
    # points[i][j]: points i scored against j; count[i][j]: games between them
    points = [[0.0] * n for _ in range(n)]
    count = [[0] * n for _ in range(n)]
    for g in games:
        i, j = index[g.player_a], index[g.player_b]
        points[i][j] += g.score_a
        points[j][i] += 1.0 - g.score_a
        count[i][j] += 1
        count[j][i] += 1
    if prior_games == 0:
        check_mle_exists(active, points)

    ratings, cov = _newton(points, count, prior_games) if n else ([], [])

    full_ratings: list[float] = []
    full_cov = [[0.0] * len(players) for _ in players]
    for a, p in enumerate(players):
        i_a = index.get(p)
        full_ratings.append(ratings[i_a] if i_a is not None else 0.0)
        for b, q in enumerate(players):
            i_b = index.get(q)
            if i_a is not None and i_b is not None:
                full_cov[a][b] = cov[i_a][i_b]
            elif a == b:
                full_cov[a][b] = math.inf
    return EloFit(
        players=tuple(players),
        ratings=tuple(full_ratings),
        covariance=tuple(tuple(row) for row in full_cov),
        z=z,
    )


def check_mle_exists(active: list[str], points: list[list[float]]) -> None:
    """The plain MLE is finite iff "scored a point against" is strongly connected."""
    n = len(active)
    if n == 0:
        return

    def reach(forward: bool) -> set[int]:
        seen, stack = {0}, [0]
        while stack:
            i = stack.pop()
            for j in range(n):
                edge = points[i][j] if forward else points[j][i]
                if edge > 0 and j not in seen:
                    seen.add(j)
                    stack.append(j)
        return seen

    if len(reach(True)) < n or len(reach(False)) < n:
        raise ValueError(
            "prior_games=0: the maximum-likelihood ratings are infinite (some group of "
            "players won or lost every game against the rest, or the field is split into "
            f"groups that never met) among {active!r}; use prior_games > 0"
        )


def _log_posterior(
    r: list[float], points: list[list[float]], count: list[list[int]], prior: float
) -> float:
    n = len(r)
    total = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            if count[i][j]:
                d = ELO_SCALE * (r[i] - r[j])
                total += points[i][j] * _log_sigmoid(d) + points[j][i] * _log_sigmoid(-d)
    if prior:
        mean = sum(r) / n
        for i in range(n):
            d = ELO_SCALE * (r[i] - mean)
            total += 0.5 * prior * (_log_sigmoid(d) + _log_sigmoid(-d))
    return total


def _gradient_and_information(
    r: list[float], points: list[list[float]], count: list[list[int]], prior: float
) -> tuple[list[float], list[list[float]]]:
    """Gradient of the log-posterior and its negative Hessian, in Elo units."""
    n = len(r)
    grad = [0.0] * n
    info = [[0.0] * n for _ in range(n)]
    s2 = ELO_SCALE * ELO_SCALE
    for i in range(n):
        for j in range(i + 1, n):
            games = count[i][j]
            if not games:
                continue
            e = score_from_elo(r[i] - r[j])
            g = ELO_SCALE * (points[i][j] - games * e)
            grad[i] += g
            grad[j] -= g
            w = s2 * games * e * (1.0 - e)
            info[i][i] += w
            info[j][j] += w
            info[i][j] -= w
            info[j][i] -= w
    if prior:
        # prior term f(d_i), d_i = r_i - mean(r): gradient P f', information P diag(-f'') P
        mean = sum(r) / n
        slope = [0.0] * n
        curvature = [0.0] * n
        for i in range(n):
            e = score_from_elo(r[i] - mean)
            slope[i] = prior * ELO_SCALE * (0.5 - e)
            curvature[i] = prior * s2 * e * (1.0 - e)
        mean_slope = sum(slope) / n
        mean_curv = sum(curvature) / n
        for i in range(n):
            grad[i] += slope[i] - mean_slope
            for j in range(n):
                delta = curvature[i] if i == j else 0.0
                info[i][j] += delta - (curvature[i] + curvature[j]) / n + mean_curv / n
    return grad, info


def _newton(
    points: list[list[float]], count: list[list[int]], prior: float
) -> tuple[list[float], list[list[float]]]:
    """Maximise the log-posterior over mean-zero ratings; return ratings and covariance."""
    n = len(points)
    r = [0.0] * n
    objective = _log_posterior(r, points, count, prior)
    for _ in range(_MAX_ITERATIONS):
        grad, info = _gradient_and_information(r, points, count, prior)
        step = _cholesky_solve(_cholesky(_add_gauge(info)), grad)
        # Damped Newton: halve the step until the (concave) objective does not drop.
        scale = 1.0
        while True:
            candidate = [ri + scale * si for ri, si in zip(r, step, strict=True)]
            value = _log_posterior(candidate, points, count, prior)
            if value >= objective - 1e-12 * abs(objective) or scale < 1e-6:
                break
            scale /= 2.0
        r, objective = candidate, value
        if max(abs(scale * si) for si in step) < _TOLERANCE:
            break
    else:  # pragma: no cover - the objective is strictly concave on mean-zero ratings
        raise RuntimeError("Elo fit did not converge")
    mean = sum(r) / n
    r = [ri - mean for ri in r]
    _, info = _gradient_and_information(r, points, count, prior)
    inverse = _cholesky_inverse(_cholesky(_add_gauge(info)))
    cov = [[inverse[i][j] - 1.0 / n for j in range(n)] for i in range(n)]
    return r, cov


# -- small dense linear algebra -----------------------------------------------


def _add_gauge(info: list[list[float]]) -> list[list[float]]:
    """``F + J/n``: positive definite when F's only null direction is (1, ..., 1)."""
    n = len(info)
    return [[info[i][j] + 1.0 / n for j in range(n)] for i in range(n)]


def _cholesky(a: list[list[float]]) -> list[list[float]]:
    """Lower-triangular L with L Lᵀ = a, for a symmetric positive definite matrix."""
    n = len(a)
    lower = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            total = a[i][j] - sum(lower[i][k] * lower[j][k] for k in range(j))
            if i == j:
                if total <= 0.0:
                    raise ValueError("information matrix is not positive definite")
                lower[i][i] = math.sqrt(total)
            else:
                lower[i][j] = total / lower[j][j]
    return lower


def _cholesky_solve(lower: list[list[float]], b: list[float]) -> list[float]:
    """Solve (L Lᵀ) x = b."""
    n = len(lower)
    y = [0.0] * n
    for i in range(n):
        y[i] = (b[i] - sum(lower[i][k] * y[k] for k in range(i))) / lower[i][i]
    x = [0.0] * n
    for i in reversed(range(n)):
        x[i] = (y[i] - sum(lower[k][i] * x[k] for k in range(i + 1, n))) / lower[i][i]
    return x


def _cholesky_inverse(lower: list[list[float]]) -> list[list[float]]:
    n = len(lower)
    columns = [_cholesky_solve(lower, [1.0 if k == i else 0.0 for k in range(n)]) for i in range(n)]
    return [[columns[j][i] for j in range(n)] for i in range(n)]
