"""One ``mcts`` option (`MCTSOption`) and a set of them as one value (`Options`).

Why a module of its own: the generic options (`player.mcts.options`) and
each game's (its knowledge package's ``options.py``) are declared with it,
and neither table may import the other's. Each set is a frozen dataclass
whose fields are declared with `option`: the field's name is the spec's
key, and its type, default, range and help are written once, there. The
spec's table (`table`), the checks (`Options.__post_init__`) and the
constructors' defaults all come from that one declaration.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Self

from player.spec import AgentOption, OptionType

__all__ = ["AGENT", "BOTH", "FAST", "MCTSOption", "Options", "defaults", "option", "table"]

#: who reads an option: the agent itself, or the search engines named
AGENT = ()
BOTH = ("python", "fast")
#: the compiled engine only (every game's own knowledge)
FAST = ("fast",)


@dataclass(frozen=True, slots=True)
class MCTSOption:
    """One option: its spec name, type, default, allowed range and help.

    The range is `choices` for a str, else ``low`` (exclusive when `above`)
    and ``high`` (inclusive); a float must be finite; `nullable` allows None
    (``none`` in a spec). `engines` names the search engines that read it
    (``python``, ``fast``); empty for the agent's own options.
    """

    name: str
    type: OptionType
    default: Any
    help: str
    low: float | None = None
    high: float | None = None
    above: bool = False
    unit: str = ""
    choices: tuple[str, ...] | None = None
    nullable: bool = False
    engines: tuple[str, ...] = BOTH

    def rule(self) -> str:
        """What a valid value is, as error messages say it (``a finite number >= 0``)."""
        if self.choices is not None:
            return f"one of {', '.join(self.choices)}"
        if self.low is not None and self.high is not None:
            text = f"between {self.low:g} and {self.high:g}"
        elif self.low is not None:
            text = f"{'>' if self.above else '>='} {self.low:g}"
        else:
            text = "an integer" if self.type is int else "a number"
        if self.unit:
            text += f" {self.unit}"
        if self.nullable:
            return f"{text} (or none)"
        return f"a finite number {text}" if self.type is float else text

    def valid(self, value: Any) -> bool:
        """Whether `value` is allowed (of the right type and in range)."""
        if value is None:
            return self.nullable
        if self.type is bool:
            return isinstance(value, bool)
        if self.type is str:
            return isinstance(value, str) and (self.choices is None or value in self.choices)
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if self.type is int and not isinstance(value, int):
            return False
        if not math.isfinite(value):
            return False
        if self.low is not None and (value <= self.low if self.above else value < self.low):
            return False
        return self.high is None or value <= self.high

    def check(self, value: Any) -> None:
        """Raise ValueError (``option 'c' must be a finite number >= 0, not -1``) if invalid."""
        if not self.valid(value):
            raise ValueError(f"option {self.name!r} must be {self.rule()}, not {value!r}")

    def agent_option(self) -> AgentOption:
        """The spec parser's declaration of this option."""
        return AgentOption(
            self.name, self.type, self.default, self.help, self.choices, nullable=self.nullable
        )


def defaults(options: Iterable[MCTSOption]) -> Mapping[str, Any]:
    """Each option's default by name (a game's knowledge reads its own table's)."""
    return {option.name: option.default for option in options}


#: the key of an `option` field's declaration in its dataclass field's metadata
_DECLARED = "mcts_option"


def option(
    type: OptionType,
    default: Any,
    help: str,
    *,
    low: float | None = None,
    high: float | None = None,
    above: bool = False,
    unit: str = "",
    choices: tuple[str, ...] | None = None,
    nullable: bool = False,
    engines: tuple[str, ...] = BOTH,
) -> Any:
    """A field of an `Options` dataclass: its default, and the rest of its `MCTSOption`.

    The field's name is the option's name (its spec key); the arguments are
    `MCTSOption`'s.
    """
    declared = {
        "type": type, "help": help, "low": low, "high": high, "above": above, "unit": unit,
        "choices": choices, "nullable": nullable, "engines": engines,
    }  # fmt: skip
    return dataclasses.field(default=default, metadata={_DECLARED: declared})


_tables: dict[str, tuple[MCTSOption, ...]] = {}


def table(cls: type) -> tuple[MCTSOption, ...]:
    """The options an `Options` dataclass declares, in field order (made once per class)."""
    key = f"{cls.__module__}.{cls.__qualname__}"
    made = _tables.get(key)
    if made is None:
        made = _tables[key] = tuple(
            MCTSOption(name=f.name, default=f.default, **f.metadata[_DECLARED])
            for f in dataclasses.fields(cls)
        )
    return made


class Options:
    """Base of a set of options: a frozen dataclass whose fields are declared with `option`.

    Constructing one checks every field (`MCTSOption.check`: ValueError,
    one line, naming the option).
    """

    __slots__ = ()

    def __post_init__(self) -> None:
        for declared in table(type(self)):
            declared.check(getattr(self, declared.name))

    @classmethod
    def options(cls) -> tuple[MCTSOption, ...]:
        """This set's declarations (`table`)."""
        return table(cls)

    @classmethod
    def from_values(cls, values: Mapping[str, Any]) -> Self:
        """The set with the values named in `values` (a spec's, flat); other keys are ignored."""
        return cls(**{o.name: values[o.name] for o in table(cls) if o.name in values})

    def changed(self) -> Iterator[tuple[str, Any]]:
        """(name, value) of each option not at its default, in declaration order."""
        for declared in table(type(self)):
            value = getattr(self, declared.name)
            if value != declared.default:
                yield declared.name, value
