"""The UCT search engine: one tree, one process, generic over `games.base.Game`.

Why it looks like this: a player's strength at a fixed time is its number of
simulations, so the per-iteration Python work is kept to a minimum.

- Nodes are `__slots__` objects holding their state (a move is applied once,
  at expansion, never again during selection) and, per node, the statistics
  the selection loop reads precomputed at backpropagation: ``mean`` (w/n) and
  ``isq`` (1/sqrt(n)). UCB1 for a child is then ``mean + cl * isq`` where
  ``cl = C * sqrt(ln N)`` is read once per level. Both 1/sqrt(n) and
  C*sqrt(ln n) come from tables indexed by the visit count (shared by all
  searches, grown as the root's count grows): a list index instead of two
  C calls on the hottest lines.
- A node's legal moves are computed the second time it is reached (most
  leaves are reached once); an untried move is drawn with a random index and
  removed by swap-pop.
- Rewards are a tuple indexed by seat (``Outcome.scores`` for ``uct``); a
  node's value is from the point of view of the seat that moved into it, so
  backpropagation is ``w += rewards[node.seat]`` for any number of seats.
- MCTS-Solver (Winands, Björnsson & Saito 2008), two-seat games only: a
  terminal leaf is proven; a node with a child proven won for the mover is
  proven, and so is a fully expanded node whose children are all proven (its
  value is the best of theirs, so proven draws are handled too). A proven
  node's ``w`` and ``mean`` become +inf/-inf so UCB1 never picks a proven
  loss, and selection stops at proven nodes and backs their value up.
- Garbage collection is kept off the clock. Nodes form no cycles (no
  parent pointers), so reference counting frees them, and the cyclic
  collector is only a source of pauses: a full collection over a large tree
  takes tens of milliseconds at a random moment. So the collector is paused
  during a search, and after it the tree is moved out of the collector's
  sight with `gc.freeze()` (O(1)); `release_frozen()` (`gc.unfreeze()`) is
  called between matches. Discarded trees are kept in a list and freed by
  `free_garbage`, which the agent calls right after its own move, on the
  opponent's time (freeing 100,000 nodes takes about 0.1 s).
- The clock is read about once per millisecond of work (an interval adapted
  to the measured iteration rate), so a search overshoots its deadline by at
  most about a millisecond plus one iteration.
"""

from __future__ import annotations

import gc
import math
import random
import threading
import time
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from games.base import Game, Outcome
from player.agent import SearchLimit
from player.mcts.options import check_options, default
from player.mcts.search_options import UCB_C

INF = math.inf
#: discarded trees kept before a search frees them itself (callers usually free sooner)
MAX_GARBAGE = 4
#: seconds of search between two clock readings
CHECK_INTERVAL = 0.001


class Node:
    """One state in the tree; `seat` moved into it, `mover` moves from it."""

    __slots__ = (
        "children",
        "isq",
        "mean",
        "move",
        "mover",
        "n",
        "proven",
        "seat",
        "state",
        "term",
        "untried",
        "w",
    )

    def __init__(self, state: Any, move: Any, seat: int) -> None:
        self.state = state
        self.move = move
        self.seat = seat
        self.mover = -1
        self.children: list[Node] = []
        self.untried: list[Any] | None = None
        self.n = 0
        self.w = 0.0
        self.mean = 0.0
        self.isq = 1.0
        #: exact value for `seat` when proven by the solver, else None
        self.proven: float | None = None
        #: rewards to back up when selection reaches this node (terminal or proven)
        self.term: tuple[float, ...] | None = None

    def child(self, move: Any) -> Node | None:
        """The child reached by `move`, if it was expanded."""
        for child in self.children:
            if child.move == move:
                return child
        return None

    def value(self) -> float:
        """Average reward for `seat` (the proven value if proven; 0.5 if unvisited)."""
        if self.proven is not None:
            return self.proven
        return self.w / self.n if self.n else 0.5


@dataclass(frozen=True, slots=True)
class MoveStat:
    """Root statistics of one move: visits, summed reward for the mover, proof."""

    move: Any
    visits: int
    value_sum: float
    proven: float | None = None

    @property
    def value(self) -> float:
        """Mean reward for the mover (the proven value if proven)."""
        if self.proven is not None:
            return self.proven
        return self.value_sum / self.visits if self.visits else 0.5


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What one search did and the root statistics it left (picklable)."""

    iterations: int
    elapsed: float
    max_depth: int
    new_nodes: int
    root_visits: int
    reused_visits: int
    stats: tuple[MoveStat, ...]
    untried: tuple[Any, ...]
    root_proven: float | None

    @property
    def rate(self) -> float:
        """Iterations per second."""
        return self.iterations / self.elapsed if self.elapsed > 0 else 0.0


class Search:
    """A UCT search tree for one game, kept between moves for tree reuse.

    `c` is the UCB1 exploration constant; `metric` is ``uct`` (rewards are
    the outcome's scores) or ``uctv`` (rewards are the outcome's game points,
    margin over the best other seat, normalised to [0, 1] by the largest
    margin seen so far; scores when a game reports no points). `max_moves`
    caps rollouts; a capped rollout counts as a draw. `max_nodes` bounds
    the tree (memory): past it leaves are evaluated without expansion. The
    solver only runs in two-seat games. `clock` returns seconds (injected by
    tests). Defaults and checks: the table of `player.mcts.options`. A
    `player.mcts.interface.SearchEngine`, like the compiled `FastSearch`.
    """

    def __init__(
        self,
        game: Game[Any, Any],
        *,
        c: float | None = default("c"),
        metric: str = default("metric"),
        max_moves: int | None = default("max_moves"),
        max_nodes: int | None = None,
        solver: bool = default("solver"),
        reuse: bool = default("reuse"),
        seed: int | str | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        check_options({"c": c, "metric": metric, "max_moves": max_moves})
        self.game = game
        self.c = UCB_C if c is None else float(c)
        self.metric = metric
        self.max_moves = max_moves
        #: node budget: no expansion once the root has this many visits (an
        #: iteration adds at most one node, so the tree holds at most max_nodes + 1)
        self.max_nodes = max_nodes if max_nodes is not None else 1 << 62
        self.solver = solver and game.num_players == 2
        self.reuse = reuse
        self.rng = random.Random(seed)
        self.clock = clock
        self.root: Node | None = None
        self.draw = (1.0 / game.num_players,) * game.num_players
        self._scale = 0.0
        self._garbage: list[Node] = []

    # --- tree reuse --------------------------------------------------------------

    def advance(self, state: Any, move: Any, new_state: Any) -> None:
        """`move` was played in `state`: keep the subtree of `new_state`, if any."""
        root = self.root
        self.root = None
        if root is None:
            return
        self._garbage.append(root)
        if not self.reuse or root.state != state:
            return
        child = root.child(move)
        if child is not None and child.state == new_state:
            root.children.remove(child)
            self.root = child

    @property
    def root_state(self) -> Any:
        """The state at the root of the kept tree (None: no tree)."""
        return None if self.root is None else self.root.state

    def reset(self) -> None:
        """Forget the tree (it is freed by the next `free_garbage`)."""
        if self.root is not None:
            self._garbage.append(self.root)
        self.root = None

    def free_garbage(self) -> None:
        """Free the trees discarded so far (cheap to call; costly only if they are big)."""
        self._garbage.clear()

    def close(self) -> None:
        """Nothing to stop: this engine searches in the calling thread (workers are processes)."""

    def principal_variation(self, move: Any, length: int) -> list[Any]:
        """`move`, then the most visited child after it, and so on: at most `length` moves.

        Read from the tree the last search left (call it before `advance`); the
        line stops where the tree does (a node never expanded or never visited).
        """
        line = [move]
        node = None if self.root is None else self.root.child(move)
        while node is not None and len(line) < length and node.children:
            best = max(node.children, key=_visits)
            if best.n == 0:
                break
            line.append(best.move)
            node = best
        return line

    # --- search ------------------------------------------------------------------

    def search(
        self, state: Any, limit: SearchLimit, *, deadline: float | None = None
    ) -> SearchResult:
        """Search from `state` (not terminal) until `limit`, and return the root statistics.

        `deadline`, a reading of `clock`, replaces ``now + limit.time`` when
        given (a worker process uses its parent's deadline).
        """
        start = self.clock()
        if deadline is None:
            deadline = INF if limit.time is None else start + limit.time
        cap = limit.iterations if limit.iterations is not None else 1 << 62
        root = self.root
        if root is None or root.state != state:
            if root is not None:
                self._garbage.append(root)
            mover = self.game.to_move(state)
            root = Node(state, None, (mover - 1) % self.game.num_players)
            self.root = root
        if len(self._garbage) > MAX_GARBAGE:
            self.free_garbage()
        if root.untried is None:
            root.untried = list(self.game.legal_moves(state))
            root.mover = self.game.to_move(state)
            if not root.untried:
                raise ValueError("cannot search a terminal state")
        reused = root.n
        with paused_gc():
            iterations, max_depth, new_nodes = self._run(root, start, deadline, cap)
            _freeze()
        elapsed = self.clock() - start
        return SearchResult(
            iterations=iterations,
            elapsed=elapsed,
            max_depth=max_depth,
            new_nodes=new_nodes,
            root_visits=root.n,
            reused_visits=reused,
            stats=root_stats(root),
            untried=tuple(root.untried),
            root_proven=None if root.proven is None else _value_for(root, root.mover),
        )

    def _run(self, root: Node, start: float, deadline: float, cap: int) -> tuple[int, int, int]:
        """The iteration loop: returns (iterations, max depth, new nodes)."""
        game = self.game
        apply = game.apply
        outcome = game.outcome
        playout = game.playout
        legal_moves = game.legal_moves
        to_move = game.to_move
        rng = self.rng
        rand = rng.random
        isq_table, cl_table = _tables(self.c, root.n + 2)
        max_moves = self.max_moves
        max_nodes = self.max_nodes
        solver = self.solver
        scores_only = self.metric == "uct"
        rewards_of = self.rewards
        draw = self.draw
        clock = self.clock
        node_class = Node
        propagate = self._propagate

        iterations = 0
        max_depth = 0
        new_nodes = 0
        next_check = 0
        if root.proven is not None:
            return 0, 0, 0
        while iterations < cap:
            if iterations >= next_check:
                now = clock()
                if now >= deadline:
                    break
                # Next reading after about CHECK_INTERVAL of work at the rate so far.
                elapsed = now - start
                step = int(iterations * CHECK_INTERVAL / elapsed) if elapsed > 0 else 0
                if step < 1:
                    step = 1
                next_check = iterations + step
                # No visit count can pass root.n + step before the next reading.
                if root.n + step + 2 > len(isq_table):
                    _tables(self.c, root.n + step + 2)
            iterations += 1

            node = root
            path = [root]
            proven_leaf = exact = False
            while True:
                rewards = node.term
                if rewards is not None:
                    exact = node.proven is not None
                    break
                untried = node.untried
                if untried is None:
                    state = node.state
                    untried = node.untried = list(legal_moves(state))
                    node.mover = to_move(state)
                if untried and root.n < max_nodes:
                    k = len(untried)
                    i = int(rand() * k)
                    move = untried[i]
                    untried[i] = untried[k - 1]
                    untried.pop()
                    state = apply(node.state, move)
                    child = node_class(state, move, node.mover)
                    node.children.append(child)
                    path.append(child)
                    new_nodes += 1
                    result = outcome(state)
                    if result is None:
                        result = outcome(playout(state, rng, max_moves))
                        if result is None:
                            rewards = draw
                        else:
                            rewards = result.scores if scores_only else rewards_of(result)
                    else:
                        rewards = result.scores if scores_only else rewards_of(result)
                        child.term = rewards
                        if solver:
                            child.proven = result.scores[child.seat]
                            proven_leaf = True
                    break
                if not node.children:  # node budget spent at an unexpanded leaf
                    result = outcome(playout(node.state, rng, max_moves))
                    if result is None:
                        rewards = draw
                    else:
                        rewards = result.scores if scores_only else rewards_of(result)
                    break
                cl = cl_table[node.n]
                best = -INF
                selected = node
                for ch in node.children:
                    v = ch.mean + cl * ch.isq
                    if v > best:
                        best = v
                        selected = ch
                if selected is node:  # every child is a proven loss: prove it now
                    selected = node.children[0]
                node = selected
                path.append(node)

            depth = len(path) - 1
            if depth > max_depth:
                max_depth = depth
            for nd in path:
                n = nd.n + 1
                nd.n = n
                w = nd.w + rewards[nd.seat]
                nd.w = w
                nd.mean = w / n
                nd.isq = isq_table[n]
            if proven_leaf:
                if propagate(path):
                    break
            elif exact:
                node.isq = 0.0  # a proven value has no uncertainty left
        return iterations, max_depth, new_nodes

    def _propagate(self, path: list[Node]) -> bool:
        """Push the proof of the leaf of `path` up as far as it goes; True if the root is proven."""
        j = len(path) - 1
        child = path[j]
        _mark(child)
        while j > 0:
            parent = path[j - 1]
            if parent.proven is not None:  # cannot happen: selection stops at proofs
                return False
            value = child.proven  # for parent.mover, who moved into child
            assert value is not None
            if value < 1.0:
                if parent.untried:
                    return False
                best = -INF
                for ch in parent.children:
                    p = ch.proven
                    if p is None:
                        return False
                    if p > best:
                        best = p
                value = best
            mover = parent.mover
            parent.proven = value if parent.seat == mover else 1.0 - value
            parent.term = (value, 1.0 - value) if mover == 0 else (1.0 - value, value)
            _mark(parent)
            child = parent
            j -= 1
        return True

    def rewards(self, outcome: Outcome) -> tuple[float, ...]:
        """Rewards per seat for the ``uctv`` metric (game points, normalised)."""
        points = outcome.points
        if points is None:
            return outcome.scores
        margins = [p - max(q for j, q in enumerate(points) if j != i) for i, p in enumerate(points)]
        largest = max(abs(m) for m in margins)
        if largest > self._scale:
            self._scale = largest
        if self._scale == 0:
            return outcome.scores
        half = 0.5 / self._scale
        return tuple(0.5 + m * half for m in margins)


_ISQ_TABLE: list[float] = [1.0]
_CL_TABLES: dict[float, list[float]] = {}
_TABLES_LOCK = threading.Lock()


def _tables(c: float, size: int) -> tuple[list[float], list[float]]:
    """The tables ``1/sqrt(n)`` and ``c*sqrt(ln n)`` for n < at least `size`.

    They only ever grow, in place, so a search may keep references to them.
    """
    isq = _ISQ_TABLE
    cl = _CL_TABLES.get(c)
    if cl is None or len(cl) < size or len(isq) < size:
        with _TABLES_LOCK:
            cl = _CL_TABLES.setdefault(c, [0.0])
            if len(isq) < size:
                end = max(size, 2 * len(isq), 1024)
                isq.extend(1.0 / math.sqrt(n) for n in range(len(isq), end))
            if len(cl) < size:
                end = max(size, 2 * len(cl), 1024)
                cl.extend(c * math.sqrt(math.log(n)) for n in range(len(cl), end))
    return isq, cl


def _mark(node: Node) -> None:
    """Make a newly proven node's statistics steer UCB1.

    A loss is never picked (-inf), a win always (+inf); a draw scores its
    exact value with no exploration bonus, so its siblings get the visits.
    """
    value = node.proven
    if value is None:
        return
    if value >= 1.0:
        node.w = node.mean = INF
    elif value <= 0.0:
        node.w = node.mean = -INF
    else:
        node.w = value * node.n
        node.mean = value
        node.isq = 0.0


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector in this block (restoring its previous state)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


# Not every interpreter has them (PyPy's collector needs no such help).
_freeze: Callable[[], None] = getattr(gc, "freeze", lambda: None)
_unfreeze: Callable[[], None] = getattr(gc, "unfreeze", lambda: None)


def release_frozen() -> None:
    """Hand the objects frozen after searches back to the garbage collector."""
    _unfreeze()


def _value_for(node: Node, seat: int) -> float:
    assert node.proven is not None
    return node.proven if node.seat == seat else 1.0 - node.proven


def _visits(node: Node) -> int:
    return node.n


def root_stats(root: Node) -> tuple[MoveStat, ...]:
    """The statistics of the root's children, as picklable values."""
    stats = []
    for ch in root.children:
        value_sum = ch.w if ch.proven is None else ch.proven * ch.n
        stats.append(MoveStat(ch.move, ch.n, value_sum, ch.proven))
    return tuple(stats)


def merge_stats(results: Iterable[SearchResult]) -> tuple[tuple[MoveStat, ...], tuple[Any, ...]]:
    """Sum the root statistics of independent searches move by move.

    Returns the merged stats and the moves no search expanded. A proof from
    any search holds for all (proofs are exact).
    """
    merged: dict[Hashable, list[Any]] = {}
    untried: dict[Hashable, None] = {}
    for result in results:
        for stat in result.stats:
            entry = merged.setdefault(stat.move, [0, 0.0, None])
            entry[0] += stat.visits
            entry[1] += stat.value_sum
            if stat.proven is not None:
                entry[2] = stat.proven
        for move in result.untried:
            untried.setdefault(move, None)
    stats = tuple(MoveStat(move, v, s, p) for move, (v, s, p) in merged.items())
    for move in merged:
        untried.pop(move, None)
    return stats, tuple(untried)


def best_move(
    stats: Sequence[MoveStat],
    untried: Sequence[Any],
    rng: random.Random,
    root_proven: float | None = None,
) -> Any:
    """The move to play: a proven win, else the most visited child not proven lost.

    Ties in visits are broken by value. A proven draw is preferred to a
    more visited unproven move whose mean reward is below one half (it is
    expected to do worse than the sure draw), and to any unproven move when
    the root is proven a draw (`root_proven` 0.5: an exact search may prove
    the root from one drawing move, every other move known only to do no
    better). If every expanded move is a
    proven loss, an unexpanded move is preferred; with no statistics at all,
    a random unexpanded move is returned.
    """
    wins = [s for s in stats if s.proven is not None and s.proven >= 1.0]
    if wins:
        return max(wins, key=lambda s: s.visits).move
    alive = [s for s in stats if s.proven is None or s.proven > 0.0]
    if not alive:
        if untried:
            return untried[int(rng.random() * len(untried))]
        alive = list(stats)
    if not alive:
        raise ValueError("no move to choose from (empty statistics)")
    choice = max(alive, key=lambda s: (s.visits, s.value))
    draws = [s for s in alive if s.proven is not None and s.proven == 0.5]
    if draws and choice.proven is None and (choice.value < 0.5 or root_proven == 0.5):
        return max(draws, key=lambda s: s.visits).move
    return choice.move
