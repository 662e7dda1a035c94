"""Connect four's search knowledge for `FastSearch`: leaves valued by the learned evaluation.

`FastSearch` asks `plan_for` once. A connect four search on the standard
7 x 6 board with ``connect4_eval`` above 0 gets a `Connect4Plan`: `tree.run`
is given its `params`, and `kernels.leaf` asks `connect4_eval.evaluate` at
every new leaf, which mixes the evaluation with the rollout (the option is
the evaluation's share of a leaf's value). Options (the ``mcts`` agent's,
`player.mcts.options`):

- ``connect4_eval``: the evaluation's share, 0 = rollouts only (the search
  as before this plan existed), 1 = the evaluation only;
- ``connect4_c``: the UCB1 constant with evaluated leaves (their values are
  less noisy than rollouts');
- ``connect4_minimax``: implicit minimax backups (Lanctot, Winands, Pepels and
  Sturtevant 2014, `tree._imply`): each node of the tree keeps the minimax
  of the evaluations below it (the evaluation alone, without the rollout),
  and selection ranks a child by ``(1 - weight) * mean reward + weight *
  that value`` plus the exploration term: a refutation found deep in the
  tree counts at once, where the mean takes many visits to turn;
- ``connect4_weights``: the evaluation's weights file (`SHIPPED`: the
  shipped `connect4_eval.WEIGHTS_FILE`), one a user fitted with
  ``python -m benchmarks.connect4_fit fit --out`` (or an earlier one, for a
  comparison in one run).

Other boards (the weights are the standard board's) and other games get
None: plain UCT with rollouts.
"""

from __future__ import annotations

import functools
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from player.mcts.fast import kernels
from player.mcts.fast.connect4 import evaluation as connect4_eval
from player.mcts.fast.connect4.kernel import HEIGHT_AT, WIDTH_AT
from player.mcts.fast.connect4.options import Connect4Options
from player.mcts.fast.core.rng import new_rng

#: the ``connect4_weights`` value of the shipped weights (`connect4_eval.WEIGHTS_FILE`)
SHIPPED = "shipped"


def _network(weights: str = SHIPPED) -> np.ndarray:
    """The network of a weights file (`connect4_eval.load_weights`), read afresh.

    ValueError, one line, when the file is missing, unreadable or of another layout.
    """
    path = connect4_eval.WEIGHTS_FILE if weights == SHIPPED else Path(weights)
    try:
        return connect4_eval.load_weights(path)
    except FileNotFoundError:
        raise ValueError(f"option 'connect4_weights': {path}: no such file") from None
    except (OSError, EOFError, KeyError, ValueError, zipfile.BadZipFile) as error:
        raise ValueError(f"option 'connect4_weights': {path}: {error}") from None


@functools.cache
def _params(mix: float, policy: int, weights: str = SHIPPED) -> np.ndarray:
    """The leaf parameters of one option set (the network behind two numbers), made once per
    process: the one copy of the network every search of those options shares (none writes
    it)."""
    return connect4_eval.leaf_params(_network(weights), mix, policy)


def check_options(options: Connect4Options) -> None:
    """Read a ``connect4_weights`` file other than the shipped one now (the agent's build, and
    dropped again: the search reads it when it starts): ValueError, one line, for a file that
    is no weights file."""
    weights = options.connect4_weights
    if weights != SHIPPED:
        _network(weights)


@dataclass
class Connect4Plan:
    """The connect four options of one `FastSearch`: its leaf parameters and scratch."""

    mix: float
    c: float
    policy: int
    #: the ``connect4_weights`` option: a weights file, or `SHIPPED`
    weights: str = SHIPPED
    #: the implicit minimax backups' weight in selection (`tree.run`'s ``alpha``; 0 = off)
    minimax: float = 0.0
    #: the leaf parameters `tree.run` passes on to `connect4_eval.evaluate`
    params: np.ndarray = field(init=False)
    #: the leaf rollouts' generator (`rng.new_rng`'s state, as int64: `kernels.leaf`'s counts),
    #: seeded from the search's own generator at each search (`seed`)
    stats: np.ndarray = field(default_factory=lambda: new_rng(0).view(np.int64))
    #: the features' scratch row
    buf: np.ndarray = field(
        default_factory=lambda: np.zeros((1, connect4_eval.FEATURES), dtype=np.int64)
    )

    def __post_init__(self) -> None:
        self.params = _params(self.mix, self.policy, self.weights)

    def seed(self, rng: np.ndarray) -> None:
        """Seed the leaf rollouts from a search's generator state (`rng.new_rng`), not drawing on it.

        Called at the start of every search, after the search's own generator
        is drawn: a match seed (`MCTSAgent.seed_match`) then decides the
        rollouts too, and two searches of one seed play the same moves.
        """
        self.stats[:] = new_rng(int(rng[0])).view(np.int64)

    def fork(self, rng: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Another thread's leaf scratch (`FastSearch.run_batch`): its own rollout generator,
        seeded from the thread's generator state `rng`, and its own features row."""
        return new_rng(int(rng[0])).view(np.int64), np.zeros_like(self.buf)

    @property
    def owned_bytes(self) -> int:
        """The memory this plan holds of its own (counted in the tree's cap): none. The network
        (`params`, about 12 MB with 32 hidden units) is the process's, one copy per option set
        shared by every search of it (`_params`)."""
        return 0

    @property
    def evaluated(self) -> bool:
        """Leaves are always evaluated (a plan exists only when the evaluation has a share)."""
        return True

    def prepare(self, engine: Any, rng: np.ndarray, now: float, deadline: float) -> None:
        """Nothing to do before a search (the exact root search is `exact.RootSolver`'s)."""


def plan_for(adapter: Any, options: Connect4Options, policy: int) -> Connect4Plan | None:
    """The plan of a standard-board connect four adapter with its options, else None."""
    if adapter.gid != kernels.CONNECT4:
        return None
    width, height = int(adapter.cfg[WIDTH_AT]), int(adapter.cfg[HEIGHT_AT])
    if (width, height) != (connect4_eval.WIDTH, connect4_eval.HEIGHT):
        return None
    mix = float(options.connect4_eval)
    if mix <= 0:
        return None
    return Connect4Plan(
        mix=mix,
        c=float(options.connect4_c),
        policy=policy,
        weights=options.connect4_weights,
        minimax=float(options.connect4_minimax),
    )
