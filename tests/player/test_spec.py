"""Agent spec strings, the agent registry and `SearchLimit`."""

from __future__ import annotations

from pathlib import Path

import pytest

from player.agent import Agent, SearchLimit
from player.baselines import GreedyAgent, MinimaxAgent, RandomAgent
from player.mcts import MCTSAgent
from player.spec import (
    LAZY_AGENT_MODULES,
    AgentOption,
    available_agents,
    make_agent,
    parse_agent_spec,
    register_agent,
)


def test_parse_agent_spec() -> None:
    assert parse_agent_spec("random") == ("random", {})
    assert parse_agent_spec(" mcts:time=0.5, c=1.4 ,workers=2 ") == (
        "mcts",
        {"time": "0.5", "c": "1.4", "workers": "2"},
    )
    assert parse_agent_spec("mcts:") == ("mcts", {})


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "no agent name"),
        (":time=1", "no agent name"),
        ("mc ts", "not a valid agent name"),
        ("mcts:time", "'time' must be written key=value"),
        ("mcts:=3", "must be written key=value"),
        ("mcts:c=1,c=2", "'c' is given twice"),
    ],
)
def test_parse_agent_spec_errors(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_agent_spec(spec)


def test_make_agent_builds_each_kind_with_its_spec_as_name() -> None:
    agent = make_agent("mcts:time=0.5,c=2,workers=1,reuse=no,solver=off,seed=3")
    assert isinstance(agent, MCTSAgent)
    assert agent.name == "mcts:time=0.5,c=2,workers=1,reuse=no,solver=off,seed=3"
    assert agent.default_limit == SearchLimit(time=0.5)
    assert agent.options["c"] == 2.0
    assert agent.options["reuse"] is False and agent.options["solver"] is False
    assert isinstance(make_agent("random:seed=1"), RandomAgent)
    assert isinstance(make_agent("greedy"), GreedyAgent)
    minimax = make_agent("minimax:depth=4,time=0.25")
    assert isinstance(minimax, MinimaxAgent)
    assert minimax.depth == 4 and minimax.default_limit == SearchLimit(time=0.25)


def test_mcts_defaults_and_iteration_only_budget() -> None:
    agent = make_agent("mcts")
    assert agent.default_limit == SearchLimit(time=1.0)
    agent = make_agent("mcts:iterations=500,time=none")
    assert agent.default_limit == SearchLimit(time=None, iterations=500)
    assert make_agent("mcts:iterations=500").default_limit == SearchLimit(1.0, 500)


def test_unknown_agent_lists_available_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown agent 'alphazero' \(available: .*mcts.*\)"):
        make_agent("alphazero")


def test_unknown_option_lists_valid_keys_with_defaults() -> None:
    with pytest.raises(ValueError) as info:
        make_agent("mcts:tme=0.5")
    message = str(info.value)
    assert "unknown option 'tme' for agent 'mcts'" in message
    for shown in ["time=1.0", "iterations=none", "c=none", "metric=uct", "workers=1"]:
        assert shown in message
    assert "reuse=true" in message and "solver=true" in message and "seed=none" in message


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("mcts:c=fast", "option 'c' must be a number, not 'fast'"),
        ("mcts:c=-1", "option 'c' must be >= 0 (or none)"),
        ("mcts:c=inf", "option 'c' must be a finite number"),
        ("mcts:workers=two", "option 'workers' must be an integer"),
        ("mcts:workers=0", "option 'workers' must be between 1 and 64"),
        ("mcts:reuse=maybe", "option 'reuse' must be true or false"),
        ("mcts:metric=elo", "option 'metric' must be one of uct, uctv"),
        ("mcts:time=0", "option 'time' must be > 0"),
        ("mcts:time=none", "'time' and 'iterations' cannot both be none"),
        ("mcts:max_moves=0", "option 'max_moves' must be >= 1"),
        ("minimax:depth=0", "option 'depth' must be >= 1"),
        ("random:seed=x", "option 'seed' must be an integer"),
    ],
)
def test_bad_values_name_the_option_and_list_valid_keys(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match="valid options: ") as info:
        make_agent(spec)
    assert message in str(info.value)


def test_available_agents_describe_options() -> None:
    agents = available_agents()
    assert {"mcts", "random", "greedy", "minimax"} <= set(agents)
    mcts = agents["mcts"]
    assert mcts.description
    assert mcts.options["c"].default is None and mcts.options["c"].help
    assert mcts.usage().startswith("mcts:time=1.0,iterations=none,c=none,metric=uct")
    assert agents["random"].usage() == "random:seed=none"


class _Fixed(Agent):
    def __init__(self, *, move: int = 0, loud: bool = False) -> None:
        self.move = move
        self.loud = loud

    def choose(self, state: object, limit: SearchLimit) -> int:
        return self.move


def test_register_agent_with_tuple_options() -> None:
    register_agent(
        "fixed-test", _Fixed, {"move": (int, 0, "the move"), "loud": (bool, False, "shout")}
    )
    agent = make_agent("fixed-test:move=4,loud=yes")
    assert isinstance(agent, _Fixed) and agent.move == 4 and agent.loud is True
    assert agent.name == "fixed-test:move=4,loud=yes"
    with pytest.raises(ValueError, match=r"valid options: move=0, loud=false"):
        make_agent("fixed-test:color=red")


def test_lazy_agent_module_is_imported_on_demand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = tmp_path / "lazy_agent_for_test.py"
    module.write_text(
        "from player.agent import Agent\n"
        "from player.spec import register_agent\n"
        "class Lazy(Agent):\n"
        "    def choose(self, state, limit):\n"
        "        return 0\n"
        "register_agent('lazy-test', Lazy, {}, 'registered at import')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(LAZY_AGENT_MODULES, "lazy-test", "lazy_agent_for_test")
    agent = make_agent("lazy-test")
    assert type(agent).__name__ == "Lazy"
    assert available_agents()["lazy-test"].description == "registered at import"


def test_missing_lazy_module_is_just_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(LAZY_AGENT_MODULES, "ghost", "player.no_such_module_here")
    assert "ghost" not in available_agents()
    with pytest.raises(ValueError, match="unknown agent 'ghost'"):
        make_agent("ghost")


def test_agent_option_coercion() -> None:
    option = AgentOption("time", float, 1.0, "seconds", nullable=True)
    assert option.coerce(" 0.25 ") == 0.25
    assert option.coerce("none") is None
    assert option.describe() == "time=1.0"
    with pytest.raises(ValueError, match="must be a number"):
        AgentOption("c", float, 1.4, "c").coerce("none")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "needs a time or an iteration cap"),
        ({"time": 0}, "time must be a positive number"),
        ({"time": -1.0}, "time must be a positive number"),
        ({"time": float("nan")}, "time must be a positive number"),
        ({"iterations": 0}, "iterations must be a positive integer"),
        ({"iterations": 2.5}, "iterations must be a positive integer"),
        ({"time": True}, "time must be a positive number"),
    ],
)
def test_search_limit_validation(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SearchLimit(**kwargs)  # type: ignore[arg-type]


def test_search_limit_capped() -> None:
    limit = SearchLimit(time=2.0, iterations=10)
    assert limit.capped(0.5) == SearchLimit(time=0.5, iterations=10)
    assert limit.capped(5.0) is limit
    assert limit.capped(None) is limit
    assert SearchLimit(iterations=3).capped(1.0) == SearchLimit(time=1.0, iterations=3)
