"""Reversi's search knowledge: the bitboard kernel, its evaluation, endgame solver, leaf judge and plan.

`kernel` is what `player.mcts.fast.kernels` dispatches to; `bits` the shared
bit tricks; `evaluation` the hand evaluation; `endgame` the alpha-beta and
exact solver; `leaf` the leaf evaluator; `plan` sets a search up with them.
"""
