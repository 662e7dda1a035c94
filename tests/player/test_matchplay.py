"""player/matchplay.py: budgets on a clock (engines share the clock out, humans get all of it),
and the move info sent with each move."""

from __future__ import annotations

import math
from typing import Any

import pytest
import trio

from player.agent import Agent, MoveInfo, SearchLimit
from player.client import PlayerClient, PlayerConfig
from player.matchplay import clock_budget
from player.moveinfo import wire_fields
from player.spec import make_agent
from protocol.messages import Move
from tests.player.test_runtime import (
    TTT,
    Network,
    ScriptedAgent,
    make_client,
    start_message,
    turn_message,
)


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


# --- move info: what the agent says about its move travels with it ---------------------------


class ReportingAgent(ScriptedAgent):
    """Plays the first legal move and reports `info` about it (or fails to, with `error`)."""

    def __init__(self, info: MoveInfo | None = None, error: Exception | None = None) -> None:
        super().__init__()
        self.info, self.error = info, error

    def move_info(self) -> MoveInfo | None:
        if self.error is not None:
            raise self.error
        return self.info


class EvaluatingAgent(ScriptedAgent):
    """An agent of before move info: it only overrides `evaluation`."""

    def evaluation(self) -> float | None:
        return 0.75


async def _first_move(agent: Agent) -> Move:
    """The `move` the client sends for its first turn (as seat 0 of a fake server's match)."""
    network = Network()
    client = make_client(agent, network)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client.run)
        server = await network.seeker()
        await server.send(start_message(0))
        await server.send(turn_message(TTT.initial_state(), 0))
        move: Move = await server.expect(Move)
        nursery.cancel_scope.cancel()
    return move


def _info_of(move: Move) -> tuple[Any, ...]:
    return (move.eval, move.depth, move.visits, move.pv)


@pytest.mark.parametrize(
    ("agent", "sent"),
    [
        (
            ReportingAgent(MoveInfo(0.8, 12, 35_210, ("a3", "b2", "b3"))),
            (0.8, 12, 35_210, ["a3", "b2", "b3"]),
        ),
        (ReportingAgent(MoveInfo(visits=2**53)), (None, None, 2**53, [])),
        (ReportingAgent(None), (None, None, None, [])),
        (EvaluatingAgent(), (0.75, None, None, [])),  # the default move_info wraps evaluation
        # out of range: dropped, the rest is sent; a pv is cut at its first unusable move
        (ReportingAgent(MoveInfo(1.5, -1, 2**60, ("a3", "", "b3"))), (None, None, None, ["a3"])),
        (ReportingAgent(MoveInfo(math.nan, 10_001, -1, ("x" * 33,))), (None, None, None, [])),
        (ReportingAgent(MoveInfo(True, 3.5, True, ("a3",) * 70)), (None, None, None, ["a3"] * 64)),  # type: ignore[arg-type]
        (ReportingAgent(MoveInfo(0.5, pv="a3 b2")), (0.5, None, None, [])),  # type: ignore[arg-type]
        (ReportingAgent(error=RuntimeError("no report")), (None, None, None, [])),
    ],
    ids=["all", "visits", "none", "evaluation", "bad", "bad-2", "mistyped", "pv-string", "raises"],
)
async def test_the_move_carries_the_agents_move_info_within_the_limits(
    agent: Agent, sent: tuple[Any, ...]
) -> None:
    move = await _first_move(agent)
    assert move.move == 0 and _info_of(move) == sent


def test_wire_fields_says_what_it_dropped() -> None:
    fields, dropped = wire_fields(MoveInfo(1.01, 4, -5, ("a1",) * 65))
    assert fields == {"depth": 4, "pv": ["a1"] * 64}
    assert dropped == ["eval", "visits", "pv"]
    assert wire_fields(MoveInfo(0, 0, 0, ())) == ({"eval": 0.0, "depth": 0, "visits": 0}, [])
