"""The ``openspiel`` agent: OpenSpiel's C++ MCTS (`pyspiel.MCTSBot`) as a reference opponent.

Benchmark use only: it needs the optional extra ``reference`` (``pip install
'mcts-arena[reference]'``, i.e. ``open_spiel``). Importing this module without
it raises ImportError (name ``pyspiel``), which the agent registry reads as
"kind unavailable", so ``openspiel`` only appears when the extra is installed.

Settings follow the issue's reference configuration: UCT child selection,
``uct_c = 2`` (OpenSpiel's rewards are in [-1, 1]), one random rollout per
leaf (`pyspiel.RandomRolloutEvaluator(1, seed)`), MCTS-Solver on, a fresh
tree every move, stopped by the bot's own ``max_wall_clock_time`` at the
move's budget. The agent rebuilds OpenSpiel's state by replaying the match
history (`Agent.sync`/`observe`) through a per-game bridge, and checks that
both engines agree on the legal moves of the position it is asked about.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyspiel
import structlog

from games.base import Game
from games.go import PASS as GO_PASS
from games.go import Go
from player.agent import Agent, SearchLimit
from player.spec import AgentOption, register_agent

log = structlog.get_logger("player.reference")

UNLIMITED = (1 << 31) - 1


@dataclass(frozen=True, slots=True)
class Bridge:
    """How one of our games maps onto an OpenSpiel game."""

    name: str
    #: our move -> OpenSpiel actions (usually one), given the OpenSpiel state
    actions: Callable[[Any, Any], list[int]]
    #: OpenSpiel actions chosen in a row by one player (and our state before them) -> our move
    move: Callable[[list[int], Any], Any]
    #: the OpenSpiel game's parameters
    params: dict[str, Any] = field(default_factory=dict)


def _same(move: Any, _state: Any) -> list[int]:
    return [int(move)]


def _first(actions: list[int], _state: Any) -> Any:
    return actions[0]


def _othello_actions(move: Any, _state: Any) -> list[int]:
    return [64 if move == -1 else int(move)]


def _othello_move(actions: list[int], _state: Any) -> Any:
    return -1 if actions[0] == 64 else actions[0]


def _ultimate_actions(move: Any, state: Any) -> list[int]:
    row, col = divmod(int(move), 9)
    sub, local = (row // 3) * 3 + col // 3, (row % 3) * 3 + col % 3
    forced = "Forced board: any" not in str(state)
    return [local] if forced else [sub, local]


def _ultimate_move(actions: list[int], state: Any) -> Any:
    sub, local = (state[5], actions[0]) if len(actions) == 1 else (actions[0], actions[1])
    row = (sub // 3) * 3 + local // 3
    col = (sub % 3) * 3 + local % 3
    return row * 9 + col


def _go_bridge(size: int, komi: float, move_cap: int) -> Bridge:
    """Our points count from the top row, OpenSpiel's actions from the bottom one; a pass is
    -1 here and ``size²`` there. OpenSpiel plays simple ko only: a move that repeats an
    earlier position is legal there and not here (`OpenSpielAgent` never chooses one)."""

    def actions(move: Any, _state: Any) -> list[int]:
        if move == GO_PASS:
            return [size * size]
        row, col = divmod(int(move), size)
        return [(size - 1 - row) * size + col]

    def move(chosen: list[int], _state: Any) -> Any:
        if chosen[0] == size * size:
            return GO_PASS
        row, col = divmod(chosen[0], size)
        return (size - 1 - row) * size + col

    params = {"board_size": size, "komi": float(komi), "max_game_length": move_cap}
    return Bridge("go", actions, move, params)


def bridge_for(game: Game[Any, Any]) -> Bridge:
    """The bridge to OpenSpiel for `game`, or ValueError if OpenSpiel lacks it."""
    options = game.options
    board = tuple(options.get(key) for key in ("width", "height", "k"))
    if game.name == "connect4" and board == (7, 6, 4):
        return Bridge("connect_four", _same, _first)
    if game.name == "tictactoe" and board == (3, 3, 3):
        return Bridge("tic_tac_toe", _same, _first)
    if game.name == "gomoku" and board == (15, 15, 5):
        return Bridge("gomoku", _same, _first)  # freestyle on both sides: six in a row wins
    if game.name == "reversi" and options["size"] == 8:
        return Bridge("othello", _othello_actions, _othello_move)
    if game.name == "ultimate":
        return Bridge("ultimate_tic_tac_toe", _ultimate_actions, _ultimate_move)
    if isinstance(game, Go):
        return _go_bridge(game.size, game.komi, game.move_cap)
    raise ValueError(f"OpenSpiel has no counterpart of {game.describe()}")


class OpenSpielAgent(Agent):
    """OpenSpiel's C++ `MCTSBot` behind `Agent` (fresh tree each move)."""

    def __init__(
        self,
        *,
        time: float = 1.0,
        c: float = 2.0,
        rollouts: int = 1,
        solve: bool = True,
        memory: int = 1000,
        seed: int | None = None,
    ) -> None:
        if not time > 0:
            raise ValueError(f"option 'time' must be > 0 seconds, not {time!r}")
        if rollouts < 1:
            raise ValueError(f"option 'rollouts' must be >= 1, not {rollouts!r}")
        self.default_limit = SearchLimit(time=time)
        self.c, self.rollouts, self.solve, self.memory = c, rollouts, solve, memory
        self.seed = seed if seed is not None else int.from_bytes(__import__("os").urandom(3))
        self._moves_made = 0
        self.last_simulations = 0
        self.last_elapsed = 0.0

    def start(self, game: Game[Any, Any], seat: int) -> None:
        super().start(game, seat)
        self.bridge = bridge_for(game)
        self.spiel_game = pyspiel.load_game(self.bridge.name, self.bridge.params)

    def seed_match(self, seed: int) -> None:
        self.seed = seed & 0x7FFF_FFFF

    def _replay(self) -> Any:
        spiel = self.spiel_game.new_initial_state()
        for move in self.history:
            for action in self.bridge.actions(move, spiel):
                spiel.apply_action(action)
        return spiel

    def choose(self, state: Any, limit: SearchLimit) -> Any:
        game = self.require_game()
        begin = time.perf_counter()
        spiel = self._replay()
        ours = sorted(game.legal_moves(state))
        player = spiel.current_player()
        budget = limit.time if limit.time is not None else 1.0
        actions: list[int] = []
        simulations = 0
        while True:
            legal = spiel.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            else:
                left = budget - (time.perf_counter() - begin)
                # A free ultimate move is two OpenSpiel decisions (board, then cell):
                # half the budget each; every other move is one decision, all of it.
                two_steps = self.bridge.name == "ultimate_tic_tac_toe" and state[5] == -1
                step_budget = left / 2 if two_steps and not actions else left
                bot = self._bot(max(step_budget, 0.001))
                root = bot.mcts_search(spiel)
                simulations += root.explore_count
                action = self._best_legal(root, ours, state, actions)
            actions.append(action)
            spiel.apply_action(action)
            if spiel.is_terminal() or spiel.current_player() != player:
                break
            if self.bridge.name != "ultimate_tic_tac_toe":
                break
        move = self.bridge.move(actions, state)
        if move not in ours:
            raise ValueError(f"OpenSpiel chose {actions!r} = {move!r}, not legal here: {ours!r}")
        self._moves_made += 1
        self.last_simulations = simulations
        self.last_elapsed = time.perf_counter() - begin
        log.info(
            "openspiel_move",
            agent=self.name,
            move=game.format_move(move),
            iterations=simulations,
            elapsed_ms=round(self.last_elapsed * 1000, 1),
            iterations_per_s=round(simulations / self.last_elapsed) if self.last_elapsed else 0,
        )
        return move

    def _best_legal(self, root: Any, ours: list[Any], state: Any, before: list[int]) -> int:
        """The root's best child, or, where OpenSpiel's rules allow it and ours do not (Go's
        positional superko), the most visited child that ours allow."""
        action = int(root.best_child().action)
        if self.bridge.move([*before, action], state) in ours or self.bridge.name != "go":
            return action
        allowed = [
            child
            for child in root.children
            if self.bridge.move([*before, child.action], state) in ours
        ]
        return int(max(allowed, key=lambda child: child.explore_count).action)

    def _bot(self, seconds: float) -> Any:
        self.seed = (self.seed * 1_103_515_245 + 12_345) & 0x7FFF_FFFF
        evaluator = pyspiel.RandomRolloutEvaluator(self.rollouts, self.seed)
        return pyspiel.MCTSBot(
            self.spiel_game,
            evaluator,
            self.c,
            UNLIMITED,
            self.memory,
            self.solve,
            self.seed,
            False,
            pyspiel.ChildSelectionPolicy.UCT,
            seconds,
        )


def legal_actions_agree(game: Game[Any, Any], moves: Sequence[Any]) -> bool:
    """Whether replaying `moves` keeps our legal moves and OpenSpiel's in step (for tests)."""
    bridge = bridge_for(game)
    spiel = pyspiel.load_game(bridge.name, bridge.params).new_initial_state()
    state = game.initial_state()
    for move in [*moves, None]:
        if game.outcome(state) is not None:
            return bool(spiel.is_terminal())
        # (a free ultimate move starts with the board: compare the first decisions)
        ours = {bridge.actions(m, spiel)[0] for m in game.legal_moves(state)}
        theirs = set(spiel.legal_actions())
        # (Go: OpenSpiel's simple ko allows the moves our positional superko refuses)
        if not (ours <= theirs if bridge.name == "go" else ours == theirs):
            return False
        if move is None:
            return True
        for action in bridge.actions(move, spiel):
            spiel.apply_action(action)
        state = game.apply(state, move)
    return True


def _make(**options: Any) -> OpenSpielAgent:
    return OpenSpielAgent(**options)


OPENSPIEL = register_agent(
    "openspiel",
    _make,
    {
        "time": AgentOption("time", float, 1.0, "seconds per move (the bot's max_wall_clock_time)"),
        "c": AgentOption("c", float, 2.0, "UCT exploration constant (rewards in [-1, 1])"),
        "rollouts": AgentOption("rollouts", int, 1, "random rollouts per leaf"),
        "solve": AgentOption("solve", bool, True, "MCTS-Solver"),
        "memory": AgentOption("memory", int, 1000, "the bot's max_memory_mb"),
        "seed": AgentOption("seed", int, None, "random seed (none = from the OS)"),
    },
    description="reference: OpenSpiel's C++ MCTSBot (needs the 'reference' extra)",
)
