"""Ultimate tic-tac-toe's search knowledge: its kernel (`kernel`)."""
