"""The games registry: lookup by name, option parsing, entry-point plugins, `arena games`."""

from __future__ import annotations

from collections.abc import Iterator
from importlib.metadata import EntryPoint
from typing import ClassVar

import pytest
import structlog
from structlog.testing import capture_logs

from arena_cli.main import main
from games import (
    Game,
    UnknownGameError,
    available_games,
    game_class,
    make_game,
    parse_options,
    registry,
)
from games.tictactoe import TicTacToe


class Notakto(TicTacToe):
    """A stand-in third-party game, loaded through a fake entry point."""

    name: ClassVar[str] = "notakto"
    description: ClassVar[str] = "test plugin"


class Impostor(TicTacToe):
    """A plugin that tries to take over a built-in name."""

    name: ClassVar[str] = "tictactoe"


NOT_A_GAME = "just a string"


def fake_entry_points(*specs: tuple[str, str]) -> object:
    points = [EntryPoint(name, value, registry.ENTRY_POINT_GROUP) for name, value in specs]

    def entry_points(*, group: str) -> list[EntryPoint]:
        return points if group == registry.ENTRY_POINT_GROUP else []

    return entry_points


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Forget the loaded games so the next lookup scans built-ins and plugins again."""
    monkeypatch.setattr(registry, "_registered", {})
    monkeypatch.setattr(registry, "_plugins_loaded", False)
    yield


def test_builtin_games_are_registered() -> None:
    games = available_games()
    assert list(games) == sorted(games)
    for name in ("tictactoe", "gomoku", "reversi"):
        assert name in games
        assert games[name].name == name
        assert issubclass(games[name], Game)
    assert game_class("reversi") is games["reversi"]


def test_unknown_game_lists_the_names() -> None:
    with pytest.raises(UnknownGameError, match="unknown game 'chess'") as info:
        make_game("chess")
    message = str(info.value)
    for name in available_games():
        assert name in message
    assert isinstance(info.value, ValueError)


def test_make_game_with_parsed_options() -> None:
    game = make_game("tictactoe", parse_options("width=4, height=4 ,k=3"))
    assert game.options == {"width": 4, "height": 4, "k": 3}
    assert make_game("reversi", {}).options == {"size": 8}
    with pytest.raises(ValueError, match="unknown option 'size'"):
        make_game("gomoku", parse_options("size=9"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", {}),
        ("size=6", {"size": "6"}),
        (" width = 4 , height=5,", {"width": "4", "height": "5"}),
        ("a=1,,b=2", {"a": "1", "b": "2"}),
        ("name=x=y", {"name": "x=y"}),
        ("k=", {"k": ""}),
    ],
)
def test_parse_options(text: str, expected: dict[str, str]) -> None:
    assert parse_options(text) == expected


@pytest.mark.parametrize("text", ["size", "=3", "width=4,height", " =x"])
def test_parse_options_errors(text: str) -> None:
    with pytest.raises(ValueError, match="key=value"):
        parse_options(text)


@pytest.mark.usefixtures("fresh_registry")
def test_entry_point_plugins_are_discovered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        registry,
        "entry_points",
        fake_entry_points(
            ("notakto", f"{__name__}:Notakto"),
            ("broken", "no_such_module_for_arena:Game"),
            ("bogus", f"{__name__}:NOT_A_GAME"),
            ("impostor", f"{__name__}:Notakto"),  # same game twice: loaded once
        ),
    )
    with capture_logs() as logs:
        games = available_games()
    assert games["notakto"] is Notakto
    assert "tictactoe" in games and "reversi" in games
    assert make_game("notakto", {"width": 4}).describe() == "notakto(width=4, height=3, k=3)"
    events = {(log["event"], log.get("entry_point")) for log in logs}
    assert ("game_plugin_failed", "broken") in events
    assert ("game_plugin_invalid", "bogus") in events
    # Later lookups reuse the scan.
    monkeypatch.setattr(registry, "entry_points", fake_entry_points())
    assert "notakto" in available_games()


@pytest.mark.usefixtures("fresh_registry")
def test_plugins_cannot_replace_builtin_games(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        registry, "entry_points", fake_entry_points(("tictactoe", f"{__name__}:Impostor"))
    )
    assert available_games()["tictactoe"] is TicTacToe


def test_register_decorator(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "_registered", dict(available_games()))

    @registry.register
    class Wild(TicTacToe):
        name: ClassVar[str] = "wild-tictactoe"

    assert game_class("wild-tictactoe") is Wild


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """`main` configures structlog onto the captured stderr: put the old setup back."""
    saved = structlog.get_config()
    yield
    structlog.configure(**saved)


@pytest.mark.usefixtures("restore_logging")
def test_arena_games_lists_every_game_with_options(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "300")  # keep rich from wrapping the table cells
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    for name, cls in available_games().items():
        assert name in out
        if cls.description:
            assert cls.description in out
        for spec in cls.option_specs:
            assert f"{spec.name}={spec.default!r}" in out
    assert "size=8" in out  # reversi's board size
