"""One table of ``mcts`` options (player/mcts/options.py) behind the spec, the agent and both
engines, and one interface (`SearchEngine`) in front of both engines."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path
from typing import Any, cast

import pytest

from games import make_game
from player.agent import SearchLimit
from player.mcts import MCTSAgent, Search, fast
from player.mcts.fast.connect4.options import Connect4Options
from player.mcts.fast.mnk.options import GomokuOptions
from player.mcts.fast.reversi.options import ReversiOptions
from player.mcts.interface import SearchEngine
from player.mcts.options import (
    GENERIC,
    KNOWLEDGE,
    OPTIONS,
    Knowledge,
    SearchOptions,
    check_options,
    default,
)
from player.mcts.search_options import UCB_C
from player.spec import available_agents, make_agent

ROOT = Path(__file__).resolve().parents[2]


def signature_defaults(function: Any) -> dict[str, Any]:
    return {
        name: p.default
        for name, p in inspect.signature(function).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


def test_the_spec_registers_exactly_the_table() -> None:
    info = available_agents()["mcts"]
    assert list(info.options) == list(OPTIONS)
    for name, option in OPTIONS.items():
        declared = info.options[name]
        assert (declared.type, declared.default, declared.help, declared.choices) == (
            option.type,
            option.default,
            option.help,
            option.choices,
        )
    # the documented defaults (docs/AGENTS.md)
    assert info.usage() == (
        "mcts:time=1.0,iterations=none,c=none,metric=uct,max_moves=none,workers=1,reuse=true,"
        "solver=true,seed=none,engine=auto,rollout=smart,exact=0.5,rave=none,prior=true,memory=512"
        ",threats=false,candidates=12,cutoff=4,vcf=32,vct=20000"  # gomoku's threat knowledge
        ",connect4_eval=0.7,connect4_c=0.5,connect4_minimax=0.4,connect4_weights=shipped"
        ",reversi_leaf=eval,reversi_depth=0,reversi_solve=10,reversi_endgame=20,reversi_c=0.5"
        ",reversi_minimax=0.0,go_prior=1.0,go_ladders=true"
    )
    # docs/AGENTS.md lists every option with its default, as the spec's usage does
    assert f"\n{info.usage()}\n" in (ROOT / "docs" / "AGENTS.md").read_text()


def test_the_agent_takes_the_generic_options_and_the_knowledge_each_declared_once() -> None:
    """No keyword per option: the two values whose fields are the table, defaults included."""
    params = inspect.signature(MCTSAgent.__init__).parameters
    assert list(params) == ["self", "options", "knowledge", "clock"]
    generic = {option.name: option.default for option in GENERIC}
    assert {f.name: f.default for f in dataclasses.fields(SearchOptions)} == generic
    own = {name: o.default for name, o in OPTIONS.items() if name not in generic}
    assert dict(Knowledge().changed()) == {}
    assert {
        f.name: f.default for cls in KNOWLEDGE for f in dataclasses.fields(cast(Any, cls))
    } == own
    python = signature_defaults(Search.__init__)
    for name in ("c", "metric", "max_moves", "solver", "reuse"):
        assert python[name] == default(name) and "python" in OPTIONS[name].engines
    assert python["c"] is None  # the game's default: UCB_C, Go's compiled search GO_C


def test_a_spec_becomes_the_agents_options_and_knowledge_unrenamed() -> None:
    spec = "mcts:engine=python,memory=64,exact=0.25,c=0.9,vct=0,connect4_eval=0.3,reversi_depth=2"
    agent = make_agent(spec)
    assert isinstance(agent, MCTSAgent)
    assert agent.search_options == SearchOptions(memory=64, exact=0.25, c=0.9, engine="python")
    assert agent.knowledge == Knowledge(
        Connect4Options(connect4_eval=0.3),
        GomokuOptions(vct=0),
        ReversiOptions(reversi_depth=2),
    )
    assert agent.knowledge.of(Connect4Options).connect4_eval == 0.3
    agent.close()


def test_the_compiled_engine_reads_the_same_values() -> None:
    pytest.importorskip("numba")
    from player.mcts.fast.adapters import GO_C, adapter_for
    from player.mcts.fast.core.engine import FastSearch

    game = make_game("connect4")
    adapter = adapter_for(game)
    assert adapter is not None
    plain = FastSearch(game, adapter)  # the table's defaults
    # none: the game's default, 1.4 as in the Python engine (it was once 1.0 here alone)
    assert default("c") is None and plain.c == UCB_C == 1.4
    go = make_game("go", {"size": 9})
    go_adapter = adapter_for(go)
    assert go_adapter is not None and FastSearch(go, go_adapter).c == GO_C
    assert FastSearch(go, go_adapter, SearchOptions(c=0.7)).c == 0.7
    assert plain.options == SearchOptions() and plain.knowledge == Connect4Options()
    assert plain.exact is not None
    assert (plain.capacity * plain.node_bytes) // 2**20 < default("memory") == 512
    own = Connect4Options(connect4_eval=0)
    search = FastSearch(game, adapter, SearchOptions(exact=0, memory=2), own)
    assert search.exact is None and search.plan is None and search.knowledge is own
    with pytest.raises(TypeError, match="knowledge of another game"):
        FastSearch(game, adapter, knowledge=ReversiOptions())


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"c": -1.0}, "option 'c' must be >= 0 (or none), not -1.0"),
        ({"c": float("nan")}, "option 'c' must be >= 0 (or none)"),
        ({"time": 0.0}, "option 'time' must be > 0 seconds (or none), not 0.0"),
        ({"iterations": 0}, "option 'iterations' must be >= 1 (or none), not 0"),
        ({"workers": 65}, "option 'workers' must be between 1 and 64, not 65"),
        ({"workers": 2.5}, "option 'workers' must be between 1 and 64, not 2.5"),
        ({"memory": 0.5}, "option 'memory' must be a finite number >= 1 MiB, not 0.5"),
        ({"rollout": "greedy"}, "option 'rollout' must be one of smart, random, not 'greedy'"),
        ({"reuse": "yes"}, "option 'reuse' must be"),
        ({"seed": 1.5}, "option 'seed' must be an integer (or none), not 1.5"),
        ({"time": None, "iterations": None}, "'time' and 'iterations' cannot both be none"),
        ({"time": None}, "'time' and 'iterations' cannot both be none"),
        ({"colour": "red"}, "unknown mcts option 'colour'"),
    ],
)
def test_one_check_per_option(values: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as info:
        check_options(values)
    assert message in str(info.value)


def test_every_default_passes_its_own_check() -> None:
    check_options({name: option.default for name, option in OPTIONS.items()})
    check_options({"time": None, "iterations": 10, "seed": -3, "c": 0})


def test_both_engines_check_with_the_table() -> None:
    game = make_game("tictactoe")
    with pytest.raises(ValueError, match=r"option 'c' must be >= 0 \(or none\)"):
        Search(game, c=-1.0)
    with pytest.raises(ValueError, match="option 'metric' must be one of uct, uctv"):
        Search(game, metric="elo")
    pytest.importorskip("numba")
    from player.mcts.fast.adapters import adapter_for
    from player.mcts.fast.core.engine import FastSearch

    adapter = adapter_for(game)
    assert adapter is not None
    # the compiled engine takes a `SearchOptions`, checked as it is made
    with pytest.raises(ValueError, match=r"option 'c' must be >= 0 \(or none\)"):
        FastSearch(game, adapter, SearchOptions(c=-1.0))
    with pytest.raises(ValueError, match="option 'memory' must be a finite number >= 1 MiB"):
        FastSearch(game, adapter, SearchOptions(memory=0.5))


def test_both_engines_are_search_engines() -> None:
    """Typed as the agent holds them (mypy checks the assignments) and driven through it."""
    game = make_game("tictactoe")
    engines: list[SearchEngine] = [Search(game, seed=1)]
    if fast.load() is not None:
        from player.mcts.fast.adapters import adapter_for
        from player.mcts.fast.core.engine import FastSearch

        adapter = adapter_for(game)
        assert adapter is not None
        engines.append(FastSearch(game, adapter, seed=1))
    state = game.initial_state()
    for engine in engines:
        assert engine.root_state is None
        result = engine.search(state, SearchLimit(iterations=50))
        assert result.iterations == 50 and engine.root_state == state
        move = max(result.stats, key=lambda s: s.visits).move
        assert engine.principal_variation(move, 3)[0] == move
        engine.advance(state, move, game.apply(state, move))
        assert engine.root_state == game.apply(state, move)
        engine.free_garbage()
        engine.reset()
        assert engine.root_state is None


def test_the_reversi_plan_takes_its_defaults_from_the_table() -> None:
    pytest.importorskip("numba")
    from games.reversi import Reversi
    from player.mcts.fast.adapters import adapter_for
    from player.mcts.fast.reversi.plan import plan_for

    plan = plan_for(adapter_for(Reversi()), ReversiOptions())
    assert plan is not None
    assert (plan.leaf, plan.depth, plan.solve_empties, plan.endgame, plan.c, plan.minimax) == tuple(
        default(f"reversi_{name}") for name in ("leaf", "depth", "solve", "endgame", "c", "minimax")
    )
    bad = {"reversi_leaf": "minimax"}
    with pytest.raises(ValueError, match="option 'reversi_leaf' must be one of eval, rollout"):
        check_options(bad)
    with pytest.raises(ValueError, match="option 'reversi_leaf' must be one of eval, rollout"):
        ReversiOptions(reversi_leaf="minimax")


def _documented_options() -> list[tuple[str, str]]:
    """(name, default) of each row of docs/AGENTS.md's *Every option* table."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "AGENTS.md").read_text()
    section = text.split("### Every option\n", 1)[1].split("\n### ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [
        (cells[1].strip().strip("`"), cells[2].strip().strip("`"))
        for cells in (row.split("|") for row in rows)
    ]


def test_docs_list_every_option_with_its_default() -> None:
    """The README's row names a few keys and links to docs/AGENTS.md, which lists them all."""
    from pathlib import Path

    def shown(value: Any) -> str:
        return (
            "none"
            if value is None
            else str(value).lower()
            if isinstance(value, bool)
            else str(value)
        )

    assert _documented_options() == [(name, shown(o.default)) for name, o in OPTIONS.items()]
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    (row,) = [line for line in readme.splitlines() if line.startswith("| `mcts:time=1.0,")]
    assert "(docs/AGENTS.md#the-mcts-agent-two-engines)" in row  # where every key is listed
