"""Registry of games by name, extended by the `arena.games` entry-point group.

A third-party package adds a game by declaring, in its own pyproject.toml::

    [project.entry-points."arena.games"]
    hex = "my_package.hex:HexGame"

where `HexGame` subclasses `games.Game` and sets `name = "hex"`.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any

import structlog

from games.base import Game
from games.errors import UnknownGameError as UnknownGameError

ENTRY_POINT_GROUP = "arena.games"

_BUILTIN: dict[str, str] = {
    "tictactoe": "games.tictactoe:TicTacToe",
    "gomoku": "games.gomoku:Gomoku",
    "connect4": "games.connect4:Connect4",
    "reversi": "games.reversi:Reversi",
    "ultimate": "games.ultimate:UltimateTicTacToe",
    "go": "games.go:Go",
}

_registered: dict[str, type[Game[Any, Any]]] = {}
_plugins_loaded = False

log = structlog.get_logger(__name__)


def register(cls: type[Game[Any, Any]]) -> type[Game[Any, Any]]:
    """Register a game class under `cls.name` (usable as a decorator)."""
    _registered[cls.name] = cls
    return cls


def _load(target: str) -> type[Game[Any, Any]]:
    module_name, _, attr = target.partition(":")
    module = __import__(module_name, fromlist=[attr])
    cls = getattr(module, attr)
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise TypeError(f"{target!r} is not a games.Game subclass")
    return cls


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    for name, target in _BUILTIN.items():
        try:
            _registered.setdefault(name, _load(target))
        except (ImportError, AttributeError) as exc:  # a game still being written
            log.warning("game_unavailable", game=name, error=str(exc))
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        try:
            cls = ep.load()
        except Exception as exc:  # a broken plugin must not break the arena
            log.warning("game_plugin_failed", entry_point=ep.name, error=repr(exc))
            continue
        if isinstance(cls, type) and issubclass(cls, Game):
            _registered.setdefault(cls.name, cls)
        else:
            log.warning("game_plugin_invalid", entry_point=ep.name, value=repr(cls))


def available_games() -> dict[str, type[Game[Any, Any]]]:
    """All known games by name, sorted by name."""
    _load_plugins()
    return dict(sorted(_registered.items()))


def game_class(name: str) -> type[Game[Any, Any]]:
    """The class registered under `name`, or UnknownGameError listing valid names."""
    games = available_games()
    try:
        return games[name]
    except KeyError:
        raise UnknownGameError(f"unknown game {name!r} (available: {', '.join(games)})") from None


def make_game(name: str, options: Mapping[str, Any] | None = None) -> Game[Any, Any]:
    """Instantiate game `name` with validated `options` (ValueError if bad)."""
    return game_class(name)(**dict(options or {}))


def parse_options(text: str) -> dict[str, str]:
    """Parse ``key=value,key=value`` into a dict of strings (values coerced by the game)."""
    options: dict[str, str] = {}
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        key, sep, value = part.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"option {part!r} must be written key=value")
        options[key.strip()] = value.strip()
    return options
