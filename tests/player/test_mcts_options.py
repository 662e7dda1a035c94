"""One table of ``mcts`` options (player/mcts/options.py) behind the spec, the agent and both
engines, and one interface (`SearchEngine`) in front of both engines."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest

from games import make_game
from player.agent import SearchLimit
from player.mcts import MCTSAgent, Search, fast
from player.mcts.interface import SearchEngine
from player.mcts.options import OPTIONS, check_options, default
from player.spec import available_agents

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
        "mcts:time=1.0,iterations=none,c=1.4,metric=uct,max_moves=none,workers=1,reuse=true,"
        "solver=true,seed=none,engine=auto,rollout=smart,exact=0.5,memory=512"
        ",threats=false,candidates=12,cutoff=4,vcf=32,vct=20000"  # gomoku's threat knowledge
        ",connect4_eval=0.7,connect4_c=0.5,connect4_minimax=0.4,connect4_weights=shipped"
        ",reversi_leaf=eval,reversi_depth=0,reversi_solve=10,reversi_endgame=20,reversi_c=0.5"
        ",reversi_minimax=0.0"
    )
    # docs/AGENTS.md lists every option with its default, as the spec's usage does
    assert f"\n{info.usage()}\n" in (ROOT / "docs" / "AGENTS.md").read_text()


def test_the_agent_and_the_python_engine_take_their_defaults_from_the_table() -> None:
    agent = signature_defaults(MCTSAgent.__init__)
    # one game's options (connect4_*, reversi_*) pass through the agent's **kernel_options
    own = [name for name in OPTIONS if not name.startswith(("connect4_", "reversi_"))]
    assert {name: agent[name] for name in own} == {n: OPTIONS[n].default for n in own}
    python = signature_defaults(Search.__init__)
    for name in ("c", "metric", "max_moves", "solver", "reuse"):
        assert python[name] == default(name) and "python" in OPTIONS[name].engines
    assert python["c"] == 1.4


def test_the_compiled_engine_takes_its_defaults_from_the_table() -> None:
    pytest.importorskip("numba")
    from player.mcts.fast.core.engine import FastSearch

    fast = signature_defaults(FastSearch.__init__)
    for name in ("c", "rollout", "solver", "reuse"):
        assert fast[name] == default(name) and "fast" in OPTIONS[name].engines
    assert fast["max_memory"] == default("memory") == 512
    assert fast["c"] == 1.4  # it was 1.0 here while the agent and the docs said 1.4


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"c": -1.0}, "option 'c' must be a finite number >= 0, not -1.0"),
        ({"c": float("nan")}, "option 'c' must be a finite number >= 0"),
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
    with pytest.raises(ValueError, match="option 'c' must be a finite number >= 0"):
        Search(game, c=-1.0)
    with pytest.raises(ValueError, match="option 'metric' must be one of uct, uctv"):
        Search(game, metric="elo")
    pytest.importorskip("numba")
    from player.mcts.fast.adapters import adapter_for
    from player.mcts.fast.core.engine import FastSearch

    adapter = adapter_for(game)
    assert adapter is not None
    with pytest.raises(ValueError, match="option 'c' must be a finite number >= 0"):
        FastSearch(game, adapter, c=-1.0)
    with pytest.raises(ValueError, match="option 'memory' must be a finite number >= 1 MiB"):
        FastSearch(game, adapter, max_memory=0.5)


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

    plan = plan_for(adapter_for(Reversi()), {})
    assert plan is not None
    assert (plan.leaf, plan.depth, plan.solve_empties, plan.endgame, plan.c, plan.minimax) == tuple(
        default(f"reversi_{name}") for name in ("leaf", "depth", "solve", "endgame", "c", "minimax")
    )
    bad = {"reversi_leaf": "minimax"}
    with pytest.raises(ValueError, match="option 'reversi_leaf' must be one of eval, rollout"):
        check_options(bad)


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
