"""Baseline agents: ``random``, ``greedy`` (one ply) and ``minimax`` (alpha-beta).

They use only the `Game` interface, so they play every game. `minimax` is a
perfect player for small games (tic-tac-toe at depth 9) and a strong one at
a depth or time limit elsewhere; tests use it as the opponent MCTS must not
lose to.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from typing import Any

from games.base import Game
from player.agent import Agent, SearchLimit
from player.spec import AgentOption, register_agent


class RandomAgent(Agent):
    """Plays a uniformly random legal move (seeded)."""

    def __init__(self, *, seed: int | None = None) -> None:
        self.name = "random" if seed is None else f"random:seed={seed}"
        self.rng = random.Random(seed)

    def choose(self, state: Any, limit: SearchLimit) -> Any:
        """A random legal move."""
        moves = self.require_game().legal_moves(state)
        return moves[int(self.rng.random() * len(moves))]


def winning_moves(game: Game[Any, Any], state: Any) -> list[Any]:
    """The legal moves in `state` that win at once for the seat to move."""
    seat = game.to_move(state)
    wins = []
    for move in game.legal_moves(state):
        outcome = game.outcome(game.apply(state, move))
        if outcome is not None and outcome.winner == seat:
            wins.append(move)
    return wins


class GreedyAgent(Agent):
    """One ply: win at once if possible, else avoid moves that let the next player win at once.

    Among equal moves it picks at random (seeded). Works for any game.
    """

    def __init__(self, *, seed: int | None = None) -> None:
        self.name = "greedy" if seed is None else f"greedy:seed={seed}"
        self.rng = random.Random(seed)

    def choose(self, state: Any, limit: SearchLimit) -> Any:
        """A winning move, else a safe one, else any (random among equals)."""
        game = self.require_game()
        me = game.to_move(state)
        moves = list(game.legal_moves(state))
        wins = winning_moves(game, state)
        if wins:
            return self._pick(wins)
        safe = []
        for move in moves:
            after = game.apply(state, move)
            if game.outcome(after) is not None:
                safe.append(move)  # a draw or a loss we cannot avoid by this test
                continue
            nxt = game.to_move(after)
            if nxt == me or not winning_moves(game, after):
                safe.append(move)
        return self._pick(safe or moves)

    def _pick(self, moves: Sequence[Any]) -> Any:
        return moves[int(self.rng.random() * len(moves))]


class _OutOfTime(Exception):
    pass


#: value of a win one ply away (a loss is its negative; a draw or unknown is 0)
WIN = 1.0
#: each ply of distance shrinks a value, so quick wins and slow losses are preferred
DECAY = 0.999
_EXACT, _LOWER, _UPPER = 0, 1, 2


class MinimaxAgent(Agent):
    """Negamax with alpha-beta pruning and a transposition table, two-seat games only.

    Searches `depth` plies (a non-terminal leaf scores as a draw). With a time
    limit (the spec's `time` or the one passed to `choose`) it deepens
    iteratively and plays the best move of the deepest completed search.
    Equal moves are chosen at random (seeded).
    """

    def __init__(
        self,
        *,
        depth: int = 9,
        time: float | None = None,
        seed: int | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        if depth < 1:
            raise ValueError(f"option 'depth' must be >= 1, not {depth!r}")
        if time is not None and not time > 0:
            raise ValueError(f"option 'time' must be > 0 seconds (or none), not {time!r}")
        self.depth = depth
        self.time = time
        self.default_limit = None if time is None else SearchLimit(time=time)
        self.name = f"minimax:depth={depth}" + ("" if time is None else f",time={time}")
        self.rng = random.Random(seed)
        self._clock = clock or _perf_counter
        self._table: dict[Any, tuple[int, int, float]] = {}
        self._deadline = float("inf")
        self._nodes = 0
        #: plies completed by the last search
        self.last_depth = 0

    def start(self, game: Game[Any, Any], seat: int) -> None:
        """Begin a match; only two-seat games are supported."""
        if game.num_players != 2:
            raise ValueError(f"minimax plays two-seat games only, not {game.num_players} seats")
        if game is not self.game:
            self._table = {}
        super().start(game, seat)

    def choose(self, state: Any, limit: SearchLimit) -> Any:
        """The best move at the deepest depth completed within the limit."""
        game = self.require_game()
        moves = list(game.legal_moves(state))
        if len(moves) == 1:
            return moves[0]
        budget = limit.time
        if self.time is not None:
            budget = self.time if budget is None else min(budget, self.time)
        start = self._clock()
        self._deadline = float("inf") if budget is None else start + budget
        self._nodes = 0
        depths = range(1, self.depth + 1) if budget is not None else (self.depth,)
        best = moves
        self.last_depth = 0
        for depth in depths:
            try:
                best = self._root(game, state, moves, depth)
            except _OutOfTime:
                break
            self.last_depth = depth
        return best[int(self.rng.random() * len(best))]

    def _root(self, game: Game[Any, Any], state: Any, moves: list[Any], depth: int) -> list[Any]:
        """All moves of the best value at `depth`."""
        me = game.to_move(state)
        scored = []
        for move in moves:
            scored.append((self._child_value(game, game.apply(state, move), me, depth - 1), move))
        top = max(value for value, _ in scored)
        return [move for value, move in scored if value == top]

    def _child_value(self, game: Game[Any, Any], child: Any, me: int, depth: int) -> float:
        """The value of `child` for `me`, who just moved into it (exact, full window)."""
        outcome = game.outcome(child)
        if outcome is not None:
            return WIN * (outcome.scores[me] - outcome.scores[1 - me])
        value = self._negamax(game, child, depth, -2.0, 2.0)
        return DECAY * (value if game.to_move(child) == me else -value)

    def _negamax(
        self, game: Game[Any, Any], state: Any, depth: int, alpha: float, beta: float
    ) -> float:
        """Value of non-terminal `state` for the seat to move, within (alpha, beta)."""
        self._nodes += 1
        if self._nodes & 1023 == 0 and self._clock() > self._deadline:
            raise _OutOfTime
        if depth == 0:
            return 0.0
        entry = self._table.get(state)
        if entry is not None and entry[0] >= depth:
            _, flag, stored = entry
            if flag == _EXACT:
                return stored
            if flag == _LOWER and stored > alpha:
                alpha = stored
            elif flag == _UPPER and stored < beta:
                beta = stored
            if alpha >= beta:
                return stored
        original_alpha = alpha
        me = game.to_move(state)
        best = -2.0
        for move in game.legal_moves(state):
            child = game.apply(state, move)
            outcome = game.outcome(child)
            if outcome is not None:
                value = WIN * (outcome.scores[me] - outcome.scores[1 - me])
            elif game.to_move(child) == me:
                value = DECAY * self._negamax(game, child, depth - 1, alpha / DECAY, beta / DECAY)
            else:
                value = -DECAY * self._negamax(
                    game, child, depth - 1, -beta / DECAY, -alpha / DECAY
                )
            if value > best:
                best = value
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        break
        flag = _UPPER if best <= original_alpha else _LOWER if best >= beta else _EXACT
        self._table[state] = (depth, flag, best)
        return best


def _perf_counter() -> float:
    return time.perf_counter()


RANDOM = register_agent(
    "random",
    RandomAgent,
    {"seed": AgentOption("seed", int, None, "random seed (none = from the OS)")},
    description="uniformly random legal moves",
)
GREEDY = register_agent(
    "greedy",
    GreedyAgent,
    {"seed": AgentOption("seed", int, None, "random seed for ties (none = from the OS)")},
    description="one ply: win at once, else avoid giving an immediate win, else random",
)
MINIMAX = register_agent(
    "minimax",
    MinimaxAgent,
    {
        "depth": AgentOption("depth", int, 9, "search depth in plies"),
        "time": AgentOption("time", float, None, "seconds per move (iterative deepening)"),
        "seed": AgentOption("seed", int, None, "random seed for ties (none = from the OS)"),
    },
    description="alpha-beta minimax (perfect on tic-tac-toe at depth 9)",
)
