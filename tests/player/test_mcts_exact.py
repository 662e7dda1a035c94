"""The exact search of the compiled engine (option ``exact``): connect four's solver kernel,
the root proof it writes into the tree, and what it changes in play.

The kernel is checked against plain minimax (tests/benchmarks/minimax.py, no
shared code), its budget against an early answer, and the agent against
plain UCT on a position whose forced win random rollouts hide.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")

from games import make_game
from games.connect4 import Connect4
from player.agent import SearchLimit
from player.mcts import MCTSAgent
from player.mcts.fast import connect4_solve, exact, kernels, tree
from player.mcts.fast.adapters import adapter_for
from player.mcts.fast.codes import PROVEN_WIN, UNSOLVED
from player.mcts.fast.engine import FastSearch
from player.spec import make_agent
from tests.benchmarks.minimax import late_positions, value

#: after these moves (columns 1..7) X wins by columns 4 or 7 only; plain UCT with
#: win/block rollouts prefers 5 (seen at 0.2 s a move in the accuracy benchmark)
HIDDEN_WIN = "612346457375"


def replay(game: Connect4, moves: tuple[int, ...] | str) -> tuple[int, int, int, int]:
    state = game.initial_state()
    for move in moves:
        state = game.apply(state, int(move) - 1 if isinstance(move, str) else move)
    return state


def kernel_value(state: tuple[int, int, int, int], limit: int = 10**9) -> int:
    game = Connect4()
    keys, bounds = connect4_solve.new_table(1 << 16)
    budget = np.array([0, limit], dtype=np.int64)
    cfg = adapter_for(game).cfg  # type: ignore[union-attr]
    st = np.array(state, dtype=np.int64)
    return int(kernels.solve(kernels.CONNECT4, cfg, st, keys, bounds, budget))


def test_the_kernel_agrees_with_plain_minimax() -> None:
    game = Connect4()
    for moves in late_positions(seed=5, count=10, ply=31):
        state = replay(game, moves)
        assert kernel_value(state) == value(game, state), moves


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
    search = FastSearch(game, adapter_for(game), seed=1, exact_share=0.5)  # type: ignore[arg-type]
    result = search.search(state, SearchLimit(iterations=2000))
    assert result.root_proven == 1.0
    wins = {s.move for s in result.stats if s.proven == 1.0}
    assert wins and wins <= {3, 6}
    assert search.exact is not None and search.exact.nodes > 0
    assert search.ni[0, tree.PROVEN] != 0


def test_the_root_is_marked_only_when_its_value_is_known() -> None:
    game = Connect4()
    state = replay(game, "4")
    search = FastSearch(game, adapter_for(game), seed=1, exact_share=0.5)  # type: ignore[arg-type]
    result = search.search(state, SearchLimit(iterations=50))  # 1000 nodes: not enough
    assert result.root_proven is None
    assert all(s.proven != 1.0 for s in result.stats)


@pytest.mark.parametrize("seed", range(3))
def test_the_player_finds_a_win_that_plain_uct_misses(seed: int) -> None:
    game = Connect4()
    state = replay(game, HIDDEN_WIN)
    chosen = {}
    for share in (0, 0.5):
        agent = make_agent(f"mcts:exact={share},seed={seed},time=none,iterations=3000")
        assert isinstance(agent, MCTSAgent)
        agent.start(game, game.to_move(state))
        chosen[share] = agent.choose(state, SearchLimit(iterations=3000))
        agent.close()
    assert chosen[0.5] in {3, 6}
    assert chosen[0] not in {3, 6}


def test_a_timed_move_keeps_to_its_budget() -> None:
    game = Connect4()
    state = replay(game, "4")  # too early to solve: the search must give up in time
    search = FastSearch(game, adapter_for(game), seed=1, exact_share=0.9)  # type: ignore[arg-type]
    result = search.search(state, SearchLimit(time=0.1))
    assert result.elapsed < 0.1 + 0.05
    assert result.iterations > 0  # Monte Carlo still had its share


def test_games_without_a_solver_get_plain_uct() -> None:
    for name in ("tictactoe", "reversi", "gomoku", "ultimate"):
        game = make_game(name)
        adapter = adapter_for(game)
        assert adapter is not None and not exact.supported(adapter.gid)
        assert FastSearch(game, adapter, max_memory=4).exact is None


def test_the_table_is_part_of_the_memory_cap() -> None:
    game = Connect4()
    adapter = adapter_for(game)
    assert adapter is not None
    with_table = FastSearch(game, adapter, max_memory=64)
    without = FastSearch(game, adapter, max_memory=64, exact_share=0)
    assert with_table.exact is not None and without.exact is None
    table = with_table.exact.keys.nbytes + with_table.exact.bounds.nbytes
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
    import random

    from player.mcts import MoveStat, best_move

    draw = MoveStat("draw", 3, 1.5, 0.5)
    losing = MoveStat("busy", 900, 90.0)  # mean 0.1: worse than the sure draw
    winning = MoveStat("good", 900, 810.0)  # mean 0.9: better, it stays the choice
    assert best_move([draw, losing], (), random.Random(0)) == "draw"
    assert best_move([draw, winning], (), random.Random(0)) == "good"
