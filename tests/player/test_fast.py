"""The compiled engine (player/mcts/fast) against the generic one, and its own guarantees.

The two engines draw random numbers differently (xorshift in the kernels,
`random.Random` in Python) and expand differently (all children at once vs
one per visit), so the same seed does not give the same tree. Where the
design allows they must agree: on proofs (won, drawn and lost positions),
on forced tactics, and each is deterministic for a seed and an iteration cap.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("numba")

from games import Game, make_game
from player.agent import SearchLimit, play_local_game
from player.mcts import MCTSAgent, Search
from player.mcts import fast as fast_package
from player.mcts.fast.adapters import adapter_for
from player.mcts.fast.core import exact, tree
from player.mcts.fast.core.engine import FastSearch, bytes_per_node
from player.mcts.options import SearchOptions
from player.spec import make_agent

ENGINES = ["python", "fast"]


def position(game: Game[Any, Any], *moves: str) -> Any:
    state = game.initial_state()
    for text in moves:
        state = game.play(state, game.parse_move(text))
    return state


def started(spec: str, game: Game[Any, Any], seat: int) -> MCTSAgent:
    agent = make_agent(spec)
    assert isinstance(agent, MCTSAgent)
    agent.start(game, seat)
    agent.sync(game.initial_state(), [])
    return agent


def fast_search(game: Game[Any, Any], seed: int, **options: Any) -> FastSearch:
    adapter = adapter_for(game)
    assert adapter is not None
    return FastSearch(game, adapter, SearchOptions(**options), seed=seed)


def test_auto_picks_the_compiled_engine_for_built_in_games_only() -> None:
    agent = started("mcts:iterations=10,seed=1", make_game("connect4"), 0)
    assert isinstance(agent.search_tree, FastSearch)
    for name in ("reversi", "ultimate", "tictactoe", "gomoku"):
        agent.start(make_game(name), 0)
        assert isinstance(agent.search_tree, FastSearch)
    for game in (
        make_game("connect4", {"k": 5}),
        make_game("gomoku", {"width": 19, "height": 19}),  # 361 cells: more than bigmnk holds
        make_game("reversi", {"size": 6}),
    ):
        agent.start(game, 0)
        assert isinstance(agent.search_tree, Search)
    python = started("mcts:iterations=10,engine=python", make_game("connect4"), 0)
    assert isinstance(python.search_tree, Search)


def test_without_numba_the_agent_falls_back_to_python(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast_package, "load", lambda: None)
    monkeypatch.setattr(fast_package, "warm_up", lambda: False)
    agent = started("mcts:iterations=50,seed=1,engine=fast", make_game("connect4"), 0)
    assert isinstance(agent.search_tree, Search)
    assert agent.choose(make_game("connect4").initial_state(), SearchLimit(iterations=50)) in range(
        7
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree_on_a_win_in_one(engine: str) -> None:
    game = make_game("tictactoe")
    state = position(game, "a1", "a2", "b1", "b2")
    agent = started(f"mcts:time=none,iterations=50,seed=1,engine={engine}", game, 0)
    assert game.format_move(agent.choose(state, SearchLimit(iterations=50))) == "c1"
    assert agent.last_report is not None and agent.last_report.root_proven == 1.0


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree_on_a_fork_and_a_block(engine: str) -> None:
    game = make_game("tictactoe")
    fork = position(game, "a2", "b2", "b1", "c2")
    threat = position(game, "a1", "b2", "b1")
    for seed in range(4):
        agent = started(f"mcts:time=none,iterations=2000,seed={seed},engine={engine}", game, 0)
        assert game.format_move(agent.choose(fork, SearchLimit(iterations=2000))) == "a1"
        agent.start(game, 1)
        assert game.format_move(agent.choose(threat, SearchLimit(iterations=2000))) == "c1"


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree_on_proven_values(engine: str) -> None:
    game = make_game("tictactoe")
    state = position(game, "a1")  # a draw: only b2 holds for O
    agent = started(f"mcts:time=none,iterations=200000,seed=3,engine={engine}", game, 1)
    agent.choose(state, SearchLimit(iterations=200_000))
    report = agent.last_report
    assert report is not None and report.root_proven == 0.5
    assert report.iterations < 200_000
    values = {game.format_move(s.move): s.proven for s in report.stats}
    assert values["b2"] == 0.5 and sum(v == 0.0 for v in values.values()) >= 1


@pytest.mark.parametrize("engine", ENGINES)
def test_engines_agree_a_connect4_win_is_taken(engine: str) -> None:
    game = make_game("connect4")
    state = position(game, "1", "7", "2", "7", "3")  # O must block column 4 ... X threatens
    state = game.play(state, game.parse_move("6"))  # O errs: X wins with 4
    agent = started(f"mcts:time=none,iterations=500,seed=2,engine={engine}", game, 0)
    assert game.format_move(agent.choose(state, SearchLimit(iterations=500))) == "4"
    assert agent.last_report is not None and agent.last_report.root_proven == 1.0


def test_fast_search_is_deterministic_for_a_seed() -> None:
    game = make_game("connect4")
    runs = [
        fast_search(game, seed=9).search(game.initial_state(), SearchLimit(iterations=5000))
        for _ in range(2)
    ]
    assert runs[0].stats == runs[1].stats and runs[0].iterations == 5000


def test_fast_tree_reuse_keeps_statistics() -> None:
    game = make_game("connect4")
    agent = started("mcts:time=none,iterations=20000,seed=5", game, 0)
    state = game.initial_state()
    mine = agent.choose(state, SearchLimit(iterations=20000))
    search = agent.search_tree
    assert isinstance(search, FastSearch)
    root = int(search.meta[tree.ROOT])
    child = tree.find_child(search.ni, root, mine)
    first, count = int(search.ni[child, tree.FIRST]), int(search.ni[child, tree.NCH])
    reply = max(range(first, first + count), key=lambda j: int(search.ni[j, tree.VIS]))
    kept = int(search.ni[reply, tree.VIS])
    assert kept > 10
    state1 = game.apply(state, mine)
    agent.observe(state, mine, state1)
    state2 = game.apply(state1, int(search.ni[reply, tree.MOVE]))
    agent.observe(state1, int(search.ni[reply, tree.MOVE]), state2)
    agent.choose(state2, SearchLimit(iterations=500))
    report = agent.last_report
    assert report is not None
    assert report.reused_visits == kept and report.root_visits == kept + 500


def test_compaction_keeps_the_subtree() -> None:
    game = make_game("connect4")
    search = fast_search(game, seed=4, memory=2)
    state = game.initial_state()
    search.search(state, SearchLimit(iterations=20_000))
    root = int(search.meta[tree.ROOT])
    child = tree.find_child(search.ni, root, 3)
    before = (int(search.ni[child, tree.VIS]), float(search.wsum[child]))
    nch = int(search.ni[child, tree.NCH])
    search.advance(state, 3, game.apply(state, 3))
    used = int(search.meta[tree.NEXT])
    tree.compact(search.arrays)
    assert int(search.meta[tree.ROOT]) == 0 and int(search.meta[tree.NEXT]) < used
    assert (int(search.ni[0, tree.VIS]), float(search.wsum[0])) == before
    assert int(search.ni[0, tree.NCH]) == nch and int(search.ni[0, tree.PARENT]) == -1
    # every row's parent lists it among its children
    for row in range(1, int(search.meta[tree.NEXT])):
        parent = int(search.ni[row, tree.PARENT])
        first = int(search.ni[parent, tree.FIRST])
        assert first <= row < first + int(search.ni[parent, tree.NCH])
    result = search.search(game.apply(state, 3), SearchLimit(iterations=1000))
    assert result.reused_visits == before[0] and result.root_visits == before[0] + 1000


def test_memory_cap_bounds_the_tree_and_the_search_goes_on() -> None:
    game = make_game("connect4")
    search = fast_search(game, seed=1, memory=1)
    # the exact search's table takes its share of the cap (player.mcts.fast.core.exact); the
    # evaluation's network is the process's, shared by every search (connect4_plan)
    assert search.plan is not None and search.plan.owned_bytes == 0
    assert search.capacity == (2**20 - exact.table_bytes(1)) // bytes_per_node(4)
    assert search.node_bytes == 72
    result = search.search(game.initial_state(), SearchLimit(iterations=200_000))
    assert result.iterations == 200_000
    assert search.nodes <= search.capacity and int(search.meta[tree.FULL]) > 0


def test_sync_after_a_reconnect_reuses_the_tree() -> None:
    game = make_game("connect4")
    agent = started("mcts:time=none,iterations=20000,seed=6", game, 0)
    state = game.initial_state()
    mine = agent.choose(state, SearchLimit(iterations=20000))
    # the connection drops; we miss our own move's update and the reply
    moves = [mine, 3]
    now = game.apply(game.apply(state, mine), 3)
    agent.start(game, 0)
    agent.sync(now, moves)
    assert agent.history == moves
    agent.choose(now, SearchLimit(iterations=100))
    report = agent.last_report
    assert report is not None and report.reused_visits > 0


def assert_consistent_tree(search: FastSearch) -> None:
    """Every expanded node's visits cover its children's, rewards lie within the visits, the
    child rows point back to their parent, and no row lies past the rows taken."""
    ni, wsum, used = search.ni, search.wsum, int(search.meta[tree.NEXT])
    assert used <= search.capacity
    root = int(search.meta[tree.ROOT])
    stack = [root]
    while stack:
        node = stack.pop()
        first, count = int(ni[node, tree.FIRST]), int(ni[node, tree.NCH])
        assert count >= 0  # no node left claimed
        assert -1e-9 <= wsum[node] <= ni[node, tree.VIS] + 1e-9
        if count == 0:
            continue
        assert first > node and first + count <= used
        children = range(first, first + count)
        assert all(int(ni[c, tree.PARENT]) == node for c in children)
        assert sum(int(ni[c, tree.VIS]) for c in children) <= int(ni[node, tree.VIS])
        stack.extend(children)


def test_a_new_root_starts_from_no_reward_whatever_its_memory_held() -> None:
    """The tree's rows are `np.empty`: a freed array's bytes, not zeros, once the allocator
    reuses memory. A new root's reward sum starts at 0 all the same (it once kept the bytes,
    -8.99e307 in a two-thread gomoku search)."""
    game = make_game("connect4")
    adapter = adapter_for(game)
    assert adapter is not None
    search = FastSearch(game, adapter, SearchOptions(memory=1), seed=3)
    search.wsum[:] = -8.99e307  # what a reused block may hold
    search.search(game.initial_state(), SearchLimit(iterations=200))
    assert_consistent_tree(search)


@pytest.mark.parametrize("name", ["ultimate", "connect4", "reversi", "gomoku"])
def test_two_threads_search_one_tree(name: str) -> None:
    """``workers=2`` on the compiled engine: two threads grow one tree (virtual loss, atomic
    counts, claimed expansions); both simulate, and the tree stays consistent."""
    game = make_game(name)
    agent = started("mcts:time=0.3,seed=7,workers=2", game, 0)
    try:
        search = agent.search_tree
        assert isinstance(search, FastSearch) and search.threads == 2
        state = game.initial_state()
        for _ in range(3):  # the tree is reused between moves
            move = agent.choose(state, SearchLimit(time=0.3))
            report = agent.last_report
            assert report is not None and report.searches == 1
            if report.iterations == 0:  # a move decided before any search (gomoku's threats)
                break
            assert len(search.thread_iterations) == 2 and min(search.thread_iterations) > 0
            assert sum(search.thread_iterations) == report.iterations
            root = int(search.meta[tree.ROOT])
            assert int(search.ni[root, tree.VIS]) == report.iterations + report.reused_visits
            assert_consistent_tree(search)
            new_state = game.apply(state, move)
            agent.observe(state, move, new_state)
            state = new_state
    finally:
        agent.close()


def test_two_threads_fill_a_small_tree_and_go_on() -> None:
    """Rows run out with two threads taking them at once: no row is handed out twice."""
    game = make_game("ultimate")
    adapter = adapter_for(game)
    assert adapter is not None
    search = FastSearch(game, adapter, SearchOptions(memory=1, workers=2), seed=3)
    try:
        result = search.search(game.initial_state(), SearchLimit(time=0.3))
        assert result.iterations > search.capacity
        assert int(search.meta[tree.FULL]) > 0
        assert_consistent_tree(search)
    finally:
        search.close()


def test_threads_only_for_timed_searches() -> None:
    """A search capped by iterations alone runs in one thread: a seed reproduces it."""
    game = make_game("connect4")
    moves = []
    for _ in range(2):
        agent = started("mcts:time=none,iterations=3000,seed=7,workers=2", game, 0)
        try:
            moves.append(agent.choose(game.initial_state(), SearchLimit(iterations=3000)))
            report = agent.last_report
            assert report is not None and report.iterations == 3000
            assert agent.search_tree.thread_iterations == (3000,)  # type: ignore[attr-defined]
            moves.append(report.stats)
        finally:
            agent.close()
    assert moves[0] == moves[2] and moves[1] == moves[3]


def test_two_threads_keep_the_exact_search() -> None:
    """With workers=2 the root's exact search (connect four's solver) still runs and decides."""
    game = make_game("connect4")
    agent = started("mcts:time=0.3,seed=3,workers=2", game, 0)
    try:
        # X to move wins by a double threat on the bottom row: d, then c or g
        state = position(game, "4", "4", "5", "5")
        move = agent.choose(state, SearchLimit(time=0.3))
        report = agent.last_report
        assert report is not None and report.root_proven == 1.0
        assert game.format_move(move) in {"3", "6"}
    finally:
        agent.close()


def test_fast_agent_plays_whole_games() -> None:
    for name in ("connect4", "tictactoe"):
        game = make_game(name)
        a = make_agent("mcts:time=none,iterations=300,seed=1")
        b = make_agent("mcts:time=none,iterations=300,seed=2,rollout=random")
        record = play_local_game(game, [a, b])
        assert record.outcome is not None


def test_python_engine_node_budget_bounds_its_tree() -> None:
    game = make_game("connect4")
    search = Search(game, seed=1, max_nodes=2000)
    result = search.search(game.initial_state(), SearchLimit(iterations=10_000))
    assert result.iterations == 10_000 and result.new_nodes <= 2001
    agent = make_agent("mcts:memory=1,engine=python")
    assert isinstance(agent, MCTSAgent) and agent.options["max_nodes"] == 2**20 // 512


def test_a_read_only_install_caches_under_a_digest_named_directory(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    import numba

    config: Any = numba.config
    monkeypatch.setattr(fast_package, "_writable", lambda directory: False)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(config, "CACHE_DIR", config.CACHE_DIR)
    fast_package._configure_cache()
    expected = tmp_path / fast_package._digest()[:16]
    assert str(expected) == config.CACHE_DIR


def test_an_explicit_cache_directory_wins_over_a_writable_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    # the Docker image compiles as root (a writable install) for the arena user's cache
    import numba

    config: Any = numba.config
    monkeypatch.setattr(fast_package, "_writable", lambda directory: True)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(config, "CACHE_DIR", config.CACHE_DIR)
    fast_package._configure_cache()
    assert str(tmp_path / fast_package._digest()[:16]) == config.CACHE_DIR


def test_importing_the_package_drops_a_stale_in_tree_cache(tmp_path: Any) -> None:
    """numba keys a cached function by its own file only: a kernel edited since the cache was
    written would still run in its old form inside the functions that call it. Importing the
    package (a test or a script importing a kernel module without `load()` included) drops
    the cache files when the sources changed, and keeps them when they did not."""
    package = tmp_path / "fastcopy"
    package.mkdir()
    shutil.copy(Path(fast_package.__file__), package / "__init__.py")
    (package / "kernel.py").write_text("X = 1\n")
    cache = package / "__pycache__"
    cache.mkdir()
    stale = [cache / "kernel.run-1.py311.nbi", cache / "kernel.run-1.py311.1.nbc"]
    for path in stale:
        path.write_bytes(b"old")
    (cache / "kernels.sha256").write_text("a digest of other sources")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    run = [sys.executable, "-c", "import fastcopy"]
    subprocess.run(run, cwd=tmp_path, env=env, check=True, timeout=60)
    assert not any(path.exists() for path in stale)
    kept = cache / "kernel.run-1.py311.nbi"  # written after the stamp, the sources unchanged
    kept.write_bytes(b"new")
    subprocess.run(run, cwd=tmp_path, env=env, check=True, timeout=60)
    assert kept.exists()
    (package / "kernel.py").write_text("X = 2\n")
    subprocess.run(run, cwd=tmp_path, env=env, check=True, timeout=60)
    assert not kept.exists()


WARM_UP_CHECK = """
import inspect, re
from player.mcts import fast
from player.mcts.fast.core import engine
from player.mcts.fast.core import tree
assert fast.warm_up()
called = set(re.findall(r"\\btree\\.([a-z_]+)\\(", inspect.getsource(engine)))
assert {"init_root", "run", "find_child", "compact"} <= called, called
print(" ".join(sorted(name for name in called if not getattr(tree, name).signatures)))
"""


WARM_UP_PLAY = """
import importlib, pkgutil
from numba.core.registry import CPUDispatcher
from games import make_game
from player.agent import SearchLimit
from player.mcts import fast
from player.mcts.fast.core import engine
from player.mcts.fast.adapters import adapter_for
from player.mcts.options import SearchOptions
assert fast.warm_up()
modules = [importlib.import_module(m.name) for m in pkgutil.walk_packages(fast.__path__, "player.mcts.fast.")]
def compiled():
    return {
        (module.__name__, name): len(value.signatures)
        for module in modules for name, value in vars(module).items()
        if isinstance(value, CPUDispatcher)
    }
before = compiled()
for name in ["connect4", "tictactoe", "reversi", "ultimate", "gomoku", "go"]:
    game = make_game(name)
    search = engine.FastSearch(game, adapter_for(game), SearchOptions(memory=64), seed=1)
    state = game.initial_state()
    for _ in range(4):  # timed searches: the exact search's verification runs only on a clock
        result = search.search(state, SearchLimit(time=0.05))
        move = max(result.stats, key=lambda s: s.visits).move
        after = game.apply(state, move)
        search.advance(state, move, after)
        state = after
now = compiled()
print(" ".join(sorted(f"{m}.{n}" for (m, n), k in now.items() if k != before.get((m, n)))))
"""


def test_timed_searches_compile_nothing_after_warm_up() -> None:
    """A fresh process, warmed up, then timed searches in every game (the paths only a clock
    takes, such as connect four's verification): no compiled function gains a signature."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", WARM_UP_PLAY], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [], f"compiled on a move's clock: {done.stdout}"


def test_warm_up_compiles_every_function_the_engine_calls() -> None:
    """Nothing may compile on a move's clock: in a fresh process, after warm_up, every
    compiled function the engine calls from Python (``tree.<name>(``) has a signature."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", WARM_UP_CHECK], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [], f"compiled on first use, not by warm_up: {done.stdout}"
