"""The prior hook at expansion (`kernels.prior`, `tree.run`'s ``priors``), through a real dispatch.

No built-in kernel declares a prior yet (Go's is its own package's work), so
the test writes one: a generated dispatch (`gen.render`) with the m,n,k kernel
and a tiny prior (the centre gets 10 virtual visits and 7.5 wins), and runs
the tree on it in a subprocess (its own numba cache: the tree compiled against
this dispatch must not meet the real one's).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("numba")

from player.mcts.fast import gen
from player.mcts.fast.core.spec import Kernel

PRIOR = """
from numba import njit


@njit(cache=True, nogil=True)
def prior(cfg, st, moves, count, visits, wins):
    for k in range(count):
        if moves[k] == 4:
            visits[k] = 10
            wins[k] = 7.5
"""

SCRIPT = """
import json
import sys

import numpy as np

from player.mcts.fast.core import registry

registry.provide("tinyprior.kernels")
from player.mcts.fast.core import tree  # noqa: E402  (after the dispatch is named)
from player.mcts.fast.mnk import kernel as mnk  # noqa: E402

cfg = mnk.make_cfg(3, 3, 3, ())
out = {}
for asked in (True, False):
    t = tree.Tree.empty(256, mnk.STATE_SIZE)
    t.st[0, :] = (0, 0, 0, -1)
    tree.init_root(1, cfg, t)
    priors = tree.Prior.buffers() if asked else tree.Prior.none()
    rng = np.array([12345, 0], dtype=np.uint64)
    tree.run(1, cfg, t, rng, 1, 1.4, 0, True, tree.Leaf.rollouts(), False, 0.0, 0.0, priors)
    first, count = int(t.ni[0, tree.FIRST]), int(t.ni[0, tree.NCH])
    out[str(asked)] = [
        [int(t.ni[j, tree.MOVE]), int(t.ni[j, tree.VIS]), float(t.wsum[j])]
        for j in range(first, first + count)
    ]
print(json.dumps(out))
"""


@pytest.mark.slow
def test_prior_visits_and_wins_appear_in_the_root_childrens_stats(tmp_path: Path) -> None:
    package = tmp_path / "tinyprior"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "prior.py").write_text(PRIOR)
    kernel = Kernel("MNK", 1, "player.mcts.fast.mnk.kernel", amaf=True, prior="tinyprior.prior")
    (package / "kernels.py").write_text(gen.render([kernel]))
    root = Path(__file__).resolve().parents[4]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(root)]),
        "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
    }
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    with_prior = {move: (visits, wins) for move, visits, wins in result["True"]}
    without = {move: (visits, wins) for move, visits, wins in result["False"]}
    assert sorted(with_prior) == sorted(without) == list(range(9))
    # one simulation: the root is expanded and one child visited once (with rollout's result)
    visits, wins = with_prior[4]
    assert visits in (10, 11) and 7.5 <= wins <= 8.5
    assert all(v <= 1 for move, (v, _) in with_prior.items() if move != 4)
    assert all(v <= 1 for v, _ in without.values())
    assert sum(v for v, _ in with_prior.values()) == 11
