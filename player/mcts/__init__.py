"""Monte Carlo Tree Search: the engines (`SearchEngine`: `Search`, and the compiled
`player.mcts.fast`), their options (`player.mcts.options`) and the ``mcts`` agent.

Importing this package registers the ``mcts`` agent kind with `player.spec`.
"""

from player.mcts.agent import MCTSAgent as MCTSAgent
from player.mcts.agent import MoveReport as MoveReport
from player.mcts.interface import SearchEngine as SearchEngine
from player.mcts.search import MoveStat as MoveStat
from player.mcts.search import Node as Node
from player.mcts.search import Search as Search
from player.mcts.search import SearchResult as SearchResult
from player.mcts.search import best_move as best_move
from player.mcts.search import merge_stats as merge_stats
