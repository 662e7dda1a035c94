"""The kernels' dispatch is generated from the games' specs, and the checked-in one is current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from player.errors import KernelSpecError
from player.mcts.fast import gen
from player.mcts.fast.core.spec import Kernel

ROOT = Path(__file__).resolve().parents[4]


def test_the_checked_in_dispatch_is_what_the_specs_make() -> None:
    """Fails when a spec changed (or kernels.py was edited) without regenerating."""
    kernels = gen.discover()
    gen.verify(kernels)
    assert gen.TARGET.read_text() == gen.render(kernels)
    done = subprocess.run(
        [sys.executable, "-m", "player.mcts.fast.gen", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")


def test_every_game_package_declares_its_kernels() -> None:
    packages = sorted(p.parent.name for p in gen.HERE.glob("*/__init__.py"))
    with_spec = sorted(p.parent.name for p in gen.HERE.glob("*/spec.py") if p.parent.name != "core")
    assert with_spec == [name for name in packages if name != "core"]
    assert [(k.name, k.gid) for k in gen.discover()] == [
        ("CONNECT4", 0), ("MNK", 1), ("REVERSI", 2), ("ULTIMATE", 3), ("BIGMNK", 4), ("GO", 5),
    ]  # fmt: skip


def test_check_fails_on_a_stale_file_and_a_run_rewrites_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    stale = tmp_path / "kernels.py"
    stale.write_text(gen.TARGET.read_text().replace("    if gid == REVERSI:\n", "", 1))
    monkeypatch.setattr(gen, "TARGET", stale)
    assert gen.main(["--check"]) == 1
    assert "out of date: run python -m player.mcts.fast.gen" in capsys.readouterr().err
    assert gen.main([]) == 0
    assert stale.read_text() == gen.render(gen.discover())
    assert gen.main(["--check"]) == 0


def test_a_new_kernel_gets_one_branch_per_function() -> None:
    extra = Kernel("HEX", 6, "player.mcts.fast.hex.kernel", leaf="player.mcts.fast.hex.leaf")
    text = gen.render([*gen.discover(), extra])
    compile(text, "kernels.py", "exec")  # valid Python
    assert "from player.mcts.fast.hex import kernel as hex_kernel" in text
    assert "HEX = 6" in text and "EVALUATORS = frozenset({CONNECT4, REVERSI, HEX})" in text
    for name in ("legal", "play", "to_move", "status", "rollout"):
        assert f"hex_kernel.{name}(" in text
    assert "hex_leaf.evaluate(cfg, st, params, counts, scratch)" in text


@pytest.mark.parametrize(
    ("kernels", "message"),
    [
        ([Kernel("A", 1, "m.a"), Kernel("B", 1, "m.b")], "kernels A and B share gid 1"),
        ([Kernel("A", 1, "m.a"), Kernel("A", 2, "m.b")], "kernels A and A share name A"),
        ([], "no game package declares a kernel"),
    ],
)
def test_clashing_specs_are_refused(kernels: list[Kernel], message: str) -> None:
    with pytest.raises(KernelSpecError, match=message):
        gen.check(kernels)


def test_a_spec_naming_a_missing_function_is_refused() -> None:
    with pytest.raises(KernelSpecError, match=r"mnk\.kernel defines no ordered"):
        gen.verify([Kernel("MNK", 1, "player.mcts.fast.mnk.kernel", ordered=True)])
    with pytest.raises(KernelSpecError, match="no_such"):
        gen.verify([Kernel("X", 9, "player.mcts.fast.no_such")])
    with pytest.raises(ValueError, match="not an UPPER_CASE constant"):
        Kernel("go", 5, "player.mcts.fast.go.kernel")
