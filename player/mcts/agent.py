"""The ``mcts`` agent: a `SearchEngine` (plus optional workers) behind `Agent`.

Registered under the spec name ``mcts`` when this module is imported, with
the option table of `player.mcts.options`: a spec's values become one
`SearchOptions` and one `Knowledge`, what the agent takes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import structlog

from games.base import Game, Outcome
from player.agent import Agent, MoveInfo, SearchLimit, mix_seeds
from player.mcts import fast
from player.mcts.fast.connect4.options import Connect4Options
from player.mcts.interface import SearchEngine
from player.mcts.options import Knowledge, SearchOptions, agent_options, check_options
from player.mcts.parallel import WorkerPool
from player.mcts.resist import NODE_BUDGET, longest_resistance
from player.mcts.search import (
    MoveStat,
    Search,
    SearchResult,
    best_move,
    merge_stats,
    paused_gc,
    release_frozen,
)
from player.spec import register_agent

log = structlog.get_logger("player.mcts")

#: bytes of one node of the Python engine (measured with tracemalloc: 370-490 per node)
PYTHON_NODE_BYTES = 512
#: moves listed in the per-move log line
TOP_MOVES = 5
#: moves of the principal variation reported with a move (the move itself first)
PV_LENGTH = 8
#: the options the Python engine (`Search`) reads, in the order the agent's name shows them
PYTHON_OPTIONS = ("c", "metric", "max_moves", "solver", "reuse")


@dataclass(frozen=True, slots=True)
class MoveReport:
    """What the agent did for its last move (all searches merged)."""

    move: Any
    iterations: int
    elapsed: float
    max_depth: int
    new_nodes: int
    root_visits: int
    reused_visits: int
    stats: tuple[MoveStat, ...]
    searches: int
    root_proven: float | None = None
    #: the move, then the most visited line after it in the in-thread tree (game moves)
    pv: tuple[Any, ...] = ()

    @property
    def rate(self) -> float:
        """Iterations per second over all searches."""
        return self.iterations / self.elapsed if self.elapsed > 0 else 0.0


def worker_seed(seed: int | None, index: int) -> int | str | None:
    """The seed of search `index` (0 = the agent's own thread) derived from the agent's."""
    if seed is None:
        return None
    return seed if index == 0 else f"{seed}:{index}"


class MCTSAgent(Agent):
    """UCT with tree reuse, MCTS-Solver and optional parallel search (`workers`).

    `options` are the generic search options (`SearchOptions`: each one's
    meaning is its help there) and `knowledge` every game's own
    (`Knowledge`: gomoku's threats, ``connect4_*``, ``reversi_*``), as
    OpenSpiel's bot takes an evaluator; the search of a game gets that
    game's (`Adapter.knowledge`). ``time`` and ``iterations`` make
    `default_limit`. ``engine`` picks the search: ``fast`` is the compiled
    core (`player.mcts.fast`, built-in games only), ``python`` the generic
    engine (`player.mcts.search`, any game), ``auto`` the first that can
    play the game. With ``workers=N`` the compiled engine searches its one
    tree in N threads, and the Python engine runs N-1 more searches in
    processes started by `start`, whose root visits are summed by move.
    ``memory`` caps each tree (MiB: rows of the compiled engine, a node
    budget for the Python one). None: the defaults. `clock` replaces the searches' clock (tests).
    """

    def __init__(
        self,
        options: SearchOptions | None = None,
        knowledge: Knowledge | None = None,
        *,
        clock: Callable[[], float] | None = None,
    ) -> None:
        options = SearchOptions() if options is None else options
        knowledge = Knowledge() if knowledge is None else knowledge
        self.search_options = options
        self.knowledge = knowledge
        self.default_limit = SearchLimit(time=options.time, iterations=options.iterations)
        #: the Python engine's options, as `Search` takes them
        self.options: dict[str, Any] = {name: getattr(options, name) for name in PYTHON_OPTIONS}
        self.workers = options.workers
        self.seed = options.seed
        self.engine = options.engine
        shown = {"time": options.time, "iterations": options.iterations, **self.options}
        shown["workers"] = options.workers
        shown["seed"] = options.seed
        if options.engine != "auto":
            shown["engine"] = options.engine
        shown.update(knowledge.changed())  # a game's knowledge, named when changed
        # The Python engine's node budget from the same byte cap.
        self.options["max_nodes"] = int(options.memory * 2**20) // PYTHON_NODE_BYTES
        # Compile (or load from the disk cache) before any clock runs.
        engine = options.engine
        self._fast = fast.load() if engine != "python" and fast.warm_up() else None
        if engine == "fast" and self._fast is None:
            log.warning("mcts_fast_engine_unavailable", reason="numba cannot be imported")
        if self._fast is not None:  # a weights file named is read now: a bad one fails here
            from player.mcts.fast.connect4 import plan as connect4_plan

            connect4_plan.check_options(knowledge.of(Connect4Options))
        self.name = "mcts:" + ",".join(
            f"{key}={str(value).lower() if isinstance(value, bool) else value}"
            for key, value in shown.items()
            if value is not None
        )
        self._clock = clock
        self._search: SearchEngine | None = None
        self._pool: WorkerPool | None = None
        self._pool_failed = False
        self.last_report: MoveReport | None = None
        self._match_seed: int | None = None

    # --- lifecycle ---------------------------------------------------------------

    def seed_match(self, seed: int) -> None:
        """Seed the next match's search from the server's per-game seed (see `Agent`)."""
        self._match_seed = seed

    def start(self, game: Game[Any, Any], seat: int) -> None:
        """Begin a match (or resume one after a reconnect): the searches and worker processes.

        The tree is kept: `finish` dropped the last match's, and after a
        reconnect `sync` keeps whatever part of it still applies.
        """
        super().start(game, seat)
        if self._search is None or self._search.game is not game:
            if self._search is not None:
                self._search.close()
            self._search = self._new_search(game, 0)
        if self._match_seed is not None:
            self._search.rng.seed(mix_seeds(self.seed, self._match_seed))
            self._match_seed = None
        if self._pool is not None and self._pool.game is not game:
            self._pool.close()
            self._pool = None
        if self._pool is not None:
            self._pool.reset()
        self._ensure_pool(game)

    def _new_search(self, game: Game[Any, Any], index: int) -> SearchEngine:
        """A search for `game`: the compiled engine when it can play it, else the Python one."""
        seed = worker_seed(self.seed, index)
        kwargs: dict[str, Any] = {} if self._clock is None else {"clock": self._clock}
        if self._fast is not None:
            from player.mcts.fast.adapters import adapter_for

            adapter = adapter_for(game)
            if adapter is not None:
                own = self.knowledge.of(adapter.knowledge)  # this game's (None: it has none)
                compiled: SearchEngine = self._fast.FastSearch(
                    game, adapter, self.search_options, own, seed=seed, **kwargs
                )
                return compiled
        if self.engine == "fast":
            log.warning("mcts_fast_engine_unavailable", game=game.name, reason="no kernel")
        return Search(game, seed=seed, **self.options, **kwargs)

    def _is_fast(self, search: SearchEngine | None) -> bool:
        return self._fast is not None and isinstance(search, self._fast.FastSearch)

    def _ensure_pool(self, game: Game[Any, Any]) -> WorkerPool | None:
        if self._is_fast(self._search):
            return None
        if self.workers > 1 and self._pool is None and not self._pool_failed:
            seeds = [worker_seed(self.seed, i) for i in range(1, self.workers)]
            try:
                self._pool = WorkerPool(game, seeds, self.options)
            except Exception as exc:  # e.g. a game that cannot be pickled: search alone
                self._pool_failed = True
                log.warning("mcts_workers_unavailable", agent=self.name, error=repr(exc))
        return self._pool

    def sync(self, state: Any, moves: Sequence[Any]) -> None:
        """Bring the tree(s) to `state` along the history `moves` (tree reuse after a reconnect).

        The moves are replayed from the initial state; if the tree's root is
        one of the positions on the way, the moves from there on advance it,
        else the tree is dropped.
        """
        super().sync(state, moves)
        if self._search is None or self.game is None:
            return
        game = self.game
        self._follow(self._search, game, state, moves)
        if self._pool is not None:
            self._pool.reset()

    @staticmethod
    def _follow(
        search: SearchEngine, game: Game[Any, Any], state: Any, moves: Sequence[Any]
    ) -> None:
        """Advance `search`'s tree along `moves` to `state`, or drop it if its root is not on the way."""
        root = search.root_state
        if root is None or root == state:
            return
        position = game.initial_state()
        path = [position]
        try:
            for move in moves:
                position = game.play(position, move)
                path.append(position)
        except ValueError:
            path = []
        if not path or path[-1] != state or root not in path:
            search.reset()
            return
        for index in range(path.index(root), len(moves)):
            search.advance(path[index], moves[index], path[index + 1])

    def observe(self, state: Any, move: Any, new_state: Any) -> None:
        """Move the tree(s) down to `new_state`; free old trees after our own moves."""
        super().observe(state, move, new_state)
        if self._search is None:
            return
        self._search.advance(state, move, new_state)
        if self._pool is not None:
            self._pool.advance(state, move, new_state)
        if self.seat is not None and self._search.game.to_move(state) == self.seat:
            # Our move was just played: the opponent's clock runs, free memory now.
            self._search.free_garbage()
            if self._pool is not None:
                self._pool.free_garbage()

    def finish(self, outcome: Outcome | None) -> None:
        """Drop the trees of the finished match."""
        if self._search is not None:
            self._search.reset()
            self._search.free_garbage()
        release_frozen()
        if self._pool is not None:
            self._pool.reset()

    def close(self) -> None:
        """Stop the worker processes and drop the tree."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None
        if self._search is not None:
            self._search.close()
            self._search.reset()
            self._search.free_garbage()
            self._search = None
        release_frozen()

    # --- moves ---------------------------------------------------------------------

    @property
    def search_tree(self) -> SearchEngine:
        """The in-thread search (for tests and benchmarks)."""
        if self._search is None:
            raise RuntimeError(f"agent {self.name!r}: start() must be called first")
        return self._search

    def evaluation(self) -> float | None:
        report = self.last_report
        return None if report is None else _evaluation(report)

    def move_info(self) -> MoveInfo | None:
        """What the search of the last move found: the chosen move's evaluation, the
        iterations of this move's search (`visits`, all searches summed), the deepest
        selection (`depth`) and the principal variation. None for a forced move."""
        report = self.last_report
        if report is None or report.searches == 0:
            return None
        game = self.require_game()
        return MoveInfo(
            eval=_evaluation(report),
            depth=report.max_depth,
            visits=report.iterations,
            pv=tuple(game.format_move(move) for move in report.pv),
        )

    def choose(self, state: Any, limit: SearchLimit) -> Any:
        """Search within `limit` (its iteration cap defaults to the spec's) and pick a move."""
        begin = time.perf_counter()
        game = self.require_game()
        search = self._search
        if search is None:
            raise RuntimeError(f"agent {self.name!r}: start() must be called before choose()")
        with paused_gc():
            return self._choose(game, search, state, limit, begin)

    def _choose(
        self,
        game: Game[Any, Any],
        search: SearchEngine,
        state: Any,
        limit: SearchLimit,
        begin: float,
    ) -> Any:
        moves = game.legal_moves(state)
        if not moves:
            raise ValueError("choose() called on a terminal state")
        if len(moves) == 1:
            self.last_report = MoveReport(moves[0], 0, 0.0, 0, 0, 0, 0, (), 0)
            log.info("mcts_move", agent=self.name, move=game.format_move(moves[0]), forced=True)
            return moves[0]
        if limit.iterations is None and self.default_limit is not None:
            limit = SearchLimit(time=limit.time, iterations=self.default_limit.iterations)
        pool = self._ensure_pool(game)
        deadline = None
        if limit.time is not None:
            # From the call, not from the search's start; the injected clock is for tests.
            deadline = begin + limit.time if self._clock is None else self._clock() + limit.time
        seq = 0
        if pool is not None:
            seq = pool.submit(state, limit, deadline)
        result = search.search(state, limit, deadline=deadline)
        results = [result]
        if pool is not None:
            results += pool.collect(seq, deadline)
        if len(results) == 1:
            stats, untried = result.stats, result.untried
        else:
            stats, untried = merge_stats(results)
        if result.root_proven == 0.0:  # lost: the search chooses among the longest defences
            clock = self._clock or time.perf_counter
            # on a clock the time left bounds it; without one, the effort the search just made
            effort = NODE_BUDGET if deadline is not None else max(1_000, result.iterations)
            keep = longest_resistance(
                game, state, moves, deadline=deadline, clock=clock, budget=min(NODE_BUDGET, effort)
            )
            stats = tuple(s for s in stats if s.move in keep)
            known = {s.move for s in stats}
            untried = tuple(m for m in keep if m not in known)
        move = best_move(stats, untried, search.rng, result.root_proven)
        report = _report(move, results, stats, search.principal_variation(move, PV_LENGTH))
        self.last_report = report
        _log_move(game, self.name, report)
        return move


def _evaluation(report: MoveReport) -> float | None:
    """The mover's expected score after its move: the chosen move's proof, else its mean reward."""
    for stat in report.stats:
        if stat.move == report.move and (stat.visits > 0 or stat.proven is not None):
            return min(1.0, max(0.0, stat.value))
    return None


def _report(
    move: Any, results: Sequence[SearchResult], stats: tuple[MoveStat, ...], pv: Sequence[Any]
) -> MoveReport:
    proofs = [r.root_proven for r in results if r.root_proven is not None]
    return MoveReport(
        move=move,
        iterations=sum(r.iterations for r in results),
        elapsed=max(r.elapsed for r in results),
        max_depth=max(r.max_depth for r in results),
        new_nodes=sum(r.new_nodes for r in results),
        root_visits=sum(r.root_visits for r in results),
        reused_visits=sum(r.reused_visits for r in results),
        stats=stats,
        searches=len(results),
        root_proven=proofs[0] if proofs else None,
        pv=tuple(pv),
    )


def _proof_text(value: float | None) -> str | None:
    if value is None:
        return None
    return "win" if value >= 1.0 else "loss" if value <= 0.0 else "draw"


def _log_move(game: Game[Any, Any], name: str, report: MoveReport) -> None:
    """Log the canonical per-move line.

    `tree_size` is the root's visit count over all searches: an upper bound of
    the number of nodes, as an iteration adds at most one.
    """
    top = sorted(report.stats, key=lambda s: (s.visits, s.value), reverse=True)[:TOP_MOVES]
    log.info(
        "mcts_move",
        agent=name,
        move=game.format_move(report.move),
        iterations=report.iterations,
        iterations_per_s=round(report.rate),
        elapsed_ms=round(report.elapsed * 1000, 1),
        max_depth=report.max_depth,
        tree_size=report.root_visits,
        new_nodes=report.new_nodes,
        reused_visits=report.reused_visits,
        searches=report.searches,
        proven=_proof_text(report.root_proven),
        top=[
            {
                "move": game.format_move(s.move),
                "visits": s.visits,
                "win_rate": round(s.value, 3),
                **({"proven": _proof_text(s.proven)} if s.proven is not None else {}),
            }
            for s in top
        ],
    )


def _make(**values: Any) -> MCTSAgent:
    """The agent of a spec's values (flat, by option name): its options and knowledge."""
    check_options(values)
    return MCTSAgent(SearchOptions.from_values(values), Knowledge.from_values(values))


MCTS = register_agent(
    "mcts", _make, agent_options(), description="Monte Carlo Tree Search (UCT, random rollouts)"
)
