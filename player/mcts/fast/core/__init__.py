"""The generic compiled search: the array tree, its codes, generator, atomics, engine and root solver.

Why a package of its own: it knows no game. It reaches the kernels only
through `registry` (bound by `player.mcts.fast`, the layer above), and a
game's knowledge (plans, root searches) only through the `adapter.Adapter`
the game's package builds; `tests/player/mcts/fast/test_layers.py` fails
when a module here imports a game's package.
"""
