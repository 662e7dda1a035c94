"""Agent kinds as plug-ins: the ``arena.agents`` entry-point group, with a real distribution.

The plug-in is a real (if tiny) installed distribution: a package and its
``.dist-info`` (METADATA + entry_points.txt) in a directory on the path,
which is all `pip install --target` would leave there. The in-process tests
put it on `sys.path`; the end-to-end test runs ``arena play`` in a fresh
process with it on PYTHONPATH, against a real server.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import trio

from games import make_game
from player import spec
from player.agent import play_local_game
from player.spec import AgentInfo, agent_entry_points, available_agents, make_agent
from tests.arena_cli.test_play_run import server_thread
from tests.player.test_runtime import tcp_client

PLUGIN = '''
"""A third-party agent kind: always the last legal move."""
from player.agent import Agent
from player.spec import AgentOption, register_agent


class LastMove(Agent):
    def __init__(self, *, shout: bool = False) -> None:
        self.shout = shout
        self.synced = []

    def sync(self, state, moves):
        super().sync(state, moves)
        self.synced.append(list(moves))

    def choose(self, state, limit):
        return list(self.require_game().legal_moves(state))[-1]


LAST = register_agent(
    "lastmove",
    LastMove,
    {"shout": AgentOption("shout", bool, False, "say it loud")},
    description="the last legal move (a plug-in test)",
)
'''


def install_plugin(
    root: Path, *, entry: str = "arena_lastmove:LAST", name: str = "lastmove"
) -> Path:
    """Lay out an installed distribution `arena-lastmove` under `root`."""
    package = root / "arena_lastmove"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(textwrap.dedent(PLUGIN))
    info = root / "arena_lastmove-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: arena-lastmove\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[arena.agents]\n{name} = {entry}\n")
    (info / "RECORD").write_text("")
    return root


@pytest.fixture
def plugin_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = install_plugin(tmp_path / "site")
    monkeypatch.syspath_prepend(str(root))
    agent_entry_points(refresh=True)
    yield root
    spec._registry.pop("lastmove", None)
    sys.modules.pop("arena_lastmove", None)
    monkeypatch.undo()
    agent_entry_points(refresh=True)


def test_builtin_kinds_are_entry_points_of_this_project() -> None:
    eps = {ep.name: ep for ep in entry_points(group=spec.ENTRY_POINT_GROUP)}
    for name in ("mcts", "random", "greedy", "minimax", "human", "faulty"):
        assert name in eps, f"{name} is not an arena.agents entry point (run `make install`)"
        dist = eps[name].dist
        assert dist is not None and dist.name == "mcts-arena"
        assert isinstance(eps[name].load(), AgentInfo)


def test_building_a_baseline_does_not_import_the_search() -> None:
    code = (
        "import sys; from player.spec import make_agent; make_agent('random');"
        "print('numba' in sys.modules, 'player.mcts' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_a_plugin_kind_is_found_built_and_plays(plugin_path: Path) -> None:
    assert "lastmove" in available_agents()
    agent = make_agent("lastmove:shout=yes")
    assert agent.name == "lastmove:shout=yes" and vars(agent)["shout"] is True
    game = make_game("tictactoe")
    record = play_local_game(game, [agent, make_agent("random:seed=1")])
    assert record.moves[0] == 8  # the last legal move
    assert vars(agent)["synced"] == [[]]  # the history reached it at the start
    assert agent.history == list(record.moves)


def test_a_plugin_with_bad_options_names_them(plugin_path: Path) -> None:
    with pytest.raises(ValueError, match="valid options: shout=false"):
        make_agent("lastmove:loud=1")


def test_a_broken_plugin_is_reported_and_spares_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = install_plugin(tmp_path / "site", entry="arena_lastmove:NOT_THERE", name="broken")
    monkeypatch.syspath_prepend(str(root))
    agent_entry_points(refresh=True)
    try:
        assert "broken" not in available_agents() and "random" in available_agents()
        with pytest.raises(ValueError, match="agent plug-in 'broken' failed to load"):
            make_agent("broken")
    finally:
        spec._registry.pop("lastmove", None)
        sys.modules.pop("arena_lastmove", None)
        monkeypatch.undo()
        agent_entry_points(refresh=True)


def test_a_missing_optional_dependency_makes_a_kind_unavailable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "site"
    install_plugin(root, entry="arena_needs:KIND", name="needy")
    (root / "arena_needs.py").write_text("import no_such_dependency_here\n")
    monkeypatch.syspath_prepend(str(root))
    agent_entry_points(refresh=True)
    try:
        assert "needy" not in available_agents()
        with pytest.raises(ValueError, match="unknown agent 'needy'"):
            make_agent("needy")
    finally:
        monkeypatch.undo()
        agent_entry_points(refresh=True)


def test_arena_play_runs_a_plugin_agent_in_a_fresh_process(tmp_path: Path) -> None:
    root = install_plugin(tmp_path / "site")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.getcwd()]))
    arena = Path(sys.executable).parent / "arena"
    with server_thread() as port:
        rival = tcp_client(make_agent("random:seed=2"), port, "tictactoe", "rival", games=1)
        opponent = threading.Thread(target=trio.run, args=(rival.run,))
        opponent.start()
        done = subprocess.run(
            [str(arena), "play", "tictactoe", "lastmove", "--port", str(port), "--name", "plug"],
            capture_output=True,
            text=True,
            env=env,
            timeout=60,
        )
        opponent.join(30)
    assert done.returncode == 0, done.stderr
    assert "played 1 matches" in done.stdout or "played 1 match" in done.stdout
    assert len(rival.results) == 1 and rival.results[0].outcome is not None
