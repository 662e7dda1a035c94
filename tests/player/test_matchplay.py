"""Budgets on a clock (player/matchplay.py): engines share the clock out, humans get all of it."""

from __future__ import annotations

import pytest

from player.agent import SearchLimit
from player.client import PlayerClient, PlayerConfig
from player.matchplay import clock_budget
from player.spec import make_agent


def test_clock_budget_shares_the_time_and_keeps_the_increment() -> None:
    # 5+3 at the start: 300 / 20 + 0.75 * 3 - 0.05
    assert clock_budget(300.0, 3.0, 0.05) == pytest.approx(17.2)
    # low on time: never more than half of what is left
    assert clock_budget(2.0, 3.0, 0.05) == pytest.approx(0.95)
    # no increment, plenty of moves left
    assert clock_budget(60.0, 0.0, 0.05) == pytest.approx(2.95)


def test_the_runtime_caps_the_share_by_the_agents_own_time() -> None:
    engine = make_agent("mcts:time=1")
    client = PlayerClient(engine, "tictactoe", config=PlayerConfig(safety_margin=0.05))
    assert client.budget(300.0, clock=True, increment=3.0).time == 1.0  # its own time= wins
    assert client.budget(4.0, clock=True).time == pytest.approx(0.15)  # 4 / 20 - 0.05
    assert client.budget(0.5).time == pytest.approx(0.45)  # a per-move limit: all of it
    engine.close()


def test_a_human_spends_the_whole_clock() -> None:
    human = make_agent("human")
    client = PlayerClient(human, "tictactoe", config=PlayerConfig(safety_margin=0.05))
    assert client.budget(300.0, clock=True, increment=3.0) == SearchLimit(time=299.95)
