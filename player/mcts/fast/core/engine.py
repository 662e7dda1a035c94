"""`FastSearch`: the compiled search, a `player.mcts.interface.SearchEngine` like `Search`.

The Python side owns the clock: it runs the compiled loop in batches sized
to about a millisecond each (adapted to the measured rate), so a search
overshoots its deadline by about that much. Memory is one preallocated set
of arrays sized from a byte cap (`max_memory`, MiB); `np.empty` only maps
pages, so the resident size grows with the tree actually built. When the
rows run out the tree stops growing and the search goes on (rollouts from
the leaves). Tree reuse moves the root down in place; when more than half of
the rows are used at the start of a search, the live subtree is compacted to
the front.

With ``threads`` above 1 a timed search grows the tree in that many threads
at once (`tree.run` with ``shared``: virtual loss, atomic counts, claimed
expansions); the others start once the root is expanded and stop with this
one (at the deadline or a proof), each with its own generator and evaluator
scratch, while the root's exact searches stay in this thread. A search with
no clock runs in one thread, so a seed reproduces it.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np

from games.base import Game
from player.agent import SearchLimit
from player.mcts.fast.core import exact, tree
from player.mcts.fast.core.adapter import Adapter, Plan
from player.mcts.fast.core.codes import PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN, Rollout
from player.mcts.fast.core.rng import new_rng
from player.mcts.option import Options
from player.mcts.search import MoveStat, SearchResult
from player.mcts.search_options import SearchOptions

BATCH_SECONDS = 0.001
#: `tree.run`'s leaf when leaves are rolled out (no evaluator)
ROLLOUTS = tree.Leaf.rollouts()
_PROOF = {PROVEN_WIN: 1.0, PROVEN_DRAW: 0.5, PROVEN_LOSS: 0.0}


def next_batch(batch: int, spent: float) -> int:
    """The next batch size after `batch` simulations took `spent` seconds: about
    `BATCH_SECONDS` of work, at most twice the last, at least 16 (the last if no time
    was measured)."""
    if spent <= 0:
        return batch
    return max(16, min(int(batch * BATCH_SECONDS / spent), 2 * batch))


def bytes_per_node(state_size: int, amaf: bool = False) -> int:
    """Bytes of one tree row: the state, the int32 columns, the reward sum and, with
    `amaf`, RAVE's AMAF visits and wins (int32 and float32)."""
    return 8 * state_size + 4 * tree.COLUMNS + 8 + (8 if amaf else 0)


class FastSearch:
    """A compiled UCT search tree for one game, kept between moves for tree reuse.

    `options` are the ``mcts`` agent's (`SearchOptions`; None: the defaults); it reads
    ``c``, ``rollout`` (``smart`` plays the adapter's `Adapter.smart` policy,
    ``random`` `Rollout.RANDOM`), ``solver``, ``reuse``, ``memory``,
    ``exact``, ``workers`` (threads growing the tree in a timed search;
    `close` stops them), ``rave`` (RAVE's k, for kernels with AMAF rollouts;
    none: the adapter's `Adapter.rave`) and ``prior`` (the kernel's prior at
    expansion, for kernels that have one). `knowledge` is the game's own options, an instance
    of `Adapter.knowledge` (None: its defaults): the adapter's knowledge
    factories read it. `seed` is this search's (the agent's, or a worker's
    derived from it); `clock` the clock of its deadlines.
    """

    def __init__(
        self,
        game: Game[Any, Any],
        adapter: Adapter,
        options: SearchOptions | None = None,
        knowledge: Options | None = None,
        *,
        seed: int | str | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        options = SearchOptions() if options is None else options
        if knowledge is None and adapter.knowledge is not None:
            knowledge = adapter.knowledge()
        if knowledge is not None and type(knowledge) is not adapter.knowledge:
            raise TypeError(f"{game.name}: knowledge of another game: {knowledge!r}")
        self.game = game
        self.adapter = adapter
        self.options = options
        #: the game's own options (`Adapter.knowledge`), None when it has none
        self.knowledge = knowledge
        self.c = float(adapter.c if options.c is None else options.c)
        #: a plain int: an IntEnum argument would compile other kernel specializations
        self.policy = int(Rollout.RANDOM if options.rollout == "random" else adapter.smart)
        self.solver = options.solver
        self.reuse = options.reuse
        self.rng = random.Random(seed)
        self.clock = clock
        kernels = tree.kernels
        rave = adapter.rave if options.rave is None else options.rave
        #: RAVE's equivalence parameter (0: off; always off for a kernel without AMAF rollouts)
        self.rave = float(rave) if adapter.gid in kernels.AMAF else 0.0
        #: whether new nodes get the kernel's prior (option ``prior``, kernels that have one)
        self.prior = options.prior and adapter.gid in kernels.PRIORS
        self.priors = tree.Prior.buffers() if self.prior else tree.Prior.none()
        self.node_bytes = bytes_per_node(adapter.state_size, self.rave > 0)
        memory = options.memory
        tree_bytes = int(memory * 2**20)
        #: the exact search from the root (option ``exact``), for kernels that have one
        self.exact: exact.RootSolver | None = None
        if options.exact > 0 and exact.supported(adapter.gid):
            self.exact = exact.RootSolver(adapter.gid, adapter.cfg, options.exact, memory, clock)
            tree_bytes -= exact.table_bytes(memory)
        # The game's own search knowledge (reversi's and connect four's `plan`), None = plain UCT.
        self.plan: Plan | None = (
            None if adapter.plan is None else adapter.plan(adapter, knowledge, self.policy)
        )
        if self.plan is not None:  # its own leaf parameters count too (not the shared ones)
            tree_bytes -= self.plan.owned_bytes
        self.capacity = max(64, tree_bytes // self.node_bytes)
        #: the tree, one value (`tree.Tree`); `st`, `ni`, `wsum` and `meta` name its arrays
        self.arrays = tree.Tree.empty(self.capacity, adapter.state_size, self.rave > 0)
        self.root_state: Any = None
        self._batch = 16  # grows to BATCH_SECONDS of work (slow kernels: gomoku)
        #: the kernel config the search runs with: the adapter's, knowledge switched on or off
        tune = adapter.configure
        self.cfg = adapter.cfg if tune is None else tune(adapter.cfg, knowledge)
        #: the game's root searches (`RootSearch`; typed Any: callers may read a game's own fields)
        self.root_threats: Any = (
            None if adapter.root_threats is None else adapter.root_threats(adapter, knowledge)
        )
        self.root_vct: Any = (
            None if adapter.root_vct is None else adapter.root_vct(adapter, knowledge)
        )
        #: threads searching the one tree in a timed search (``workers``; 1 = this thread only)
        self.threads = max(1, int(options.workers))
        self._lanes: ThreadPoolExecutor | None = None
        #: the last search's simulations per thread (this one first)
        self.thread_iterations: tuple[int, ...] = ()
        #: the root's rows whose moves the rules refuse (`Adapter.rules_bound`), this search
        self._refused: frozenset[int] = frozenset()

    @property
    def st(self) -> np.ndarray:
        """The rows' kernel states."""
        return self.arrays.st

    @property
    def ni(self) -> np.ndarray:
        """The rows' int32 columns (`tree.FIRST` ... `tree.IMPLIED`)."""
        return self.arrays.ni

    @property
    def wsum(self) -> np.ndarray:
        """The rows' reward sums."""
        return self.arrays.wsum

    @property
    def meta(self) -> np.ndarray:
        """`tree.ROOT`, `tree.NEXT`, `tree.FULL`."""
        return self.arrays.meta

    # --- tree reuse --------------------------------------------------------------

    def advance(self, state: Any, move: Any, new_state: Any) -> None:
        """`move` was played in `state`: keep the subtree of `new_state`, if any."""
        if self.root_state is None:
            return
        if not self.reuse or self.root_state != state:
            self.reset()
            return
        child = tree.find_child(self.ni, int(self.meta[tree.ROOT]), self.adapter.encode_move(move))
        if child < 0:
            self.reset()
            return
        self.ni[child, tree.PARENT] = -1
        self.meta[tree.ROOT] = child
        self.root_state = new_state

    def reset(self) -> None:
        """Forget the tree."""
        self.root_state = None

    def free_garbage(self) -> None:
        """Nothing to free: the rows are reused (the interface of `Search`)."""

    def principal_variation(self, move: Any, length: int) -> list[Any]:
        """`move`, then the most visited child after it, and so on: at most `length` moves.

        Read from the tree the last search left (call it before `advance`); the
        line stops where the tree does (a node never expanded or never visited).
        """
        line = [move]
        if self.root_state is None:
            return line
        ni = self.ni
        node = tree.find_child(ni, int(self.meta[tree.ROOT]), self.adapter.encode_move(move))
        while node >= 0 and len(line) < length:
            first, count = int(ni[node, tree.FIRST]), int(ni[node, tree.NCH])
            if count == 0:
                break
            best = first + int(np.argmax(ni[first : first + count, tree.VIS]))
            if ni[best, tree.VIS] == 0:
                break
            line.append(self.adapter.decode_move(int(ni[best, tree.MOVE])))
            node = best
        return line

    @property
    def nodes(self) -> int:
        """Rows in use (the live tree and, until a compaction, dead rows)."""
        return int(self.meta[tree.NEXT]) if self.root_state is not None else 0

    # --- search ------------------------------------------------------------------

    def _prepare(self, state: Any) -> int:
        """Make `state` the root; return the visits it already has."""
        if self.root_state is None or self.root_state != state:
            self.st[0, :] = self.adapter.encode_state(state)
            tree.init_root(self.adapter.gid, self.cfg, self.arrays)
            self.root_state = state
            return 0
        if self.meta[tree.ROOT] != 0 and self.meta[tree.NEXT] > self.capacity // 2:
            tree.compact(self.arrays)
        root = int(self.meta[tree.ROOT])
        if not self._proof_held(root):
            # A reused node proven by a leaf's exact judgement, a threat search or
            # an exact search of its parent has no child that carries the proof:
            # searching it again finds the move (a proof on the board is cheap to
            # find once more); keeping the mark would leave nothing to choose from.
            self.ni[root, tree.PROVEN] = 0
        return int(self.ni[root, tree.VIS])

    def search(
        self, state: Any, limit: SearchLimit, *, deadline: float | None = None
    ) -> SearchResult:
        """Search from `state` (not terminal) until `limit`; return the root statistics."""
        start = self.clock()
        if deadline is None:
            deadline = float("inf") if limit.time is None else start + limit.time
        cap = limit.iterations if limit.iterations is not None else 1 << 62
        reused = self._prepare(state)
        before = int(self.meta[tree.NEXT])
        kstate = new_rng(self.rng.getrandbits(63))
        if self.plan is not None:
            self.plan.seed(kstate)  # its randomness (connect four's leaf rollouts) follows too
        iterations = max_depth = 0
        root = int(self.meta[tree.ROOT])
        if self.root_threats is not None:
            answer = self.root_threats.apply(self, root, kstate, deadline)
            if answer is not None:
                return self._forced(answer, start, reused)
        if self.root_vct is not None and self.ni[root, tree.PROVEN] == 0:
            win = self.root_vct.apply(self, root, kstate, deadline)
            if win is not None:
                return self._forced((win, True), start, reused)
        stop = threading.Event()
        lanes: list[Future[tuple[int, int]]] = []
        shared = self.threads > 1 and deadline != float("inf") and iterations < cap
        proving = self.exact is not None and self.ni[root, tree.PROVEN] == 0
        bound = self.adapter.rules_bound
        if (shared or proving or bound) and self.ni[root, tree.NCH] == 0:  # one expands it
            iterations, max_depth = self.run_batch(kstate, 1)
        self._refused = self._bind_to_rules(root, state) if bound else frozenset()
        if shared:  # the other threads search the tree while this one runs the root's searches
            lanes = self._start_lanes(deadline, stop)
        try:
            if proving and self.exact is not None and self.ni[root, tree.NCH] > 0:
                self.exact.prove(self.st, self.ni, root, start, deadline, cap)
            plan = self.plan
            if plan is not None and iterations < cap:
                plan.prepare(self, kstate, start, deadline)
            verify_at = verify_until = float("inf")  # the favourite's question (timed searches)
            if self.exact is not None and deadline != float("inf"):
                now = self.clock()
                verify_at = now + exact.VERIFY_AFTER * (deadline - now)
                verify_until = now + (exact.VERIFY_AFTER + exact.VERIFY_SHARE) * (deadline - now)
            while iterations < cap:
                now = self.clock()
                if now >= deadline:
                    break
                if now >= verify_at and self.exact is not None:
                    while self.exact.verify(self.st, self.ni, root, verify_until):
                        pass  # the next favourite, while the time lasts
                    verify_at = float("inf")
                    if self.ni[root, tree.PROVEN] != 0:
                        break
                    continue
                batch = min(self._batch, cap - iterations)
                done, depth = self.run_batch(kstate, batch, shared=shared)
                iterations += done
                max_depth = max(max_depth, depth)
                if done < batch:  # the root is proven
                    break
                self._batch = next_batch(batch, self.clock() - now)
        finally:
            stop.set()
            counted = [iterations]
            for lane in lanes:
                done, depth = lane.result()
                counted.append(done)
                iterations += done
                max_depth = max(max_depth, depth)
            self.thread_iterations = tuple(counted)
        elapsed = self.clock() - start
        return SearchResult(
            iterations=iterations,
            elapsed=elapsed,
            max_depth=max_depth,
            new_nodes=int(self.meta[tree.NEXT]) - before,
            root_visits=int(self.ni[root, tree.VIS]),
            reused_visits=reused,
            stats=self._stats(root),
            untried=self._untried(root),
            root_proven=_PROOF.get(self._root_value(root)),
        )

    def _bind_to_rules(self, root: int, state: Any) -> frozenset[int]:
        """Mark lost the root's children whose moves the rules refuse (`Adapter.rules_bound`:
        Go's positional superko, which the kernel does not know); their rows."""
        first, count = int(self.ni[root, tree.FIRST]), int(self.ni[root, tree.NCH])
        if count <= 0:
            return frozenset()
        encode = self.adapter.encode_move
        allowed = {encode(move) for move in self.game.legal_moves(state)}
        refused = frozenset(
            j for j in range(first, first + count) if int(self.ni[j, tree.MOVE]) not in allowed
        )
        for j in refused:
            self.ni[j, tree.PROVEN] = PROVEN_LOSS
        return refused

    def _forced(self, answer: tuple[int, bool], start: float, reused: int) -> SearchResult:
        """The result of a move the root threat search decided (a proven win or the one block)."""
        move, win = answer
        proof = 1.0 if win else None
        return SearchResult(
            iterations=0,
            elapsed=self.clock() - start,
            max_depth=0,
            new_nodes=0,
            root_visits=int(self.ni[self.meta[tree.ROOT], tree.VIS]),
            reused_visits=reused,
            stats=(MoveStat(self.adapter.decode_move(move), 1, 1.0 if win else 0.5, proof),),
            untried=(),
            root_proven=proof,
        )

    def run_batch(
        self,
        kstate: np.ndarray,
        batch: int,
        *,
        shared: bool = False,
        scratch: tuple[np.ndarray, np.ndarray] | None = None,
        priors: tree.Prior | None = None,
    ) -> tuple[int, int]:
        """One batch of simulations (`tree.run`): (done, max depth).

        Leaves are rolled out, or judged by the kernel's evaluator
        (`kernels.leaf`) when the plan evaluates them, with the plan's UCB1
        constant. `shared`: other threads search the tree at the same time;
        a thread other than the search's own passes its own evaluator
        `scratch` (counts, rows: `_start_lanes`) and its own prior buffers
        (`priors`).
        """
        plan = self.plan
        if plan is not None and plan.evaluated:
            counts, rows = (plan.stats, plan.buf) if scratch is None else scratch
            c, leaf, alpha = plan.c, tree.Leaf(plan.params, counts, rows), plan.minimax
        else:
            c, leaf, alpha = self.c, ROLLOUTS, 0.0
        done, depth = tree.run(
            self.adapter.gid, self.cfg, self.arrays, kstate,
            batch, c, self.policy, self.solver, leaf, shared, alpha, self.rave,
            self.priors if priors is None else priors,
        )  # fmt: skip
        return int(done), int(depth)

    def _start_lanes(self, deadline: float, stop: threading.Event) -> list[Future[tuple[int, int]]]:
        """Start `threads` - 1 more threads searching the tree until `deadline` or `stop`."""
        if self._lanes is None:
            self._lanes = ThreadPoolExecutor(self.threads - 1, "mcts-lane")
        lanes = []
        for _ in range(self.threads - 1):
            kstate = new_rng(self.rng.getrandbits(63))
            scratch = None if self.plan is None else self.plan.fork(kstate)
            priors = tree.Prior.buffers() if self.prior else tree.Prior.none()
            lanes.append(self._lanes.submit(self._lane, kstate, scratch, priors, deadline, stop))
        return lanes

    def _lane(
        self,
        kstate: np.ndarray,
        scratch: tuple[np.ndarray, np.ndarray] | None,
        priors: tree.Prior,
        deadline: float,
        stop: threading.Event,
    ) -> tuple[int, int]:
        """One more thread's share of a search: batches until `deadline`, `stop` or a proof."""
        root = int(self.meta[tree.ROOT])
        batch, iterations, max_depth = 16, 0, 0
        while not stop.is_set() and self.ni[root, tree.PROVEN] == 0:
            now = self.clock()
            if now >= deadline:
                break
            done, depth = self.run_batch(kstate, batch, shared=True, scratch=scratch, priors=priors)
            iterations += done
            max_depth = max(max_depth, depth)
            batch = next_batch(batch, self.clock() - now)
        return iterations, max_depth

    def close(self) -> None:
        """Stop the threads of `threads` (the tree stays)."""
        if self._lanes is not None:
            self._lanes.shutdown(wait=True)
            self._lanes = None

    def _root_value(self, root: int) -> int:
        """The root's proof for the seat to move there (0: unproven)."""
        p = int(self.ni[root, tree.PROVEN])
        if p == 0 or p == PROVEN_DRAW:
            return p
        return PROVEN_LOSS if p == PROVEN_WIN else PROVEN_WIN

    def _proof_held(self, root: int) -> bool:
        """Whether the root's proof (if any) is carried by its children's marks:
        a child that wins (or draws) for the seat to move, or every child lost."""
        value = self._root_value(root)
        if value == 0:
            return True
        first, count = int(self.ni[root, tree.FIRST]), int(self.ni[root, tree.NCH])
        marks = self.ni[first : first + count, tree.PROVEN]
        if value == PROVEN_LOSS:
            return count > 0 and bool(np.all(marks == PROVEN_LOSS))
        return bool(np.any(marks == value))

    def _stats(self, root: int) -> tuple[MoveStat, ...]:
        """The root's children as searched: their visits and values without the prior's
        virtual ones, which guide the search but are no evidence (a pass given 20 virtual
        losses must not become the most visited move of a short search)."""
        first, count = int(self.ni[root, tree.FIRST]), int(self.ni[root, tree.NCH])
        virtual, virtual_wins = self._root_prior(root, first, count)
        stats = []
        for j in range(first, first + count):
            if j in self._refused:  # a move the rules refuse is no move (`_bind_to_rules`)
                continue
            proven = _PROOF.get(int(self.ni[j, tree.PROVEN]))
            visits = max(int(self.ni[j, tree.VIS]) - int(virtual[j - first]), 0)
            wins = min(max(float(self.wsum[j]) - float(virtual_wins[j - first]), 0.0), visits)
            value = wins if proven is None else proven * visits
            stats.append(
                MoveStat(
                    self.adapter.decode_move(int(self.ni[j, tree.MOVE])), visits, value, proven
                )
            )
        return tuple(stats)

    def _root_prior(self, root: int, first: int, count: int) -> tuple[np.ndarray, np.ndarray]:
        """The virtual visits and wins the prior gave the root's children when the root was
        expanded (the prior is a function of the position and the moves alone, so asking
        again gives them back); zeros without a prior."""
        visits = np.zeros(max(count, 1), dtype=np.int32)
        wins = np.zeros(max(count, 1), dtype=np.float64)
        if self.prior and count > 0:
            moves = self.ni[first : first + count, tree.MOVE].astype(np.int64)
            tree.kernels.prior(
                self.adapter.gid, self.cfg, self.st[root], moves, count, visits, wins
            )
        return visits, wins

    def _untried(self, root: int) -> tuple[Any, ...]:
        if self.ni[root, tree.NCH] > 0:
            return ()
        return tuple(self.game.legal_moves(self.root_state))
