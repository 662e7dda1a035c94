"""The exact search of the compiled engine (option ``exact``): connect four's solver kernel,
the root proof it writes into the tree, and what it changes in play.

The kernel is checked against plain minimax (tests/benchmarks/minimax.py, no
shared code), its budget against an early answer, and the agent against
plain UCT on a position whose forced win random rollouts hide.
"""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Iterator

import numpy as np
import pytest

pytest.importorskip("numba")

from games import make_game
from games.connect4 import Connect4
from player.agent import SearchLimit
from player.mcts import MCTSAgent
from player.mcts.fast import kernels
from player.mcts.fast.adapters import adapter_for
from player.mcts.fast.connect4 import solve as connect4_solve
from player.mcts.fast.core import exact, tree
from player.mcts.fast.core.codes import PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN, UNSOLVED
from player.mcts.fast.core.engine import FastSearch
from player.mcts.options import SearchOptions
from player.spec import make_agent
from tests.benchmarks.minimax import even_positions, late_positions, value

#: after these moves (columns 1..7) X wins by columns 4 or 7 only; plain UCT with
#: win/block rollouts prefers 5 (seen at 0.2 s a move in the accuracy benchmark)
HIDDEN_WIN = "612346457375"


def replay(game: Connect4, moves: tuple[int, ...] | str) -> tuple[int, int, int, int]:
    state = game.initial_state()
    for move in moves:
        state = game.apply(state, int(move) - 1 if isinstance(move, str) else move)
    return state


def kernel_value(
    state: tuple[int, int, int, int],
    limit: int = 10**9,
    window: tuple[int, int] = (-1, 1),
    table: np.ndarray | None = None,
) -> int:
    game = Connect4()
    if table is None:
        table = connect4_solve.new_table(1 << 16)
    budget = np.array([0, limit], dtype=np.int64)
    cfg = adapter_for(game).cfg  # type: ignore[union-attr]
    st = np.array(state, dtype=np.int64)
    return int(kernels.solve(kernels.CONNECT4, cfg, st, table, budget, *window))


def test_null_windows_agree_with_the_exact_value_through_a_shared_table() -> None:
    """Each window's answer bounds the exact value as alpha-beta says, whatever the table
    already holds from other windows and from searches cut off by their budget."""
    game = Connect4()
    rng = random.Random(11)
    table = connect4_solve.new_table(1 << 16)
    checked = 0
    for moves in late_positions(seed=7, count=12, ply=29):
        state = replay(game, moves)
        family = [state] + [
            child
            for m in game.legal_moves(state)
            if not game.is_terminal(child := game.apply(state, m))
        ]
        truth = {s: value(game, s) for s in family}
        for _ in range(30):
            s = rng.choice(family)
            low, high = rng.choice([(-1, 0), (0, 1), (-1, 1)])
            v = kernel_value(s, rng.choice([5, 50, 10**9]), (low, high), table)
            if v == UNSOLVED:
                continue
            checked += 1
            if v <= low:
                assert truth[s] <= v, (s, low, high, v)
            elif v >= high:
                assert truth[s] >= v, (s, low, high, v)
            else:
                assert truth[s] == v, (s, low, high, v)
    assert checked > 100


def test_a_move_to_a_position_the_table_knows_lost_wins_at_the_first_node() -> None:
    """Enhanced transposition cutoff: before searching a node's moves, the table is asked of
    the positions they lead to, and one it knows lost for its side to move answers "is it
    won?" at once, where an empty table takes a search."""
    game = Connect4()
    cfg = adapter_for(game).cfg  # type: ignore[union-attr]
    found = 0
    for moves in late_positions(seed=5, count=60, ply=22):
        state = replay(game, moves)
        if any(game.apply(state, m)[3] == game.to_move(state) for m in game.legal_moves(state)):
            continue  # won at once: answered before any node
        budget = np.array([0, 10**9], dtype=np.int64)
        st = np.array(state, np.int64)
        cold = connect4_solve.new_table(1 << 16)
        kernels.solve(kernels.CONNECT4, cfg, st, cold, budget, 0, 1)
        if budget[0] <= 1:
            continue  # decided by a rule at its first node anyway
        for m in game.legal_moves(state):
            child = game.apply(state, m)
            if game.is_terminal(child):
                continue
            table = connect4_solve.new_table(1 << 16)
            if kernel_value(child, table=table) != -1:  # (checked against minimax above)
                continue
            key = child[1 - game.to_move(state)] + (child[0] | child[1]) + int(cfg[2])
            if connect4_solve._find(table, *connect4_solve._locate(table, key)) < 0:
                continue  # proven by a rule at its first node: nothing stored
            budget[:] = (0, 10**9)
            assert kernels.solve(kernels.CONNECT4, cfg, st, table, budget, 0, 1) == 1
            assert budget[0] == 1
            found += 1
            break
    assert found >= 5


def test_the_empty_board_is_searched_like_any_position() -> None:
    """The root's own questions search the empty board; its table key is not 'empty slot'."""
    game = Connect4()
    table = connect4_solve.new_table(1 << 16)
    start = game.initial_state()
    assert kernel_value(start, 2000, (0, 1), table) == UNSOLVED
    assert kernel_value(start, 2000, (-1, 0), table) == UNSOLVED
    search = FastSearch(game, adapter_for(game), seed=9)  # type: ignore[arg-type]
    result = search.search(start, SearchLimit(iterations=5000))
    assert result.root_proven is None and all(s.proven is None for s in result.stats)


def test_the_kernel_agrees_with_plain_minimax() -> None:
    game = Connect4()
    for moves in late_positions(seed=5, count=10, ply=31):
        state = replay(game, moves)
        assert kernel_value(state) == value(game, state), moves


def test_the_claimeven_rule_agrees_with_plain_minimax() -> None:
    """With every column's empties even, the second player's claimeven bounds the value
    (connect4_solve): the kernel's answers there, at the root and below, are minimax's."""
    game = Connect4()
    positions = even_positions(seed=3, count=40, ply=34)
    values = [value(game, state) for state in positions]
    at_once = not_won = 0
    for state, truth in zip(positions, values, strict=True):
        assert kernel_value(state) == truth, state
        v = kernel_value(state, limit=1)  # one node: a win at once, or the rule at the root
        if v != UNSOLVED:
            assert v == truth, state
            at_once += v == -1
        if kernel_value(state, limit=1, window=(0, 1)) == 0:  # "won?" no, by the rule alone
            not_won += 1
            assert truth <= 0, state
        for window in ((-1, 0), (0, 1)):
            v = kernel_value(state, window=window)
            assert (v <= window[0] and truth <= v) or (v >= window[1] and truth >= v), state
    assert at_once > 0 and not_won > 0  # the rule proved losses, and bounded draws


def test_a_tiny_table_never_answers_for_another_position() -> None:
    """Every bucket of the smallest table is shared by many positions; the bucket and the
    quotient it keeps still tell them apart."""
    game = Connect4()
    table = connect4_solve.new_table(1)
    assert table.shape[0] == 2 * connect4_solve.MIN_BUCKETS
    for moves in late_positions(seed=8, count=12, ply=30):
        state = replay(game, moves)
        assert kernel_value(state, table=table) == value(game, state), moves


@pytest.mark.parametrize("entries", [1, 5000, 1 << 18])
def test_the_table_keeps_every_key_apart(entries: int) -> None:
    """A table of a power of two of buckets, at most `entries` slots past the fewest; its
    (bucket, what a slot keeps) pairs never coincide for two keys, the largest boards' keys of
    62 bits and runs of neighbouring keys included, and what a slot keeps leaves room for the
    low bits in one non-negative word."""
    table = connect4_solve.new_table(entries)
    buckets = table.shape[0] // 2
    assert buckets & (buckets - 1) == 0 and buckets >= connect4_solve.MIN_BUCKETS
    assert table.shape[0] <= max(entries, 2 * connect4_solve.MIN_BUCKETS)
    rng = random.Random(entries)
    keys = {rng.getrandbits(rng.choice((20, 49, 62))) | 1 for _ in range(20_000)}
    keys |= set(range(1, 5000)) | {(1 << 62) - k for k in range(1, 5000)}
    seen = set()
    for key in keys:
        bucket, quotient = connect4_solve._locate(table, key)
        assert 0 <= bucket < table.shape[0] and bucket % 2 == 0
        assert 0 <= quotient < 1 << (63 - connect4_solve._LOW_BITS)
        seen.add((bucket, quotient))
    assert len(seen) == len(keys)


def test_a_costly_entry_outlives_the_cheap_ones_of_its_bucket() -> None:
    """A bucket's first slot keeps the entry whose search cost the most, the second the
    latest: a stream of cheap positions in the same bucket never evicts a costly proof."""
    table = connect4_solve.new_table(1)
    costly = 12_345
    bucket = connect4_solve._locate(table, costly)[0]
    others = (
        k for k in itertools.count(costly + 1) if connect4_solve._locate(table, k)[0] == bucket
    )
    same = list(itertools.islice(others, 49))  # keys of the same bucket, as many as 49

    def probe(key: int) -> tuple[int, int]:
        bucket, quotient = connect4_solve._locate(table, key)
        return bucket, connect4_solve._find(table, bucket, quotient)

    def store(key: int, packed: int, nodes: int) -> None:
        connect4_solve._put(table, *connect4_solve._locate(table, key), packed, nodes)

    assert probe(costly) == (bucket, -1)
    store(costly, 4, 1_000_000)  # bounds (0, 0): a draw
    for key in same:
        assert probe(key) == (bucket, -1)
        store(key, 8, 10)  # bounds (1, 1): a win
    assert probe(costly) == (bucket, 4)
    assert probe(same[-1]) == (bucket, 8)
    assert probe(same[0])[1] == -1  # an older cheap one
    store(same[0], 8, 1 << 40)  # costlier still
    assert probe(same[0]) == (bucket, 8)
    assert probe(costly) == (bucket, 4)  # moved to the second slot


def test_the_kernel_gives_up_past_its_budget() -> None:
    state = replay(Connect4(), "4")  # a loss for O, proven in millions of nodes
    assert kernel_value(state, limit=1000) == UNSOLVED


def test_finished_games_answer_from_their_status() -> None:
    game = Connect4()
    won = replay(game, "1212121")  # X's four in column 1; O to move has lost
    assert kernel_value(won) == -1


def test_solve_root_marks_the_children_and_the_root() -> None:
    game = Connect4()
    state = replay(game, HIDDEN_WIN)
    search = FastSearch(game, adapter_for(game), SearchOptions(exact=0.5), seed=1)  # type: ignore[arg-type]
    result = search.search(state, SearchLimit(iterations=2000))
    assert result.root_proven == 1.0
    wins = {s.move for s in result.stats if s.proven == 1.0}
    assert wins and wins <= {3, 6}
    assert search.exact is not None and search.exact.nodes > 0
    assert search.ni[0, tree.PROVEN] != 0


def test_the_root_is_marked_only_when_its_value_is_known() -> None:
    game = Connect4()
    state = replay(game, "4")
    search = FastSearch(game, adapter_for(game), SearchOptions(exact=0.5), seed=1)  # type: ignore[arg-type]
    result = search.search(state, SearchLimit(iterations=50))  # 1000 nodes: not enough
    assert result.root_proven is None
    assert all(s.proven != 1.0 for s in result.stats)


@pytest.mark.parametrize("seed", range(3))
def test_the_player_finds_a_win_that_plain_uct_misses(seed: int) -> None:
    game = Connect4()
    state = replay(game, HIDDEN_WIN)
    chosen = {}
    # plain UCT: no exact search, rollouts only (the learned evaluation finds this one too)
    for share, extra in ((0, ",connect4_eval=0"), (0.5, "")):
        spec = f"mcts:exact={share},seed={seed},time=none,iterations=3000{extra}"
        agent = make_agent(spec)
        assert isinstance(agent, MCTSAgent)
        agent.start(game, game.to_move(state))
        chosen[share] = agent.choose(state, SearchLimit(iterations=3000))
        agent.close()
    assert chosen[0.5] in {3, 6}
    assert chosen[0] not in {3, 6}


def test_a_timed_move_keeps_to_its_budget() -> None:
    game = Connect4()
    state = replay(game, "4")  # too early to solve: the search must give up in time
    search = FastSearch(game, adapter_for(game), SearchOptions(exact=0.9), seed=1)  # type: ignore[arg-type]
    result = search.search(state, SearchLimit(time=0.1))
    assert result.elapsed < 0.1 + 0.05
    assert result.iterations > 0  # Monte Carlo still had its share


def test_games_without_a_solver_get_plain_uct() -> None:
    for name in ("tictactoe", "reversi", "gomoku", "ultimate"):
        game = make_game(name)
        adapter = adapter_for(game)
        assert adapter is not None and not exact.supported(adapter.gid)
        assert FastSearch(game, adapter, SearchOptions(memory=4)).exact is None


def test_the_table_is_part_of_the_memory_cap() -> None:
    game = Connect4()
    adapter = adapter_for(game)
    assert adapter is not None
    with_table = FastSearch(game, adapter, SearchOptions(memory=64))
    without = FastSearch(game, adapter, SearchOptions(memory=64, exact=0))
    assert with_table.exact is not None and without.exact is None
    table = with_table.exact.table.nbytes
    assert table <= exact.table_bytes(64)
    rows = with_table.capacity * with_table.node_bytes
    assert rows + table <= 64 * 2**20
    assert without.capacity > with_table.capacity


def test_the_option_is_checked() -> None:
    with pytest.raises(ValueError, match="'exact'"):
        make_agent("mcts:exact=2")


def test_proven_marks_use_the_tree_codes() -> None:
    # the root's children carry the mover's proof: a win for the side that moved there
    game = Connect4()
    state = replay(game, HIDDEN_WIN)
    search = FastSearch(game, adapter_for(game), seed=3)  # type: ignore[arg-type]
    search.search(state, SearchLimit(iterations=2000))
    first, count = int(search.ni[0, tree.FIRST]), int(search.ni[0, tree.NCH])
    marks = {
        int(search.ni[j, tree.MOVE]): int(search.ni[j, tree.PROVEN])
        for j in range(first, first + count)
    }
    assert any(marks[m] == PROVEN_WIN for m in (3, 6))


def test_a_proven_draw_beats_a_more_visited_move_expected_to_lose() -> None:
    from player.mcts import MoveStat, best_move

    draw = MoveStat("draw", 3, 1.5, 0.5)
    losing = MoveStat("busy", 900, 90.0)  # mean 0.1: worse than the sure draw
    winning = MoveStat("good", 900, 810.0)  # mean 0.9: better, it stays the choice
    assert best_move([draw, losing], (), random.Random(0)) == "draw"
    assert best_move([draw, winning], (), random.Random(0)) == "good"


def test_a_root_proven_a_draw_plays_its_drawing_move() -> None:
    """The root's questions prove a draw from one drawing move, the others known only to do no
    better: the drawing move is played, however the Monte Carlo search rated the others."""
    from player.mcts import MoveStat, best_move

    draw = MoveStat("draw", 1, 0.5, 0.5)
    unknown = MoveStat("maybe", 50, 35.0)  # mean 0.7, but the root is only a draw
    assert best_move([draw, unknown], (), random.Random(0)) == "maybe"
    assert best_move([draw, unknown], (), random.Random(0), root_proven=0.5) == "draw"


#: a child's PROVEN mark for its mover, by the child's exact value for that mover
MARK_OF = {1: PROVEN_WIN, 0: PROVEN_DRAW, -1: PROVEN_LOSS}


def searched_roots(
    seed: int, ply: int, iterations: int, count: int = 40
) -> Iterator[tuple[tuple[int, ...], tuple[int, int, int, int], FastSearch, int]]:
    """(moves, state, search, root) for late positions whose root a plain search (no exact
    search, `iterations` simulations) expanded and left unproven."""
    game = Connect4()
    for moves in late_positions(seed=seed, count=count, ply=ply):
        state = replay(game, moves)
        search = FastSearch(game, adapter_for(game), SearchOptions(exact=0), seed=1)  # type: ignore[arg-type]
        search.search(state, SearchLimit(iterations=iterations))
        root = int(search.meta[tree.ROOT])
        if not search.ni[root, tree.PROVEN]:  # else proven by the simulations (a win at once)
            yield moves, state, search, root


def test_solve_root_proves_the_value_and_a_move_that_keeps_it() -> None:
    """Against each child's exact value (a fresh full-window search): the root's value is
    proven, a move that keeps it is marked, and every mark written into the tree is true."""
    game = Connect4()
    roots = set()
    for moves, state, search, root in searched_roots(seed=3, ply=16, iterations=1):
        table = connect4_solve.new_table(1 << 16)
        budget = np.zeros(tree.ROOT_BUDGET, dtype=np.int64)
        budget[1] = 10**10
        phase = np.zeros(64, dtype=np.int8)
        st, ni, cfg = search.st, search.ni, search.cfg
        assert tree.solve_root(kernels.CONNECT4, cfg, st, ni, table, budget, phase, root)
        first, count = int(ni[root, tree.FIRST]), int(ni[root, tree.NCH])
        values = {
            j: -kernel_value(game.apply(state, int(ni[j, tree.MOVE])))
            for j in range(first, first + count)
        }
        best = max(values.values())
        roots.add(best)
        assert int(ni[root, tree.PROVEN]) == MARK_OF[-best]  # the root's own mover: the other seat
        marked = {j: int(ni[j, tree.PROVEN]) for j in values if ni[j, tree.PROVEN]}
        assert all(mark == MARK_OF[values[j]] for j, mark in marked.items()), moves
        assert MARK_OF[best] in marked.values(), moves  # a move that keeps the value
    assert roots == {-1, 0, 1}


def test_verify_asks_the_favourite_and_marks_its_exact_value() -> None:
    """`RootSolver.verify` marks the most visited unproven child with its exact value,
    whichever that is (a loss, a draw or a win); asked again and again it marks every
    child in turn, most visited first, until the root's value follows."""
    game = Connect4()
    seen = set()
    for moves, state, search, root in searched_roots(seed=4, ply=26, iterations=300):
        solver = exact.RootSolver(kernels.CONNECT4, search.cfg, 0.5, 64, time.perf_counter)
        st, ni = search.st, search.ni
        first, count = int(ni[root, tree.FIRST]), int(ni[root, tree.NCH])
        values = {
            j: -kernel_value(game.apply(state, int(ni[j, tree.MOVE])))
            for j in range(first, first + count)
        }
        while ni[root, tree.PROVEN] == 0:
            unproven = [j for j in values if ni[j, tree.PROVEN] == 0]
            favourite = max(unproven, key=lambda j: int(ni[j, tree.VIS]))
            assert solver.verify(st, ni, root, time.perf_counter() + 60)
            assert int(ni[favourite, tree.PROVEN]) == MARK_OF[values[favourite]], moves
            seen.add(values[favourite])
        assert int(ni[root, tree.PROVEN]) == MARK_OF[-max(values.values())], moves
        assert not solver.verify(st, ni, root, time.perf_counter() + 60)  # nothing left to ask
    assert seen == {-1, 0, 1}
