"""A ladder's rating list from its records (server/ladder_ratings.py): who moved first, what
counts, what is a failure."""

from __future__ import annotations

from server.ladder_ratings import LadderResult, fit_ladder


def result(
    players: tuple[str, str], scores: tuple[float, float], **changes: object
) -> LadderResult:
    base = {
        "match": "m", "players": players, "scores": scores, "termination": "line",
        "reason": "", "plies": 5, "ended_at": 1.0, "status": "finished",
    }  # fmt: skip
    return LadderResult(**{**base, **changes})  # type: ignore[arg-type]


def test_the_fit_orders_bots_and_counts_failures() -> None:
    games = [result(("a", "b"), (1.0, 0.0)), result(("b", "a"), (0.0, 1.0))] * 10
    games += [result(("b", "c"), (1.0, 0.0))] * 10
    games.append(result(("c", "a"), (0.0, 1.0), termination="timeout"))
    games.append(result(("c", "a"), (0.0, 1.0), termination="crash"))
    games.append(result(("a", "c"), (0.0, 0.0), status="aborted", termination="aborted"))
    fit, rated, failures = fit_ladder(games, 0, {"c": 1000.0})
    assert rated == 32  # the aborted game counts for nobody
    assert fit.rating("a") > fit.rating("b") > fit.rating("c") == 1000.0
    assert failures["c"].time == 1 and failures["c"].crash == 1 and failures["a"].total == 0


def test_an_anchor_that_has_not_played_is_left_out() -> None:
    fit, rated, _ = fit_ladder([result(("a", "b"), (0.5, 0.5))], 0, {"gnugo": 1800.0})
    assert rated == 1 and set(fit.players) == {"a", "b"} and fit.anchors == ()


def test_the_first_seat_decides_who_moved_first() -> None:
    games = [result(("a", "b"), (1.0, 0.0))] * 20  # seat 0 always wins
    first0, _, _ = fit_ladder(games, 0, {})
    first1, _, _ = fit_ladder(games, 1, {})
    assert first0.advantage > 0 > first1.advantage
