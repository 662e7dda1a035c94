"""What a game's package declares of its compiled kernels (`Kernel`), for the dispatch's generator.

Why: the core reaches every kernel through one dispatch module that branches
on a constant game id (`player.mcts.fast.kernels`; numba caches nothing
else, see `registry`). Each game's package says what it has in its own
``spec.py`` (``KERNELS``: plain data, no numba), and
``python -m player.mcts.fast.gen`` writes the dispatch from those specs, so
no one edits a list of games by hand.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CONSTANT = re.compile(r"^[A-Z][A-Z0-9_]*$")


@dataclass(frozen=True, slots=True)
class Kernel:
    """One compiled kernel: its id, its module and its optional hooks.

    `name` is the game id's constant in the dispatch (``CONNECT4``), `gid`
    its value (unique, small, never reused: the adapters and plans compare
    with it). `module` (dotted) defines ``legal(cfg, st, out)``,
    ``play(cfg, st, move, dst)``, ``to_move(cfg, st)``, ``status(cfg, st)``
    and ``rollout(cfg, st, rng, policy)``, and, when `ordered`,
    ``ordered(cfg)`` (its ``legal`` lists moves best first). `solve` names
    the module of its exact search (``solve(cfg, st, table, budget, alpha,
    beta)`` and ``new_table(entries)``), `leaf` the module of its leaf
    evaluator (``evaluate(cfg, st, params, counts, scratch)``); None: the
    kernel has none. `amaf`: `module` also defines ``rollout_amaf(cfg, st,
    rng, policy, seen)``, a rollout that marks in the int8 array `seen` the
    moves it plays (a move id's first mover, seat + 1, where it is still 0),
    so the tree can keep RAVE's all-moves-as-first statistics. `prior` names
    the module of the kernel's prior (``prior(cfg, st, moves, count, visits,
    wins)``: virtual visits and wins for each child of a node being
    expanded); None: none.
    """

    name: str
    gid: int
    module: str
    ordered: bool = False
    solve: str | None = None
    leaf: str | None = None
    amaf: bool = False
    prior: str | None = None

    def __post_init__(self) -> None:
        if not _CONSTANT.match(self.name):
            raise ValueError(f"kernel name {self.name!r} is not an UPPER_CASE constant")
        if not 0 <= self.gid < 1 << 15:
            raise ValueError(f"kernel {self.name}: game id {self.gid} is out of range")
