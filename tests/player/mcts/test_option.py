"""The ``mcts`` options in two layers: a small generic table, and each game's in its package.

Every spec string that worked with the one flat table still works with the
same meaning: `TODAY` is that table (name, type, default, choices, in spec
order), and each game's options are parsed from a spec and followed into the
compiled search of their game, while the other games ignore them.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from games import make_game
from player.agent import SearchLimit
from player.mcts import MCTSAgent
from player.mcts.options import GAMES, GENERIC, KNOWLEDGE, OPTIONS, Knowledge, SearchOptions
from player.spec import check_agent_spec, make_agent

#: the flat table of every option (the split kept it; rave and prior came after): (name, type, default, choices)
TODAY: list[tuple[str, type, Any, tuple[str, ...] | None]] = [
    ("time", float, 1.0, None),
    ("iterations", int, None, None),
    ("c", float, None, None),  # the game's own: 1.4, Go 0.1
    ("metric", str, "uct", ("uct", "uctv")),
    ("max_moves", int, None, None),
    ("workers", int, 1, None),
    ("reuse", bool, True, None),
    ("solver", bool, True, None),
    ("seed", int, None, None),
    ("engine", str, "auto", ("auto", "fast", "python")),
    ("rollout", str, "smart", ("smart", "random")),
    ("exact", float, 0.5, None),
    ("rave", float, None, None),
    ("prior", bool, True, None),
    ("memory", float, 512, None),
    ("threats", bool, False, None),
    ("candidates", int, 12, None),
    ("cutoff", int, 4, None),
    ("vcf", int, 32, None),
    ("vct", int, 20_000, None),
    ("connect4_eval", float, 0.7, None),
    ("connect4_c", float, 0.5, None),
    ("connect4_minimax", float, 0.4, None),
    ("connect4_weights", str, "shipped", None),
    ("reversi_leaf", str, "eval", ("eval", "rollout")),
    ("reversi_depth", int, 0, None),
    ("reversi_solve", int, 10, None),
    ("reversi_endgame", int, 20, None),
    ("reversi_c", float, 0.5, None),
    ("reversi_minimax", float, 0.0, None),
    ("go_prior", float, 1.0, None),
    ("go_ladders", bool, True, None),
]

#: for each game's option: a value other than its default, the game whose search reads it,
#: and how to read it back from that search (`FastSearch`)
SEEN: dict[str, tuple[str, Any, str, Any]] = {
    "threats": ("true", True, "gomoku", lambda s: s.root_threats is not None),
    "candidates": ("5", 5, "gomoku", lambda s: int(s.cfg[4])),
    "cutoff": ("2", 2, "gomoku", lambda s: int(s.cfg[5])),
    "vcf": ("7", 7, "gomoku", lambda s: int(s.cfg[6])),
    "vct": ("0", True, "gomoku", lambda s: s.root_vct is None),
    "connect4_eval": ("0.5", 0.5, "connect4", lambda s: s.plan.mix),
    "connect4_c": ("0.9", 0.9, "connect4", lambda s: s.plan.c),
    "connect4_minimax": ("0.2", 0.2, "connect4", lambda s: s.plan.minimax),
    "connect4_weights": ("shipped", "shipped", "connect4", lambda s: s.plan.weights),
    "reversi_leaf": ("rollout", "rollout", "reversi", lambda s: s.plan.leaf),
    "reversi_depth": ("3", 3, "reversi", lambda s: s.plan.depth),
    "reversi_solve": ("4", 4, "reversi", lambda s: s.plan.solve_empties),
    "reversi_endgame": ("12", 12, "reversi", lambda s: s.plan.endgame),
    "reversi_c": ("0.8", 0.8, "reversi", lambda s: s.plan.c),
    "reversi_minimax": ("0.3", 0.3, "reversi", lambda s: s.plan.minimax),
    "go_prior": ("0.5", 0.5, "go", lambda s: int(s.cfg[4]) / 100),
    "go_ladders": ("false", False, "go", lambda s: bool(s.cfg[5])),
}


def test_every_option_of_the_flat_table_keeps_its_name_type_default_and_order() -> None:
    assert [(o.name, o.type, o.default, o.choices) for o in OPTIONS.values()] == TODAY


def test_the_generic_table_is_small_and_names_no_game() -> None:
    names = [option.name for option in GENERIC]
    assert len(names) == 15
    game_names = {option.name for table in GAMES.values() for option in table}
    assert not game_names & set(names)
    assert sorted(game_names) == sorted(SEEN)


def test_each_game_declares_its_options_in_its_own_package() -> None:
    for game, table in GAMES.items():
        module = f"player.mcts.fast.{game}.options"
        assert __import__(module, fromlist=["OPTIONS"]).OPTIONS is table


def test_no_help_names_a_file_outside_the_installed_package() -> None:
    for option in OPTIONS.values():
        for outside in ("benchmarks", "tests/", ".py", "source tree", "docs/"):
            assert outside not in option.help, (option.name, outside)


#: a value other than the default, as a spec writes it, for each generic option
OTHER = {
    "time": ("none", None), "iterations": ("7", 7), "c": ("0.3", 0.3), "metric": ("uctv", "uctv"),
    "max_moves": ("40", 40), "workers": ("3", 3), "reuse": ("false", False),
    "solver": ("false", False), "seed": ("5", 5), "engine": ("python", "python"),
    "rollout": ("random", "random"), "exact": ("0.2", 0.2), "memory": ("64", 64.0),
    "rave": ("300", 300.0), "prior": ("false", False),
}  # fmt: skip


@pytest.mark.parametrize("name", [option.name for option in OPTIONS.values()])
def test_every_option_of_a_spec_lands_on_the_field_of_its_name(name: str) -> None:
    """Parsed from a spec, each option is the same-named field of the agent's `SearchOptions`
    or of its game's knowledge (`Knowledge`), and nothing else changes: no renaming."""
    if name in OTHER:
        text, expected = OTHER[name]
    else:
        text = SEEN[name][0]
        expected = OPTIONS[name].agent_option().coerce(text)
        assert expected != OPTIONS[name].default or name == "connect4_weights"
    if name == "connect4_weights":
        text, expected = "other.npz", "other.npz"  # read only when a search starts
    extra = ",iterations=9" if name == "time" else ""
    _, values = check_agent_spec(f"mcts:{name}={text}{extra}")
    options, knowledge = SearchOptions.from_values(values), Knowledge.from_values(values)
    generic = {f.name for f in dataclasses.fields(options)}
    if name in generic:
        assert getattr(options, name) == expected
        assert dict(knowledge.changed()) == {}
    else:
        assert dict(knowledge.changed()) == {name: expected}
        (owner,) = [cls for cls in KNOWLEDGE if name in {o.name for o in cls.options()}]
        assert getattr(knowledge.of(owner), name) == expected
        assert options == SearchOptions()


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SEEN))
def test_a_games_option_reaches_its_search_and_the_other_games_ignore_it(name: str) -> None:
    pytest.importorskip("numba")
    text, expected, reader_game, read = SEEN[name]
    parsed = OPTIONS[name].agent_option().coerce(text)
    assert parsed != OPTIONS[name].default or name == "connect4_weights"
    spec = f"mcts:engine=fast,time=none,iterations=20,seed=1,{name}={text}"
    _, values = check_agent_spec(spec)
    assert values[name] == parsed
    for game_name in ("connect4", "gomoku", "reversi", "tictactoe", "ultimate", "go"):
        game = make_game(game_name, {"size": 9} if game_name == "go" else None)
        agent = make_agent(spec)
        assert isinstance(agent, MCTSAgent)
        agent.start(game, 0)
        move = agent.choose(game.initial_state(), SearchLimit(iterations=20))
        assert move in game.legal_moves(game.initial_state())
        search: Any = agent.search_tree
        if game_name == reader_game:
            assert read(search) == expected
        else:  # the same search as with the option left out
            plain = make_agent("mcts:engine=fast,time=none,iterations=20,seed=1")
            assert isinstance(plain, MCTSAgent)
            plain.start(game, 0)
            plain.choose(game.initial_state(), SearchLimit(iterations=20))
            other: Any = plain.search_tree
            assert type(search.plan) is type(other.plan)
            assert (search.cfg == other.cfg).all()
            plain.close()
        agent.close()
