"""The MCTS engine and agent: solver, search correctness, budgets, reuse, parallelism."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Sequence
from typing import Any, ClassVar

import pytest
from structlog.testing import capture_logs

from games import Game, Outcome, Termination, make_game
from games.base import decode_int_move
from player.agent import SearchLimit, play_local_game
from player.mcts import MCTSAgent, MoveStat, Search, best_move, merge_stats
from player.spec import make_agent


def position(game: Game[Any, Any], *moves: str) -> Any:
    state = game.initial_state()
    for text in moves:
        state = game.play(state, game.parse_move(text))
    return state


def started(spec: str, game: Game[Any, Any], seat: int) -> MCTSAgent:
    agent = make_agent(spec)
    assert isinstance(agent, MCTSAgent)
    agent.start(game, seat)
    return agent


# --- solver and search correctness on tic-tac-toe --------------------------------


def test_solver_plays_a_win_in_one_with_a_tiny_budget() -> None:
    game = make_game("tictactoe")
    # X: a1 b1, O: a2 b2; X to move wins with c1 (and must, O threatens c2).
    state = position(game, "a1", "a2", "b1", "b2")
    agent = started("mcts:time=none,iterations=30,seed=1", game, 0)
    assert game.format_move(agent.choose(state, SearchLimit(iterations=30))) == "c1"
    report = agent.last_report
    assert report is not None and report.root_proven == 1.0
    assert report.iterations <= 30


def test_solver_finds_a_fork_win_in_two() -> None:
    game = make_game("tictactoe")
    # X: a2 b1, O: b2 c2; only a1 wins by force (double threat on a3 and c1).
    state = position(game, "a2", "b2", "b1", "c2")
    for seed in range(5):
        agent = started(f"mcts:time=none,iterations=400,seed={seed}", game, 0)
        move = agent.choose(state, SearchLimit(iterations=400))
        assert game.format_move(move) == "a1"
        assert agent.last_report is not None and agent.last_report.root_proven == 1.0


def test_without_solver_the_fork_is_still_found() -> None:
    game = make_game("tictactoe")
    state = position(game, "a2", "b2", "b1", "c2")
    agent = started("mcts:time=none,iterations=3000,solver=false,seed=2", game, 0)
    assert game.format_move(agent.choose(state, SearchLimit(iterations=3000))) == "a1"
    assert agent.last_report is not None and agent.last_report.root_proven is None


def test_blocks_an_immediate_threat() -> None:
    game = make_game("tictactoe")
    # X: a1 b1 threatens c1; O (b2) must block.
    state = position(game, "a1", "b2", "b1")
    for seed in range(5):
        agent = started(f"mcts:time=none,iterations=300,seed={seed}", game, 1)
        assert game.format_move(agent.choose(state, SearchLimit(iterations=300))) == "c1"


def test_proven_loss_is_avoided_when_an_alternative_exists() -> None:
    stats = [MoveStat("a", 90, 0.0, 0.0), MoveStat("b", 10, 4.0, None)]
    assert best_move(stats, (), random.Random(0)) == "b"
    # all expanded moves lose: prefer an unexpanded one
    assert best_move([MoveStat("a", 9, 0.0, 0.0)], ("z",), random.Random(0)) == "z"
    # robust child, ties broken by value; a proven win beats more visits
    stats = [MoveStat("a", 10, 2.0), MoveStat("b", 10, 7.0), MoveStat("c", 3, 3.0, 1.0)]
    assert best_move(stats, (), random.Random(0)) == "c"
    assert best_move(stats[:2], (), random.Random(0)) == "b"


def test_solver_proves_draws() -> None:
    game = make_game("tictactoe")
    # After X takes a corner, the game is a draw (every O reply but the centre loses).
    search = Search(game, seed=3)
    result = search.search(position(game, "a1"), SearchLimit(iterations=50_000))
    assert result.root_proven == 0.5
    assert result.iterations < 50_000  # it stopped once the root was proven
    values = {game.format_move(stat.move): stat.proven for stat in result.stats}
    assert values["b2"] == 0.5
    assert all(value is not None and value <= 0.5 for value in values.values())
    assert sum(value == 0.0 for value in values.values()) >= 1


@pytest.mark.slow
def test_never_loses_to_perfect_minimax() -> None:
    game = make_game("tictactoe")
    for index in range(20):
        mcts = make_agent(f"mcts:time=0.2,seed={index}")
        minimax = make_agent(f"minimax:depth=9,seed={index}")
        seat = index % 2
        agents = [mcts, minimax] if seat == 0 else [minimax, mcts]
        record = play_local_game(game, agents, SearchLimit(time=0.2))
        assert record.outcome.scores[seat] >= 0.5, [game.format_move(m) for m in record.moves]
        mcts.close()


# --- connect four ----------------------------------------------------------------


def _score_against_random(spec: str, games: int) -> float:
    pytest.importorskip("games.connect4")
    game = make_game("connect4")
    score = 0.0
    for index in range(games):
        mcts = make_agent(f"{spec},seed={index}")
        rand = make_agent(f"random:seed={1000 + index}")
        seat = index % 2
        agents = [mcts, rand] if seat == 0 else [rand, mcts]
        record = play_local_game(game, agents)
        score += record.outcome.scores[seat]
        mcts.close()
    return score / games


@pytest.mark.slow
def test_connect4_beats_random_at_a_tenth_of_a_second() -> None:
    assert _score_against_random("mcts:time=0.1", 20) >= 0.95


def test_connect4_beats_random_quick() -> None:
    assert _score_against_random("mcts:time=none,iterations=400", 4) == 1.0


# --- budgets -----------------------------------------------------------------------


def test_time_budget_is_kept_with_the_real_clock() -> None:
    game = make_game("gomoku")  # long rollouts: the hardest case for the clock checks
    agent = started("mcts:time=0.05,seed=4", game, 0)
    rng = random.Random(4)
    states: list[Any] = []
    state = game.initial_state()
    while len(states) < 50:
        states.append(state)
        state = game.apply(state, rng.choice(game.legal_moves(state)))
    worst = 0.0
    for state in states:
        # the search's own CPU time: a search descheduled by a busy machine (a benchmark
        # beside the suite) is not a search that overran, and must not fail this test
        begin = time.thread_time()
        agent.choose(state, SearchLimit(time=0.05))
        worst = max(worst, time.thread_time() - begin)
    # 52 ms is usual; page faults of a growing tree on a loaded machine add a few ms of
    # system time. A search that ignored its deadline would take far longer.
    assert worst <= 0.05 + 0.025, f"a 0.05 s search took {worst * 1000:.1f} ms of CPU"


class FakeClock:
    """Advances by `step` seconds at every reading."""

    def __init__(self, step: float) -> None:
        self.now = 0.0
        self.step = step
        self.readings = 0

    def __call__(self) -> float:
        self.readings += 1
        self.now += self.step
        return self.now


def test_time_budget_with_an_injected_clock() -> None:
    game = make_game("connect4")
    clock = FakeClock(step=0.001)
    search = Search(game, seed=1, clock=clock)
    result = search.search(game.initial_state(), SearchLimit(time=0.010))
    # 0.010 s of fake time at 1 ms per reading: the first ~10 readings decide.
    assert 5 <= result.iterations <= 12
    assert result.elapsed == pytest.approx(clock.now - clock.step)  # first to last reading
    assert clock.readings <= 14


def test_clock_is_read_less_often_as_the_rate_is_measured() -> None:
    game = make_game("connect4")
    clock = FakeClock(step=1e-6)  # 1 µs per reading: the loop seems very fast
    search = Search(game, seed=1, clock=clock)
    result = search.search(game.initial_state(), SearchLimit(time=0.5, iterations=5000))
    assert result.iterations == 5000
    assert clock.readings < 100  # not once per iteration


def test_iteration_cap_and_determinism() -> None:
    game = make_game("connect4")
    state = position(game, "d", "d", "c")
    moves = []
    for _ in range(2):
        agent = started("mcts:time=none,iterations=700,seed=11", game, 1)
        moves.append(agent.choose(state, SearchLimit(iterations=700)))
        report = agent.last_report
        assert report is not None and report.iterations == 700
        assert sum(s.visits for s in report.stats) == 700
        moves.append(report.stats)
    assert moves[0] == moves[2] and moves[1] == moves[3]


def test_single_legal_move_is_returned_at_once() -> None:
    game = make_game("tictactoe")
    state = position(game, "a1", "b2", "c3", "a2", "c1", "b1", "b3", "a3")  # one empty cell
    agent = started("mcts:time=5,seed=1", game, 0)
    begin = time.perf_counter()
    with capture_logs() as logs:
        move = agent.choose(state, SearchLimit(time=5.0))
    assert time.perf_counter() - begin < 0.5
    assert game.format_move(move) == "c2"
    assert agent.last_report is not None and agent.last_report.iterations == 0
    assert agent.move_info() is None  # no search: nothing to say about it
    assert logs == [
        {
            "event": "mcts_move",
            "log_level": "info",
            "agent": agent.name,
            "move": "c2",
            "forced": True,
        }
    ]


def test_one_log_line_per_move_with_statistics() -> None:
    game = make_game("connect4")
    agent = started("mcts:time=none,iterations=300,seed=1,engine=python", game, 0)
    with capture_logs() as logs:
        agent.choose(game.initial_state(), SearchLimit(iterations=300))
    assert len(logs) == 1
    line = logs[0]
    assert line["event"] == "mcts_move" and line["iterations"] == 300
    assert line["iterations_per_s"] > 0 and line["max_depth"] >= 2
    assert line["new_nodes"] == 300 and line["tree_size"] == 300
    top = line["top"]
    assert 1 <= len(top) <= 5
    assert top[0]["move"] == line["move"]
    assert top[0]["visits"] >= top[-1]["visits"]
    assert all(0.0 <= entry["win_rate"] <= 1.0 for entry in top)


def test_rollout_cap_counts_as_a_draw() -> None:
    game = make_game("gomoku")
    search = Search(game, seed=1, max_moves=1)
    result = search.search(game.initial_state(), SearchLimit(iterations=200))
    # After one random move nobody has five: every rollout is scored as a draw.
    assert all(stat.value_sum == 0.5 * stat.visits for stat in result.stats)


# --- tree reuse ---------------------------------------------------------------------


def test_tree_reuse_keeps_statistics() -> None:
    game = make_game("connect4")
    agent = started("mcts:time=none,iterations=3000,seed=5,engine=python", game, 0)
    state = game.initial_state()
    mine = agent.choose(state, SearchLimit(iterations=3000))
    tree = agent.search_tree
    assert isinstance(tree, Search) and tree.root is not None
    after_mine = tree.root.child(mine)
    assert after_mine is not None
    reply = max(after_mine.children, key=lambda node: node.n)
    kept_visits = reply.n
    assert kept_visits > 10

    state1 = game.apply(state, mine)
    agent.observe(state, mine, state1)
    state2 = game.apply(state1, reply.move)
    agent.observe(state1, reply.move, state2)
    assert tree.root is reply and tree.root.n == kept_visits

    agent.choose(state2, SearchLimit(iterations=500))
    report = agent.last_report
    assert report is not None
    assert report.reused_visits == kept_visits
    assert report.root_visits == kept_visits + 500


def test_without_reuse_each_search_starts_afresh() -> None:
    game = make_game("connect4")
    agent = started("mcts:time=none,iterations=1000,reuse=false,seed=5", game, 0)
    state = game.initial_state()
    move = agent.choose(state, SearchLimit(iterations=1000))
    state1 = game.apply(state, move)
    agent.observe(state, move, state1)
    state2 = game.apply(state1, 3)
    agent.observe(state1, 3, state2)
    agent.choose(state2, SearchLimit(iterations=200))
    assert agent.last_report is not None
    assert agent.last_report.reused_visits == 0 and agent.last_report.root_visits == 200


def test_unexpected_state_drops_the_tree() -> None:
    game = make_game("connect4")
    search = Search(game, seed=1)
    state = game.initial_state()
    search.search(state, SearchLimit(iterations=100))
    other = position(game, "a", "b")
    search.advance(other, 2, game.apply(other, 2))  # not our root: forget it
    assert search.root is None
    result = search.search(state, SearchLimit(iterations=10))
    assert result.reused_visits == 0


# --- root parallelism ---------------------------------------------------------------


def test_workers_merge_root_statistics() -> None:
    """The Python engine's workers are processes with trees of their own, summed by move."""
    game = make_game("connect4")
    agent = started("mcts:time=none,iterations=400,workers=2,seed=9,engine=python", game, 0)
    try:
        state = game.initial_state()
        move = agent.choose(state, SearchLimit(iterations=400))
        assert move in game.legal_moves(state)
        report = agent.last_report
        assert report is not None
        assert report.searches == 2 and report.iterations == 800
        assert sum(stat.visits for stat in report.stats) == 800
        # the workers follow the game: their trees are reused too
        state1 = game.apply(state, move)
        agent.observe(state, move, state1)
        state2 = game.apply(state1, 0)
        agent.observe(state1, 0, state2)
        agent.choose(state2, SearchLimit(iterations=200))
        report = agent.last_report
        assert report is not None and report.searches == 2
        assert report.reused_visits > 0
    finally:
        agent.close()


def test_merge_stats_sums_by_move() -> None:
    search_a = Search(make_game("tictactoe"), seed=1)
    search_b = Search(make_game("tictactoe"), seed=2)
    state = make_game("tictactoe").initial_state()
    results = [s.search(state, SearchLimit(iterations=50)) for s in (search_a, search_b)]
    stats, untried = merge_stats(results)
    assert sum(stat.visits for stat in stats) == 100
    assert len({stat.move for stat in stats}) == len(stats)
    assert set(untried).isdisjoint(stat.move for stat in stats)


# --- generality: more than two seats, game points -------------------------------------


class RaceTo10(Game[tuple[int, int], int]):
    """Three seats take turns adding 1 or 2 to a total; whoever reaches 10 wins."""

    name: ClassVar[str] = "race10"
    num_players = 3
    seat_names: ClassVar[tuple[str, ...]] = ("A", "B", "C")

    def initial_state(self) -> tuple[int, int]:
        return (0, 0)

    def to_move(self, state: tuple[int, int]) -> int:
        return state[1] % 3

    def legal_moves(self, state: tuple[int, int]) -> Sequence[int]:
        return [] if state[0] >= 10 else [1, 2]

    def apply(self, state: tuple[int, int], move: int) -> tuple[int, int]:
        return (state[0] + move, state[1] + 1)

    def outcome(self, state: tuple[int, int]) -> Outcome | None:
        if state[0] < 10:
            return None
        return Outcome.win((state[1] - 1) % 3, 3, Termination.LINE)

    def parse_move(self, text: str) -> int:
        return int(text)

    def format_move(self, move: int) -> str:
        return str(move)

    def encode_state(self, state: tuple[int, int]) -> Any:
        return list(state)

    def decode_state(self, data: Any) -> tuple[int, int]:
        return (int(data[0]), int(data[1]))

    def decode_move(self, data: Any) -> int:
        return decode_int_move(data, 3)

    def render(self, state: tuple[int, int]) -> str:
        return str(state[0])


def test_three_seat_game_uses_plain_uct() -> None:
    game = RaceTo10()
    search = Search(game, seed=1)
    assert not search.solver
    # Total 8, A to move: adding 2 reaches 10 and wins at once.
    result = search.search((8, 3), SearchLimit(iterations=200))
    assert best_move(result.stats, result.untried, random.Random(0)) == 2
    # Total 7, A to move: +1 leaves 8 for B, who wins; +2 leaves 9, B takes 1 and wins too
    # unless B is forced... both lose, but each seat's values stay within [0, 1].
    result = search.search((7, 3), SearchLimit(iterations=300))
    assert all(0.0 <= stat.value <= 1.0 for stat in result.stats)


def test_three_seat_game_plays_to_the_end() -> None:
    game = RaceTo10()
    agents = [make_agent(f"mcts:time=none,iterations=100,seed={i}") for i in range(3)]
    record = play_local_game(game, agents)
    assert sorted(record.outcome.scores) == [0.0, 0.0, 1.0]


def test_uctv_rewards_follow_normalised_point_margins() -> None:
    search = Search(make_game("tictactoe"), metric="uctv")
    big = Outcome.win(0, 2, Termination.NO_MOVES, points=(10.0, -10.0))
    small = Outcome.win(1, 2, Termination.NO_MOVES, points=(-2.0, 2.0))
    assert search.rewards(big) == (1.0, 0.0)
    assert search.rewards(small) == pytest.approx((0.4, 0.6))
    no_points = Outcome.draw(2, Termination.BOARD_FULL)
    assert search.rewards(no_points) == (0.5, 0.5)


def test_uctv_agent_plays_reversi() -> None:
    pytest.importorskip("games.reversi")
    game = make_game("reversi")
    agents = [
        make_agent("mcts:time=none,iterations=60,metric=uctv,seed=1"),
        make_agent("random:seed=2"),
    ]
    record = play_local_game(game, agents, max_plies=200)
    assert record.outcome is not None


def test_choose_before_start_is_an_error() -> None:
    agent = make_agent("mcts")
    with pytest.raises(RuntimeError, match="start"):
        agent.choose((0, 0, 0, -1), SearchLimit(time=0.1))


def test_all_games_give_legal_moves() -> None:
    from games import available_games

    for name in available_games():
        game = make_game(name)
        agent = started("mcts:time=none,iterations=50,seed=1", game, 0)
        state = game.initial_state()
        for _ in itertools.repeat(None, 3):
            if game.is_terminal(state):
                break
            move = agent.choose(state, SearchLimit(iterations=50))
            assert move in game.legal_moves(state)
            new_state = game.apply(state, move)
            agent.observe(state, move, new_state)
            state = new_state


def test_unpicklable_game_falls_back_to_one_search() -> None:
    class LocalGame(RaceTo10):  # defined in a function: cannot be pickled for a worker
        pass

    game = LocalGame()
    with capture_logs() as logs:
        agent = started("mcts:time=none,iterations=50,workers=2,seed=1", game, 0)
        move = agent.choose((0, 0), SearchLimit(iterations=50))
    assert move in (1, 2)
    assert any(line["event"] == "mcts_workers_unavailable" for line in logs)
    assert agent.last_report is not None and agent.last_report.searches == 1
    agent.close()


def test_a_late_worker_is_skipped_and_its_answer_discarded() -> None:
    from player.mcts.parallel import RESULT_GRACE, WorkerPool

    game = make_game("connect4")
    options = {"c": 1.4, "metric": "uct", "max_moves": None, "solver": True, "reuse": True}
    pool = WorkerPool(game, [1], options)
    try:
        state = game.initial_state()
        ready = pool.submit(state, SearchLimit(iterations=10), None)
        assert [r.iterations for r in pool.collect(ready, None)] == [10]  # started
        # The worker searches for 0.3 s, but we only wait until 0.02 s from now.
        slow = pool.submit(state, SearchLimit(time=1.0), time.perf_counter() + 0.3)
        begin = time.perf_counter()
        assert pool.collect(slow, begin + 0.02) == []
        assert time.perf_counter() - begin < 0.02 + RESULT_GRACE + 0.05
        assert len(pool) == 1  # late is not dead
        # The next search gets its own answer, not the stale one.
        fresh = pool.submit(state, SearchLimit(iterations=7), None)
        assert [r.iterations for r in pool.collect(fresh, None)] == [7]
    finally:
        pool.close()
    assert len(pool) == 0


def test_the_agent_reports_its_evaluation_of_the_move_it_chose() -> None:
    game = make_game("connect4", {})
    agent = make_agent("mcts:iterations=2000,seed=3")
    agent.start(game, 0)
    state = game.initial_state()
    for column in (0, 6, 0, 6, 0, 6):  # X to move wins in column 0
        state = game.apply(state, column)
    move = agent.choose(state, SearchLimit(iterations=2000))
    evaluation = agent.evaluation()
    assert move == 0 and evaluation is not None and evaluation > 0.95
    agent.close()


@pytest.mark.parametrize("engine", ["python", "fast"])
def test_the_agent_reports_eval_visits_depth_and_pv_of_its_move(engine: str) -> None:
    game = make_game("connect4", {})
    agent = started(f"mcts:iterations=3000,seed=5,engine={engine}", game, 0)
    state = position(game, "4", "4", "3")
    move = agent.choose(state, SearchLimit(iterations=3000))
    info = agent.move_info()
    report = agent.last_report
    assert info is not None and report is not None
    assert info.eval == agent.evaluation() and info.eval is not None and 0.0 <= info.eval <= 1.0
    assert info.visits == report.iterations == 3000
    assert info.depth is not None and info.depth == report.max_depth and 2 <= info.depth <= 42
    # the principal line: the move first, then a few more, each legal after the one before
    assert info.pv[0] == game.format_move(move) and 3 <= len(info.pv) <= 8
    for text in info.pv:
        state = game.play(state, game.parse_move(text))
    agent.close()


def test_the_python_search_principal_variation_follows_the_most_visited_children() -> None:
    game = make_game("tictactoe")
    search = Search(game, seed=2)
    state = game.initial_state()
    result = search.search(state, SearchLimit(iterations=2000))
    move = max(result.stats, key=lambda s: s.visits).move
    line = search.principal_variation(move, 4)
    assert line[0] == move and len(line) == 4
    node = search.root
    for played in line:  # each step is the most visited child of the node before
        assert node is not None
        child = node.child(played)
        assert child is not None
        if node is not search.root:
            assert child.n == max(c.n for c in node.children)
        node = child
    assert search.principal_variation(move, 1) == [move]
