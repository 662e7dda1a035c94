"""Connect four's search knowledge: the bitboard kernel, its learned evaluation, solver and plan.

`kernel` is what `player.mcts.fast.kernels` dispatches to; `evaluation`
(with its shipped weights, ``eval.npz``) judges leaves; `solve` is the exact
alpha-beta search the core's `exact.RootSolver` runs; `plan` sets a search
up with them.
"""
