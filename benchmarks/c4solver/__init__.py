"""The exact connect four solver (`solver.c`), compiled on demand, driven over a pipe.

Why C and a subprocess: it is the reference that scores our player, so it
shares no code with the player's compiled search (numba), and a solved
opening position takes millions of nodes. It is built once with the system
compiler (``cc``, installed by ``make engines``) into a cache directory
keyed by the source's digest, then kept running: one line in (the moves,
column digits 1..7), one line out (W/D/L/- per column, for the side to move).
Standard 7x6 board only.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

SOURCE = Path(__file__).with_name("solver.c")
#: a move's value for the side to move, as the solver prints it
VALUES = {"W": 1, "D": 0, "L": -1}


class SolverError(RuntimeError):
    """The solver could not be built or answered something unexpected."""


def build(cache: Path | None = None) -> Path:
    """Compile `solver.c` (if not already) and return the program's path."""
    compiler = shutil.which("cc")
    if compiler is None:
        raise SolverError("no C compiler (cc) to build the connect four solver: make engines")
    digest = hashlib.sha256(SOURCE.read_bytes()).hexdigest()[:16]
    folder = cache or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    target = folder / "mcts-arena" / f"c4solver-{digest}"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(f".{os.getpid()}")
    command = [compiler, "-std=c99", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(partial)]
    result = subprocess.run(
        [*command, str(SOURCE)], capture_output=True, text=True, timeout=120, check=False
    )
    if result.returncode != 0:
        raise SolverError(f"cc failed on {SOURCE}: {result.stderr.strip()}")
    partial.replace(target)
    return target


class Solver:
    """A running solver: `values(moves)` is each column's value for the side to move.

    Use as a context manager (the process ends on exit). Moves are 0-based
    columns from the empty board.
    """

    def __init__(self, program: Path | None = None) -> None:
        self._process = subprocess.Popen(
            [str(program or build())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )

    def values(self, moves: Sequence[int]) -> list[int | None]:
        """Per column 0..6: 1 win, 0 draw, -1 loss for the side to move; None if full.

        Raises SolverError for a finished game or an illegal line.
        """
        process = self._process
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("".join(str(m + 1) for m in moves) + "\n")
        process.stdin.flush()
        answer = process.stdout.readline().strip()
        if len(answer) != 7:
            raise SolverError(f"the solver answered {answer!r} for moves {list(moves)!r}")
        return [VALUES.get(ch) for ch in answer]

    def close(self) -> None:
        """End the solver process."""
        if self._process.poll() is None:
            assert self._process.stdin is not None
            self._process.stdin.close()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()

    def __enter__(self) -> Solver:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()
