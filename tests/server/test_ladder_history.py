"""A ladder's ratings over time (server/ladder_history.py): where the points are, what each
holds, which are fitted again when games arrive."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import pytest

from server.ladder_history import MAX_POINTS, RatingHistory, prefix_counts
from server.ladder_ratings import LadderResult, fit_ladder
from tournament.bayeselo import BayesFit


def game(n: int, players: tuple[str, str], scores: tuple[float, float]) -> LadderResult:
    return LadderResult(
        f"m{n:04d}", players, scores, "line", "", 5, 1000.0 + n, "finished"
    )  # fmt: skip


def games(count: int, start: int = 0) -> list[LadderResult]:
    """`count` games of a (strong), b and c (weak): a beats b, b beats c, colours swapped."""
    pairs = itertools.cycle([("a", "b"), ("b", "a"), ("b", "c"), ("c", "b"), ("a", "c")])
    out = []
    for n, pair in zip(range(start, start + count), pairs, strict=False):
        winner = "a" if "a" in pair else "b"
        out.append(game(n, pair, (1.0, 0.0) if pair[0] == winner else (0.0, 1.0)))
    return out


def fit_of(anchors: dict[str, float]) -> Callable[[Sequence[LadderResult]], BayesFit]:
    def fit(prefix: Sequence[LadderResult]) -> BayesFit:
        return fit_ladder(prefix, 0, anchors)[0]

    return fit


def update(history: RatingHistory, results: list[LadderResult], **anchors: float) -> None:
    fit = fit_of(anchors)
    history.update(results, fit, fit(results))


@pytest.mark.parametrize("total", [1, 2, 29, 30, 31, 59, 60, 61, 1000, 123_457])
def test_the_points_are_few_and_end_at_the_newest_game(total: int) -> None:
    counts = prefix_counts(total)
    assert 1 <= len(counts) <= MAX_POINTS and counts[-1] == total
    assert counts == sorted(set(counts))
    step = counts[0]
    assert step & (step - 1) == 0  # a power of two
    assert all(k % step == 0 for k in counts[:-1])
    # a step's multiples are multiples of the step before it: old points stay points
    assert set(counts[:-1]) <= set(range(step // 2 or 1, total + 1, step // 2 or 1))
    assert prefix_counts(0) == []


def test_each_point_is_the_fit_over_the_games_before_it() -> None:
    history = RatingHistory()
    results = games(40)
    update(history, results)
    assert [p.games for p in history.points] == prefix_counts(40)
    # the newest point is the list's own fit; an older one the fit over its prefix
    last = history.points[-1]
    whole = fit_ladder(results, 0, {})[0]
    assert last.ratings["a"][0] == pytest.approx(whole.rating("a"))
    first = history.points[0]
    early = fit_ladder(results[: first.games], 0, {})[0]
    assert first.ratings["a"][0] == pytest.approx(early.rating("a"))
    assert first.time == results[first.games - 1].ended_at
    rows = history.of("a")
    assert len(rows) == len(history.points)
    assert [r["games"] for r in rows] == sorted(r["games"] for r in rows)
    assert rows[-1]["games"] == sum("a" in r.players for r in results)
    # the strong bot's margin narrows as its games come in
    assert rows[-1]["margin"] < rows[1]["margin"]
    assert rows[-1]["rating"] > history.of("c")[-1]["rating"]
    assert history.of("nobody") == []


def test_new_games_fit_only_the_new_points() -> None:
    history = RatingHistory()
    results = games(50)
    update(history, results)
    fitted = history.fits
    assert fitted == len(prefix_counts(50)) - 1  # the newest point is the list's fit
    for more in (1, 2, 3):  # each newest point was the last update's newest, or is new
        update(history, results + games(more, start=50))
        assert history.fits == fitted
    # 64 games: the step doubles to 4; of its multiples only 56 and 60 were never points
    update(history, results + games(14, start=50))
    assert history.fits == fitted + 2
    # a game recorded late that ended before the others changes every point after it
    late = game(9999, ("c", "a"), (0.0, 1.0))
    changed = [results[0], late, *results[1:], *games(14, start=50)]
    before = history.fits
    update(history, changed)
    assert history.fits - before == len(prefix_counts(65)) - 1


def test_points_before_the_anchor_played_are_left_out() -> None:
    history = RatingHistory()
    early = [game(n, ("a", "b"), (1.0, 0.0)) for n in range(20)]
    later = [game(20 + n, ("b", "rnd"), (1.0, 0.0)) for n in range(12)]
    update(history, early + later, rnd=1000.0)
    assert history.points and all(p.games > 20 for p in history.points)
    assert all(p.ratings["rnd"][0] == 1000.0 for p in history.points)
    assert history.of("rnd")[-1] == {
        "time": later[-1].ended_at, "games": 12, "rating": 1000.0, "margin": 0.0,
    }  # fmt: skip


def test_a_bot_the_fit_cannot_rate_yet_has_no_point() -> None:
    history = RatingHistory()
    # the first mover wins every game: the first-move term runs away, no margin is finite
    update(history, [game(n, ("a", "b") if n % 2 else ("b", "a"), (1.0, 0.0)) for n in range(6)])
    assert history.of("a") == [] and history.of("b") == []
