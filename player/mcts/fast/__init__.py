"""The compiled search core (numba): array tree + per-game kernels, for the built-in games.

Importing this package does not import numba; `load()` does, and returns
None when numba (or NumPy) is missing, so the ``mcts`` agent falls back to
the pure-Python engine (`player.mcts.search`). `warm_up()` compiles (or
loads from numba's on-disk cache) every kernel by running a tiny search on
each, so no compilation ever happens on a move's clock. The cache lives in
``__pycache__`` beside these modules when that is writable and no
``$NUMBA_CACHE_DIR`` is set (its files are dropped, on importing this
package, when these sources changed since they were written); else in
``$NUMBA_CACHE_DIR/<digest>`` (default ``~/.cache/mcts-arena/<digest>``),
where ``<digest>`` hashes these sources, so an upgrade never meets a stale cache.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib
import os
import sys
import tempfile
import threading
from pathlib import Path
from types import ModuleType
from typing import Any

from player.mcts.fast.core import registry

_lock = threading.Lock()
_warm = False
_HERE = Path(__file__).parent


@functools.cache
def _digest() -> str:
    """A digest of this package's sources and data files, read once per process (at its
    import, and again by `load()`'s `_configure_cache`): a kernel may compile a data file
    in as a constant (Go's ``patterns.npz``)."""
    digest = hashlib.sha256()
    for source in sorted([*_HERE.rglob("*.py"), *_HERE.rglob("*.npz")]):
        digest.update(source.relative_to(_HERE).as_posix().encode())
        digest.update(source.read_bytes())
    return digest.hexdigest()


def _writable(directory: Path) -> bool:
    try:
        directory.mkdir(exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            return True
    except OSError:
        return False


def _caches() -> list[Path]:
    """The ``__pycache__`` of this package and of each of its sub-packages (the core, each game)."""
    return [_HERE / "__pycache__", *(p.parent / "__pycache__" for p in _HERE.glob("*/__init__.py"))]


def _in_tree_cache() -> bool:
    """Whether numba's cache is this package's own ``__pycache__``; if so, never a stale one.

    It is when that directory is writable and no ``$NUMBA_CACHE_DIR`` is
    set. A digest of all the sources in this package is kept beside the
    cache files, and the files are dropped when it changes. Needs no numba.
    """
    if os.environ.get("NUMBA_CACHE_DIR"):  # asked for: used even when in-tree works
        return False
    caches = _caches()
    if not all(_writable(cache) for cache in caches):
        return False
    cache = caches[0]
    digest = _digest()
    stamp = cache / "kernels.sha256"
    with contextlib.suppress(OSError):
        if stamp.read_text() == digest:
            return True
    with contextlib.suppress(OSError):
        for stale in [
            path for each in caches for path in [*each.glob("*.nbi"), *each.glob("*.nbc")]
        ]:
            stale.unlink()
        stamp.write_text(digest)
    return True


def _configure_cache() -> None:
    """Point numba's cache where it can never be stale, before the kernels are compiled.

    numba keys a cached function by its own file only, so `tree.run` would
    keep a stale copy of an edited kernel it calls. In a source tree (a
    writable ``__pycache__``) `_in_tree_cache` drops the cache files when
    the sources change; otherwise the cache goes to a directory named after
    a digest of the sources.
    """
    import numba

    if _in_tree_cache():
        return
    base = os.environ.get("NUMBA_CACHE_DIR") or str(Path.home() / ".cache" / "mcts-arena")
    config: Any = numba.config
    config.CACHE_DIR = str(Path(base) / _digest()[:16])


def load() -> ModuleType | None:
    """The engine module (`player.mcts.fast.core.engine`), or None without numba."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return None
    if "player.mcts.fast.core.engine" not in sys.modules:
        _configure_cache()
    return importlib.import_module("player.mcts.fast.core.engine")


def warm_up() -> bool:
    """Compile or load every kernel once per process; False if numba is unavailable.

    Every compiled entry point the engine can call must run here (the tests
    check that none is left uncompiled): a compilation on a move's clock
    costs seconds and forfeits the game.
    """
    global _warm
    engine = load()
    if engine is None:
        return False
    with _lock:
        if _warm:
            return True
        from games.connect4 import Connect4
        from games.go import Go
        from games.gomoku import Gomoku
        from games.reversi import Reversi
        from games.tictactoe import TicTacToe
        from games.ultimate import UltimateTicTacToe
        from player.agent import SearchLimit
        from player.mcts.fast.adapters import adapter_for
        from player.mcts.options import SearchOptions

        games: list[Any] = [Connect4(), TicTacToe(), Reversi(), UltimateTicTacToe(), Gomoku()]
        games.append(Go(size=9))  # its prior is also called from Python, at the root
        for game in games:
            adapter = adapter_for(game)
            assert adapter is not None
            search = engine.FastSearch(game, adapter, SearchOptions(memory=1), seed=0)
            state = game.initial_state()
            search.search(state, SearchLimit(iterations=200))
            if search.exact is not None:
                search.exact.warm_up(search.st, search.ni, int(search.meta[engine.tree.ROOT]))
            moves = game.legal_moves(state)
            search.advance(state, moves[0], game.apply(state, moves[0]))
            # compaction runs only once a tree is half full: compile it here, not mid-game
            engine.tree.compact(search.arrays)
            search.search(game.apply(state, moves[0]), SearchLimit(iterations=10))
        from player.mcts.fast.reversi.plan import warm_up_endgame

        warm_up_endgame(engine.FastSearch, adapter_for(Reversi()))
        _warm = True
    return True


# The core reaches the kernels through its registry, never by importing a game's package.
registry.provide("player.mcts.fast.kernels")

# In a source tree, even code that imports a kernel module without `load()` (a test, a
# script) must not meet a stale cache: numba reads it at a function's first call, not before.
with contextlib.suppress(OSError):
    _in_tree_cache()
