"""The numbers every kernel and the compiled tree share: game status, proofs, leaves, rollouts.

Why one module: each kernel used to define its own ``ONGOING``/``DRAW`` (and
reversi wrote ``-1`` inline), and ``policy=1`` meant "win or block" in some
kernels and "win only" in another. Here each number has one name and one
meaning. numba reads module-level ints and `enum.IntEnum` members as
compile-time constants (checked with numba 0.68: ``policy == Rollout.WIN``
compiles to an integer compare, and caches). Callers pass a policy to the
kernels as a plain ``int``: an `IntEnum` argument would compile a second
specialization of every kernel, outside the warm-up.
"""

from __future__ import annotations

import enum

__all__ = [
    "BUDGET_LIMIT",
    "BUDGET_NODES",
    "DRAW",
    "LEAF_EXACT",
    "LEAF_REWARD",
    "LEAF_ROLLOUT",
    "ONGOING",
    "PROVEN_DRAW",
    "PROVEN_LOSS",
    "PROVEN_WIN",
    "UNSOLVED",
    "Rollout",
]

#: a kernel's `status` (and a rollout's result): the game goes on
ONGOING = -1
#: a kernel's `status` (and a rollout's result): a draw; 0 and 1 are the winning seat
DRAW = 2

#: the compiled tree's PROVEN column (MCTS-Solver), for the seat that moved into a node;
#: 0 = not proven
PROVEN_WIN = 1
PROVEN_DRAW = 2
PROVEN_LOSS = 3

#: a kernel's exact search (`kernels.solve`: 1 win, 0 draw, -1 loss for the side to move)
#: ran out of its node budget, or the kernel has none
UNSOLVED = 9
#: an exact search's budget (an int64 array): the nodes searched so far, and the node limit
#: past which it answers UNSOLVED
BUDGET_NODES = 0
BUDGET_LIMIT = 1


#: a kernel's leaf evaluation (`kernels.leaf`), what the tree does with a leaf: play a
#: rollout from it (the kernel has no evaluator, or declines this leaf) ...
LEAF_ROLLOUT = 0
#: ... its winner is known exactly (a seat, or DRAW): prove the leaf (MCTS-Solver) ...
LEAF_EXACT = 1
#: ... or back up a reward in [0, 1] for the side to move there (1 a sure win)
LEAF_REWARD = 2


class Rollout(enum.IntEnum):
    """The rollout policies; a kernel plays uniformly random moves for one it does not implement.

    Implemented: connect four, m,n,k (`mnk`, `bigmnk`): RANDOM and WIN_BLOCK;
    ultimate tic-tac-toe: RANDOM and WIN; reversi: RANDOM; Go: RANDOM and HEAVY. The agent's
    ``rollout=smart`` asks each kernel for its adapter's ``smart`` policy.
    """

    RANDOM = 0
    """Uniformly random legal moves."""
    WIN_BLOCK = 1
    """Take an immediate win; else block the opponent's immediate win (one of them);
    else a random move that does not give the opponent an immediate win, if there is
    one (connect four: not right under its winning cell; in m,n,k games a stone never
    helps the opponent, so every move qualifies)."""
    WIN = 2
    """Take a move that wins the game at once; else a random move."""
    THREAT = 3
    """m,n,k games with k >= 5 (`bigmnk`): the threat playout of `threats.playout`
    (win, block, open four, stop one, else the best-scored cell with noise), cut
    off by a static evaluation; WIN_BLOCK elsewhere."""
    HEAVY = 4
    """Go (`go.policy.heavy`): capture or escape an atari the last move made, else a
    learned 3×3 pattern beside it, else a random move that is no self-atari of two
    stones or more; never filling one's own eye."""
