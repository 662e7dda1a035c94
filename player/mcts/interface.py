"""`SearchEngine`: what the ``mcts`` agent needs of a search, met by both engines.

The generic engine (`player.mcts.search.Search`, any game) and the compiled
one (`player.mcts.fast.core.engine.FastSearch`, built-in games) implement it; the
agent holds its searches by this type only. Each keeps one tree for one game
between moves (tree reuse) and answers a search with a `SearchResult`.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from games.base import Game
from player.agent import SearchLimit
from player.mcts.search import SearchResult

__all__ = ["SearchEngine"]


class SearchEngine(Protocol):
    """A search tree for one game, kept between moves.

    `rng` draws the engine's randomness (the agent reseeds it per match);
    `root_state` is the state at the root of the kept tree (None: no tree).
    """

    game: Game[Any, Any]
    rng: random.Random

    @property
    def root_state(self) -> Any:
        """The state at the root of the kept tree, or None."""
        ...

    def search(
        self, state: Any, limit: SearchLimit, *, deadline: float | None = None
    ) -> SearchResult:
        """Search from `state` (not terminal) until `limit` or `deadline`; the root statistics."""
        ...

    def advance(self, state: Any, move: Any, new_state: Any) -> None:
        """`move` was played in `state`: keep the subtree of `new_state`, if any."""
        ...

    def reset(self) -> None:
        """Forget the tree."""
        ...

    def free_garbage(self) -> None:
        """Free discarded trees now (off the clock), if the engine keeps any."""
        ...

    def principal_variation(self, move: Any, length: int) -> list[Any]:
        """`move`, then the most visited line after it in the last search's tree."""
        ...

    def close(self) -> None:
        """Stop the engine's own threads, if it has any (the tree stays)."""
        ...
