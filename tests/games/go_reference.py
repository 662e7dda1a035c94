"""A plain, slow Go referee written from the Tromp–Taylor rules, to hold games/go.py to.

Nothing is shared with the game under test: the board is a list of
'.', 'X', 'O' (row 0 at the top), chains are found by a breadth-first search,
and the superko history is a set of whole boards as strings, not hashes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

EMPTY, BLACK, WHITE = ".", "X", "O"


def neighbours(point: int, size: int) -> list[int]:
    row, col = divmod(point, size)
    near = []
    if row > 0:
        near.append(point - size)
    if row < size - 1:
        near.append(point + size)
    if col > 0:
        near.append(point - 1)
    if col < size - 1:
        near.append(point + 1)
    return near


def chain_and_liberties(board: list[str], point: int, size: int) -> tuple[set[int], set[int]]:
    colour = board[point]
    chain, liberties, todo = {point}, set(), [point]
    while todo:
        here = todo.pop()
        for near in neighbours(here, size):
            if board[near] == EMPTY:
                liberties.add(near)
            elif board[near] == colour and near not in chain:
                chain.add(near)
                todo.append(near)
    return chain, liberties


def place(board: list[str], point: int, colour: str, size: int) -> tuple[list[str], int] | None:
    """The board after `colour` plays `point` and the stones it captured, or None if suicide."""
    if board[point] != EMPTY:
        return None
    after = list(board)
    after[point] = colour
    other = WHITE if colour == BLACK else BLACK
    captured = 0
    for near in neighbours(point, size):
        if after[near] == other:
            chain, liberties = chain_and_liberties(after, near, size)
            if not liberties:
                for stone in chain:
                    after[stone] = EMPTY
                captured += len(chain)
    if not chain_and_liberties(after, point, size)[1]:
        return None
    return after, captured


def area(board: list[str], size: int) -> tuple[int, int]:
    counts = {BLACK: board.count(BLACK), WHITE: board.count(WHITE)}
    seen: set[int] = set()
    for start, value in enumerate(board):
        if value != EMPTY or start in seen:
            continue
        region, borders, todo = {start}, set(), [start]
        while todo:
            here = todo.pop()
            for near in neighbours(here, size):
                if board[near] == EMPTY and near not in region:
                    region.add(near)
                    todo.append(near)
                elif board[near] != EMPTY:
                    borders.add(board[near])
        seen |= region
        if len(borders) == 1:
            counts[borders.pop()] += len(region)
    return counts[BLACK], counts[WHITE]


def is_legal_position(board: list[str], size: int) -> bool:
    """Every chain has a liberty (Tromp and Farnebäck's legal positions)."""
    return all(
        value == EMPTY or chain_and_liberties(board, point, size)[1]
        for point, value in enumerate(board)
    )


@dataclass
class Referee:
    """One game, move by move: moves are ints (row * size + col) or -1 for a pass."""

    size: int
    board: list[str] = field(default_factory=list)
    history: set[str] = field(default_factory=set)
    mover: str = BLACK
    passes: int = 0
    #: placements refused only because they would repeat an earlier position
    superko_refusals: int = 0

    def __post_init__(self) -> None:
        self.board = [EMPTY] * (self.size * self.size)
        self.history = {"".join(self.board)}

    def legal(self) -> list[int]:
        moves = []
        for point in range(self.size * self.size):
            placed = place(self.board, point, self.mover, self.size)
            if placed is None:
                continue
            if "".join(placed[0]) in self.history:
                self.superko_refusals += 1
                continue
            moves.append(point)
        return [*moves, -1]

    def play(self, move: int) -> int:
        """Play `move` (trusted legal); the number of stones it captured."""
        captured = 0
        if move == -1:
            self.passes += 1
        else:
            placed = place(self.board, move, self.mover, self.size)
            assert placed is not None
            self.board, captured = placed
            self.history.add("".join(self.board))
            self.passes = 0
        self.mover = WHITE if self.mover == BLACK else BLACK
        return captured

    def rows(self) -> list[str]:
        n = self.size
        return ["".join(self.board[r * n : (r + 1) * n]) for r in range(n)]
