"""Where the core finds the kernels' dispatch: a module it is told of, never one it names.

Why: the core (`tree`, `exact`) must call every game's kernel but import no
game's package. numba cannot cache a function that takes jitted functions as
arguments, so the kernels cannot be passed in; instead the dispatch (one
module outside the core that branches on a constant game id,
`player.mcts.fast.kernels`) is named to `provide` by the package above the
core, and the core's modules read it with `dispatch()` at their import, as a
module global numba compiles against (and caches, as before).
"""

from __future__ import annotations

import importlib
from types import ModuleType

_provider: str | None = None


def provide(module: str) -> None:
    """Name the module that dispatches on a game id (`legal`, `play`, ..., `SOLVERS`)."""
    global _provider
    _provider = module


def dispatch() -> ModuleType:
    """The dispatch module `provide` named (imported now if it was not yet)."""
    if _provider is None:
        raise RuntimeError("no kernel dispatch provided: import player.mcts.fast first")
    return importlib.import_module(_provider)
