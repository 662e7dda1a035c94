"""The compiled search's own layers: the core imports no game's package, and no game another's.

The core (`player.mcts.fast.core`) reaches the kernels through its registry
and a game's knowledge through the `Adapter` it is given; a game's package
(`connect4`, `go`, `reversi`, `mnk`, `ultimate`) uses the core, its own modules and
the dispatch's game ids (`player.mcts.fast.kernels`). Every import counts,
function-local and TYPE_CHECKING ones too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[4]
FAST = ROOT / "player" / "mcts" / "fast"
PREFIX = "player.mcts.fast"
GATHERED = "player.mcts.options"
GAMES = sorted(p.parent.name for p in FAST.glob("*/__init__.py") if p.parent.name != "core")


def imported(source: str, module: str) -> set[str]:
    """The absolute names `source` (the text of `module`) imports, relative imports resolved."""
    package = module.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            names.update(f"{base}.{alias.name}" for alias in node.names)
    return names


def core_violations(source: str, module: str) -> list[str]:
    """What a core module imports that it must not: anything of `player.mcts.fast` outside the
    core (a game's package, the dispatch, the adapters), the table that gathers every game's
    knowledge (`player.mcts.options`) and any game's rules but `games.base`."""

    def allowed(name: str) -> bool:
        if name == GATHERED or name.startswith(f"{GATHERED}."):
            return False
        if name == PREFIX or name.startswith(f"{PREFIX}."):
            return name.startswith(f"{PREFIX}.core")
        return not name.startswith("games.") or name.startswith("games.base")

    return [name for name in sorted(imported(source, module)) if not allowed(name)]


def game_violations(source: str, module: str, game: str) -> list[str]:
    """What a game's module imports of another game's package."""
    return sorted(
        name
        for name in imported(source, module)
        if any(name.startswith(f"{PREFIX}.{other}") for other in GAMES if other != game)
    )


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts)


def test_the_games_are_the_packages_beside_the_core() -> None:
    assert GAMES == ["connect4", "go", "mnk", "reversi", "ultimate"]


@pytest.mark.parametrize("path", sorted((FAST / "core").glob("*.py")), ids=lambda p: p.name)
def test_the_core_imports_no_game(path: Path) -> None:
    assert core_violations(path.read_text(), module_name(path)) == []


@pytest.mark.parametrize("game", GAMES)
def test_a_game_imports_no_other_game(game: str) -> None:
    for path in sorted((FAST / game).glob("*.py")):
        assert game_violations(path.read_text(), module_name(path), game) == [], path.name


@pytest.mark.parametrize(
    "line",
    [
        "from player.mcts.fast.connect4 import kernel",
        "from player.mcts.fast.reversi.plan import ReversiPlan",
        "from ..mnk import big",
        "from player.mcts.fast import kernels",
        "import player.mcts.fast.adapters",
        "from games.connect4 import Connect4",
    ],
)
def test_the_check_catches_a_core_module_importing_a_game(line: str) -> None:
    source = f"def later() -> None:\n    {line}\n"
    assert core_violations(source, "player.mcts.fast.core.tree") != []


def test_the_check_catches_a_game_importing_another() -> None:
    source = "from player.mcts.fast.connect4.kernel import popcount\n"
    assert game_violations(source, "player.mcts.fast.reversi.plan", "reversi") == [
        "player.mcts.fast.connect4.kernel.popcount"
    ]
