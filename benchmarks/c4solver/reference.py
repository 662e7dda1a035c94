"""BitBully (Markus Thill's C++ connect four solver, on PyPI) as a second exact reference.

Why beside our own `Solver`: BitBully ships opening databases (up to 12
plies), so it scores an opening position in about a millisecond where a
plain search takes seconds to minutes; the accuracy benchmark's opening set
is only practical with it. It is an independent program (no shared code
with our solvers), AGPL, in the ``dev`` extra only: a measuring tool, never
shipped. `tests/benchmarks/test_c4solver.py` checks that it and our C
solver agree.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from typing import Any

from benchmarks.c4solver import SolverError


def available() -> bool:
    """Whether BitBully imports (the ``dev`` extra, Linux x86_64)."""
    return importlib.util.find_spec("bitbully") is not None


class BitBullySolver:
    """`values(moves)` like `benchmarks.c4solver.Solver`, answered by BitBully with its book.

    In-process: nothing to start or to end.
    """

    def __init__(self) -> None:
        try:
            from bitbully import BitBully, Board
        except ImportError:
            raise SolverError("bitbully is not installed: pip install -e '.[dev]'") from None
        self._agent: Any = BitBully()
        self._board = Board

    def values(self, moves: Sequence[int]) -> list[int | None]:
        """Per column 0..6: 1 win, 0 draw, -1 loss for the side to move; None if full.

        Raises SolverError for an illegal line or a finished game.
        """
        board = self._board()
        for move in moves:
            if not board.is_legal_move(move) or not board.play(move):
                raise SolverError(f"illegal move {move + 1} in {list(moves)!r}")
        if board.is_game_over():
            raise SolverError(f"the game is over after {list(moves)!r}")
        if board.can_win_next():
            raise SolverError(f"bitbully scores no position won at once: {list(moves)!r}")
        scores = self._agent.score_all_moves(board)
        return [None if c not in scores else (scores[c] > 0) - (scores[c] < 0) for c in range(7)]
