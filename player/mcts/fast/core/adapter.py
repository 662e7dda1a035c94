"""What the core knows of a game: `Adapter`, the kernel id, conversions and the game's knowledge.

Why in the core: the engine takes one `Adapter` per game, as OpenSpiel's bot
takes an evaluator, and asks it for the game's own knowledge (a `Plan` for
the leaves, root searches) through factories the game's package fills in.
`player.mcts.fast.adapters` builds one per built-in game; the core never
imports a game's package.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from player.mcts.fast.core.codes import Rollout
from player.mcts.option import Options
from player.mcts.search_options import UCB_C


class Plan(Protocol):
    """A game's leaf knowledge for one search (connect four's and reversi's `plan.py`)."""

    @property
    def c(self) -> float: ...
    @property
    def minimax(self) -> float: ...
    @property
    def params(self) -> np.ndarray: ...
    @property
    def stats(self) -> np.ndarray: ...
    @property
    def buf(self) -> np.ndarray: ...
    @property
    def evaluated(self) -> bool: ...
    @property
    def owned_bytes(self) -> int: ...
    def seed(self, rng: np.ndarray) -> None: ...
    def fork(self, rng: np.ndarray) -> tuple[np.ndarray, np.ndarray]: ...
    def prepare(self, engine: Any, rng: np.ndarray, now: float, deadline: float) -> None: ...


class RootSearch(Protocol):
    """A search run on the root before the tree's (gomoku's threat and VCT searches).

    `apply` answers a move and whether it wins (the root threat search), a
    winning move (the VCT), or None: the tree searches on.
    """

    def apply(self, search: Any, root: int, kstate: np.ndarray, deadline: float) -> Any: ...


@dataclass(frozen=True, slots=True)
class Adapter:
    """A game's kernel id, its config array, the state/move conversions and its smart rollout.

    `smart` is the `Rollout` policy the agent's ``rollout=smart`` asks this
    kernel for: the best one it implements. The optional rest is the game's
    knowledge: `knowledge` is the class of its own options (an `Options`
    dataclass in its package; None: it has none), and each factory takes an
    instance of it: `plan` (with the rollout policy) builds its leaf `Plan`
    (None: plain UCT); `configure` the kernel config the search runs with;
    `root_threats` and `root_vct` its root searches (None: off).
    `rules_bound`: the root's moves are checked against the rules'
    (`FastSearch` marks the others lost). `rave`: the game's default for
    the ``rave`` option.
    """

    gid: int
    cfg: np.ndarray
    state_size: int
    encode_state: Callable[[Any], tuple[int, ...]]
    encode_move: Callable[[Any], int]
    decode_move: Callable[[int], Any]
    smart: Rollout
    #: threat knowledge (m,n,k with k >= 5): `mnk.big.analyse`, `mnk.big.threat_win`
    analyse: Callable[[np.ndarray, np.ndarray, int, np.ndarray], int] | None = None
    threat_win: Callable[[np.ndarray, np.ndarray, bool, np.ndarray], int] | None = None
    #: the game's own options (each factory below takes one; typed Any there: each game's own)
    knowledge: type[Options] | None = None
    plan: Callable[[Adapter, Any, int], Plan | None] | None = None
    #: the config with the game's options applied (gomoku's threat knowledge)
    configure: Callable[[np.ndarray, Any], np.ndarray] | None = None
    root_threats: Callable[[Adapter, Any], RootSearch | None] | None = None
    root_vct: Callable[[Adapter, Any], RootSearch | None] | None = None
    #: the kernel's legal moves may include some the rules refuse (Go: the kernel knows simple
    #: ko, the rules positional superko): the search marks the root's children that the
    #: rules' `legal_moves` lacks as lost, so they are never searched nor played
    rules_bound: bool = False
    #: RAVE's equivalence parameter when the search's ``rave`` option is none (0: off); read
    #: only for kernels with AMAF rollouts (`kernels.AMAF`)
    rave: float = 0.0
    #: UCB1's exploration constant when the search's ``c`` option is none
    c: float = UCB_C
