"""Agent spec strings (``mcts:time=0.5,c=1.4``) and the registry of agent kinds.

A spec is ``NAME`` or ``NAME:key=value,key=value``. Each agent kind registers
its factory and typed options with `register_agent`, usually when its module
is imported. Kinds are found through the ``arena.agents`` entry-point group
(see docs/AGENTS.md): the entry point's name is the kind, its value an
`AgentInfo` (``package.module:ATTRIBUTE``, the value `register_agent`
returns) or a module that registers on import. Nothing is imported until a
kind is asked for, so ``arena play connect4 random`` never imports numba.
The built-in kinds are entry points of this project's own pyproject.toml,
exactly like a third party's; `LAZY_AGENT_MODULES` is only the fallback for
a source tree whose metadata is not installed.

A kind whose module needs a missing optional dependency (ImportError for a
module outside the plug-in's own package) is unavailable, not an error:
e.g. ``openspiel`` without the ``reference`` extra. Any other failure to
load a plug-in is logged and reported when that kind is asked for, and
never breaks the other kinds.
"""

from __future__ import annotations

import importlib
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any

import structlog

from player.agent import Agent

log = structlog.get_logger(__name__)

#: the entry-point group of agent kinds (name = kind, value = AgentInfo or module)
ENTRY_POINT_GROUP = "arena.agents"

#: fallback when the project's entry points are not installed: name -> module to import
LAZY_AGENT_MODULES: dict[str, str] = {
    "mcts": "player.mcts",
    "random": "player.baselines",
    "greedy": "player.baselines",
    "minimax": "player.baselines",
    "human": "player.human",
    "faulty": "player.faulty",
    "engine": "player.engines.agent",
}

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]*\Z")
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}
_NONE = {"none", "null", ""}

OptionType = type[int] | type[float] | type[bool] | type[str]


@dataclass(frozen=True, slots=True)
class AgentOption:
    """One option of an agent kind: its type, default (None = unset) and help.

    `choices` restricts a str option; `nullable` lets the value ``none`` mean
    None (always allowed when the default is None). `shown` is the default as
    told to users when `default` is None only because the agent fills the value
    in itself (an engine's option may come from its engines file entry).
    """

    name: str
    type: OptionType
    default: Any
    help: str
    choices: tuple[str, ...] | None = None
    nullable: bool = False
    shown: str | None = None

    def describe(self) -> str:
        """``key=default`` as shown in error messages and help texts."""
        if self.default is None:
            default = "none" if self.shown is None else self.shown
        else:
            default = _show(self.default)
        return f"{self.name}={default}"

    def coerce(self, text: str) -> Any:
        """Convert the spec text `text` to this option's type, or raise ValueError."""
        value = text.strip()
        if value.lower() in _NONE and (self.nullable or self.default is None):
            return None
        if self.type is bool:
            if value.lower() in _TRUE:
                return True
            if value.lower() in _FALSE:
                return False
            raise ValueError(f"option {self.name!r} must be true or false, not {text!r}")
        if self.type is int:
            try:
                return int(value)
            except ValueError:
                raise ValueError(f"option {self.name!r} must be an integer, not {text!r}") from None
        if self.type is float:
            try:
                number = float(value)
            except ValueError:
                raise ValueError(f"option {self.name!r} must be a number, not {text!r}") from None
            if not math.isfinite(number):
                raise ValueError(f"option {self.name!r} must be a finite number, not {text!r}")
            return number
        if self.choices is not None and value not in self.choices:
            raise ValueError(
                f"option {self.name!r} must be one of {', '.join(self.choices)}, not {text!r}"
            )
        return value


AgentFactory = Callable[..., Agent]
OptionDecl = AgentOption | tuple[OptionType, Any, str]


@dataclass(frozen=True, slots=True)
class AgentInfo:
    """A registered agent kind: its factory, description and options (in order).

    `positional` names the option that a bare first value fills (``engine:rhino``
    is ``engine:entry=rhino``); `check`, given the options like the factory,
    raises ValueError for values the factory would refuse, without building;
    `player_name`, given the options too, is the name the player goes by
    (an engine's ``name``, from its spec or its engines file entry), or None.
    """

    name: str
    factory: AgentFactory
    description: str = ""
    options: Mapping[str, AgentOption] = field(default_factory=dict)
    positional: str | None = None
    check: Callable[..., None] | None = None
    player_name: Callable[..., str | None] | None = None

    def usage(self) -> str:
        """``name:key=default,...`` with every option at its default."""
        if not self.options:
            return self.name
        return f"{self.name}:" + ",".join(option.describe() for option in self.options.values())


_registry: dict[str, AgentInfo] = {}


def register_agent(
    name: str,
    factory: AgentFactory,
    options: Mapping[str, OptionDecl] | None = None,
    description: str = "",
    *,
    positional: str | None = None,
    check: Callable[..., None] | None = None,
    player_name: Callable[..., str | None] | None = None,
) -> AgentInfo:
    """Register (or replace) the agent kind `name`.

    `factory(**options)` must return an `Agent`; it receives every declared
    option (defaults filled in) as a keyword argument and may raise ValueError
    for values out of range. `options` maps each option name to an
    `AgentOption` or to a ``(type, default, help)`` tuple. `positional`,
    `check` and `player_name`: see `AgentInfo`.
    """
    if not _NAME.match(name):
        raise ValueError(f"agent name {name!r} must be letters, digits, '_', '.' or '-'")
    declared: dict[str, AgentOption] = {}
    for key, decl in (options or {}).items():
        if isinstance(decl, AgentOption):
            if decl.name != key:
                raise ValueError(f"option {key!r} is declared with the name {decl.name!r}")
            declared[key] = decl
        else:
            kind, default, help_text = decl
            declared[key] = AgentOption(key, kind, default, help_text)
    if positional is not None and positional not in declared:
        raise ValueError(f"positional option {positional!r} of {name!r} is not declared")
    info = AgentInfo(name, factory, description, declared, positional, check, player_name)
    _registry[name] = info
    return info


_plugins: dict[str, EntryPoint] | None = None
_broken: dict[str, str] = {}


def agent_entry_points(*, refresh: bool = False) -> dict[str, EntryPoint]:
    """The ``arena.agents`` entry points by name (read once; `refresh` re-reads them)."""
    global _plugins
    if _plugins is None or refresh:
        _plugins = {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}
        _broken.clear()
    return _plugins


def _missing_dependency(exc: ImportError, own: str) -> bool:
    """Whether `exc` is a missing module outside the plug-in's package `own`."""
    missing = exc.name or ""
    return bool(missing) and missing.split(".")[0] != own.split(".")[0]


def _load_entry_point(name: str, ep: EntryPoint) -> None:
    try:
        loaded = ep.load()
    except ImportError as exc:
        if _missing_dependency(exc, ep.module):
            log.debug("agent_unavailable", agent=name, missing=exc.name)
            return
        _broken[name] = repr(exc)
        log.warning("agent_plugin_failed", entry_point=name, error=repr(exc))
        return
    except Exception as exc:  # a broken plug-in must not break the arena
        _broken[name] = repr(exc)
        log.warning("agent_plugin_failed", entry_point=name, error=repr(exc))
        return
    if isinstance(loaded, AgentInfo):
        if loaded.name != name:
            log.warning("agent_plugin_renamed", entry_point=name, registered=loaded.name)
        _registry.setdefault(name, loaded)
    elif name not in _registry:
        _broken[name] = f"{ep.value!r} is neither an AgentInfo nor a module that registers {name!r}"
        log.warning("agent_plugin_invalid", entry_point=name, value=ep.value)


def _load(name: str) -> AgentInfo | None:
    if name in _registry:
        return _registry[name]
    ep = agent_entry_points().get(name)
    if ep is not None:
        if name not in _broken:
            _load_entry_point(name, ep)
    elif name in LAZY_AGENT_MODULES:
        module = LAZY_AGENT_MODULES[name]
        try:
            importlib.import_module(module)
        except ImportError as exc:
            # Only "module not there" means unavailable; a broken module must surface.
            if exc.name != module and not _missing_dependency(exc, module):
                raise
    return _registry.get(name)


def available_agents() -> dict[str, AgentInfo]:
    """Every agent kind that can be built, by name (importing plug-ins as needed)."""
    for name in [*agent_entry_points(), *LAZY_AGENT_MODULES]:
        _load(name)
    return dict(sorted(_registry.items()))


def parse_agent_spec(spec: str) -> tuple[str, dict[str, str]]:
    """Split ``name:key=value,...`` into the name and a dict of raw option strings.

    Raises ValueError on a syntax error (empty or malformed name, an option
    without ``=``, an empty or repeated key). Values are checked by `make_agent`.
    """
    if not isinstance(spec, str):
        raise ValueError(f"agent spec must be a string, not {spec!r}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    if not name:
        raise ValueError(f"agent spec {spec!r} has no agent name (expected e.g. 'mcts:time=0.5')")
    if not _NAME.match(name):
        raise ValueError(f"agent spec {spec!r}: {name!r} is not a valid agent name")
    options: dict[str, str] = {}
    for index, part in enumerate(rest.split(",")):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep and index == 0:
            info = _load(name)
            if info is not None and info.positional is not None:
                key, value, sep = info.positional, part, "="
        if not sep or not key:
            raise ValueError(
                f"agent spec {spec!r}: option {part.strip()!r} must be written key=value"
            )
        if key in options:
            raise ValueError(f"agent spec {spec!r}: option {key!r} is given twice")
        options[key] = value.strip()
    return name, options


def spec_name(spec: str) -> str | None:
    """The name a player of `spec` goes by, if the spec gives one, else None.

    That is its kind's `player_name` (an engine's ``name``, from the spec or
    from its engines file entry), else a ``name=`` option. None also for a
    malformed spec: its errors are told where it is built.
    """
    try:
        kind, raw = parse_agent_spec(spec)
        info = _load(kind)
        if info is None or info.player_name is None:
            return raw.get("name") or None
        return info.player_name(**check_agent_spec(spec)[1]) or None
    except ValueError:
        return None


def check_agent_spec(spec: str) -> tuple[AgentInfo, dict[str, Any]]:
    """The kind of `spec` and its option values, checked without building the agent.

    Raises ValueError as `make_agent` does, for everything but what only the
    agent's constructor checks (the kind's `check` hook, if it has one, runs).
    """
    name, raw = parse_agent_spec(spec)
    info = _load(name)
    if info is None:
        if name in _broken:
            raise ValueError(f"agent plug-in {name!r} failed to load: {_broken[name]}")
        known = ", ".join(available_agents()) or "none"
        raise ValueError(f"unknown agent {name!r} (available: {known})")
    valid = ", ".join(option.describe() for option in info.options.values()) or "none"
    values: dict[str, Any] = {key: option.default for key, option in info.options.items()}
    for key, text in raw.items():
        option = info.options.get(key)
        if option is None:
            raise ValueError(f"unknown option {key!r} for agent {name!r} (valid options: {valid})")
        try:
            values[key] = option.coerce(text)
        except ValueError as exc:
            raise ValueError(f"agent {name!r}: {exc} (valid options: {valid})") from None
    if info.check is not None:
        try:
            info.check(**values)
        except ValueError as exc:
            raise ValueError(f"agent {name!r}: {exc}") from None
    return info, values


def make_agent(spec: str) -> Agent:
    """Build the agent described by `spec`; its `name` is set to the spec.

    Raises ValueError for an unknown agent (listing the available ones) or a
    bad option key or value (listing the valid keys with their defaults).
    """
    info, values = check_agent_spec(spec)
    valid = ", ".join(option.describe() for option in info.options.values()) or "none"
    try:
        agent = info.factory(**values)
    except ValueError as exc:
        raise ValueError(f"agent {info.name!r}: {exc} (valid options: {valid})") from None
    agent.name = spec.strip()
    return agent


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
