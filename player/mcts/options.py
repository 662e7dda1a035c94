"""The ``mcts`` options in two layers: the generic search's here, each game's knowledge in its package.

The generic options (time, c, workers, reuse, solver, ...) are the fields of
`SearchOptions`; each game's knowledge is a dataclass of the same kind
declared in its package's ``options.py`` (`Connect4Options`,
`ReversiOptions`, `GomokuOptions` for gomoku's threats, `GoOptions`), and `Knowledge`
holds one of each. Every option is declared once, as a field
(`player.mcts.option.option`: type, default, range, help); `OPTIONS` lists
them all, in spec order, for the spec parser.

Why: the defaults and checks used to live in three places (the agent's
constructor, its spec registration, each engine's constructor) and had
drifted apart (the exploration constant defaulted to 1.4 in the agent but
1.0 in the compiled engine). Now the agent registers `agent_options()`, a
spec's values become one `SearchOptions` and one `Knowledge`, and the
engines read those; the Python engine takes its keyword defaults from
`default`. Every check is `MCTSOption.check`, so an error names the option
the same way wherever it is caught.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, TypeVar, overload

from player.mcts.fast.connect4.options import Connect4Options
from player.mcts.fast.go.options import GoOptions
from player.mcts.fast.mnk.options import GomokuOptions
from player.mcts.fast.reversi.options import ReversiOptions
from player.mcts.option import MCTSOption, Options, table
from player.mcts.search_options import ENGINES, MAX_WORKERS, METRICS, ROLLOUTS, SearchOptions
from player.spec import AgentOption

__all__ = [
    "ENGINES",
    "GAMES",
    "GENERIC",
    "KNOWLEDGE",
    "MAX_WORKERS",
    "METRICS",
    "OPTIONS",
    "ROLLOUTS",
    "Knowledge",
    "MCTSOption",
    "SearchOptions",
    "agent_options",
    "check_options",
    "default",
]

#: the generic search options' table (`SearchOptions`'s fields)
GENERIC: tuple[MCTSOption, ...] = table(SearchOptions)

#: each game's knowledge, declared in its package, in spec order after the generic options
KNOWLEDGE: tuple[type[Options], ...] = (GomokuOptions, Connect4Options, ReversiOptions, GoOptions)

#: each game's own options by its package, as `KNOWLEDGE` declares them
GAMES: Mapping[str, tuple[MCTSOption, ...]] = {
    cls.__module__.split(".")[-2]: table(cls) for cls in KNOWLEDGE
}

OPTIONS: Mapping[str, MCTSOption] = {
    option.name: option for table_ in (GENERIC, *GAMES.values()) for option in table_
}
"""Every option of the ``mcts`` agent by name, in spec order: the generic ones, then each game's."""

K = TypeVar("K", bound=Options)


class Knowledge:
    """Every game's knowledge options: one `Options` value per game of `KNOWLEDGE`.

    What the agent takes beside its `SearchOptions` (as OpenSpiel's bot takes
    an evaluator): it does not know its game until a match starts, so it
    holds each game's, and hands the search of a game that game's (`of`).
    ``Knowledge(Connect4Options(connect4_eval=0))`` names the sets that
    differ from their defaults; the others are their defaults.
    """

    __slots__ = ("_sets",)

    def __init__(self, *sets: Options) -> None:
        given = {type(one): one for one in sets}
        unknown = [cls.__name__ for cls in given if cls not in KNOWLEDGE]
        if unknown or len(given) < len(sets):
            raise ValueError(f"knowledge of no game, or one game's twice: {', '.join(unknown)}")
        self._sets: tuple[Options, ...] = tuple(given.get(cls) or cls() for cls in KNOWLEDGE)

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> Knowledge:
        """Each game's set from a spec's values (flat, by option name; other keys ignored)."""
        return cls(*(game.from_values(values) for game in KNOWLEDGE))

    @overload
    def of(self, cls: type[K]) -> K: ...
    @overload
    def of(self, cls: None) -> None: ...
    def of(self, cls: type[K] | None) -> K | None:
        """The set of class `cls` (one of `KNOWLEDGE`; an adapter's `knowledge`), None for None."""
        if cls is None:
            return None
        for one in self._sets:
            if type(one) is cls:
                return one
        raise KeyError(cls.__name__)

    def changed(self) -> Iterator[tuple[str, Any]]:
        """(name, value) of every option not at its default, in spec order."""
        for one in self._sets:
            yield from one.changed()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Knowledge) and self._sets == other._sets

    def __hash__(self) -> int:
        return hash(self._sets)

    def __repr__(self) -> str:
        return f"Knowledge({', '.join(repr(one) for one in self._sets)})"


def default(name: str) -> Any:
    """The default of option `name` (KeyError for an unknown one)."""
    return OPTIONS[name].default


def agent_options() -> dict[str, AgentOption]:
    """The table as `player.spec.register_agent` takes it."""
    return {name: option.agent_option() for name, option in OPTIONS.items()}


def check_options(values: Mapping[str, Any]) -> None:
    """Check each given option against the table, then the rule between options.

    Raises ValueError naming the first bad option (an unknown name too). The
    rule: ``time`` and ``iterations`` (the given values, else the defaults)
    cannot both be None, when either is given.
    """
    for name, value in values.items():
        option = OPTIONS.get(name)
        if option is None:
            raise ValueError(f"unknown mcts option {name!r}")
        option.check(value)
    budget = [values.get(name, default(name)) for name in ("time", "iterations")]
    if ("time" in values or "iterations" in values) and budget == [None, None]:
        raise ValueError("options 'time' and 'iterations' cannot both be none")
