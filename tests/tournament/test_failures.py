"""Each player's failures by kind (tournament/failures.py), from stored results alone."""

from __future__ import annotations

from games import Termination
from tournament.failures import KINDS, Failures, count_failures, failure_of


def test_each_failing_termination_is_its_losers_failure_of_one_kind() -> None:
    games = [
        (("a", "b"), (1.0, 0.0), "crash"),
        (("b", "a"), (1.0, 0.0), "disconnect"),  # a crash of the player itself
        (("a", "b"), (0.0, 1.0), "timeout"),
        (("a", "b"), (1.0, 0.0), "illegal_move"),
        (("a", "b"), (1.0, 0.0), "stalled"),
        (("a", "b"), (1.0, 0.0), "protocol_error"),
        (("a", "b"), (1.0, 0.0), "line"),  # over the board: nobody's failure
        (("a", "b"), (1.0, 0.0), "resignation"),  # a choice (and every old record of a fault)
        (("a", "b"), (1.0, 0.0), "withdrawn"),  # unplayed: its failures counted already
        (("a", "b"), (0.5, 0.5), "timeout"),  # no single loser: nobody's
    ]
    counts = count_failures(["a", "b"], games)
    assert counts["a"] == Failures(time=1, crash=1)
    assert counts["b"] == Failures(crash=1, illegal=1, stall=1, protocol=1)
    assert counts["b"].total == 4
    assert counts["b"].as_dict() == {"time": 0, "illegal": 1, "crash": 1, "stall": 1, "protocol": 1}


def test_a_game_of_a_player_not_listed_is_ignored_and_shapes_are_checked() -> None:
    assert count_failures(["a"], [(("x", "y"), (1.0, 0.0), "crash")]) == {"a": Failures()}
    assert failure_of(("x", "y"), (1.0,), "crash") is None  # a malformed row counts for nobody
    assert failure_of(("x", "y", "z"), (0.5, 0.5, 0.0), "crash") == ("z", "crash")


def test_every_forfeit_the_server_or_a_player_records_has_a_kind() -> None:
    forfeits = {
        Termination.TIMEOUT,
        Termination.ILLEGAL_MOVE,
        Termination.DISCONNECT,
        Termination.PROTOCOL_ERROR,
        Termination.CRASH,
        Termination.STALLED,
    }
    assert set(KINDS) == {t.value for t in forfeits}
    assert set(KINDS.values()) == set(Failures().as_dict())
