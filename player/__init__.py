"""Players: agents (mcts, random, minimax, human) and the TCP client runtime."""
