"""Go's search knowledge: the kernel on a node's row, the playout board and its policies.

`config` lays out the config array and the node row; `kernel` is what
`player.mcts.fast.kernels` dispatches to (the rules on the row, simple ko,
and the playouts); `board` the incremental board a playout plays on;
`policy` the playout's choice of move (light or heavy); `ladder` the ladder
reader the heavy playouts and `prior` may use.
"""
