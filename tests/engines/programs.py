"""The engines the tests play: small C programs compiled here, Debian's gtp-rhino and GNU Go.

The C sources (tests/engines/*.c, examples/text_engine.c) share no code with
ours: they exercise the protocols as an outside author would speak them. They
are compiled once per test session with the system compiler. Without a
compiler, gtp-rhino or gnugo the tests that need them skip, unless
ARENA_REQUIRE_ENGINES=1 (set by .ci/run), where they fail instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {
    "misbehave": ROOT / "tests" / "engines" / "misbehave.c",
    "pattern_gomoku": ROOT / "tests" / "engines" / "pattern_gomoku.c",
    "gtp_mnk": ROOT / "tests" / "engines" / "gtp_mnk.c",
    "text_engine": ROOT / "examples" / "text_engine.c",
}
RHINO = "/usr/games/gtp-rhino"
GNUGO = "/usr/games/gnugo"


def _missing(what: str) -> None:
    if os.environ.get("ARENA_REQUIRE_ENGINES"):
        pytest.fail(f"{what} (ARENA_REQUIRE_ENGINES is set: run `make engines`)")
    pytest.skip(what)


@pytest.fixture(scope="session")
def engines(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Program name -> path of every test engine, compiled with `cc`."""
    compiler = shutil.which("cc")
    if compiler is None:
        _missing("no C compiler (cc) to build the test engines")
    assert compiler is not None
    folder = tmp_path_factory.mktemp("engines")
    built = {}
    for name, source in SOURCES.items():
        target = folder / name
        subprocess.run(
            [
                compiler,
                "-std=c99",
                "-O2",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-o",
                str(target),
                str(source),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )
        built[name] = str(target)
    return built


@pytest.fixture(scope="session")
def rhino() -> str:
    """The path of Debian's gtp-rhino (`make engines` installs it)."""
    found = shutil.which("gtp-rhino") or (RHINO if os.access(RHINO, os.X_OK) else None)
    if found is None:
        _missing("gtp-rhino is not installed (`make engines`: Debian's grhino)")
    assert found is not None
    return found


@pytest.fixture(scope="session")
def gnugo() -> str:
    """The path of Debian's GNU Go (`make engines` installs it)."""
    found = shutil.which("gnugo") or (GNUGO if os.access(GNUGO, os.X_OK) else None)
    if found is None:
        _missing("gnugo is not installed (`make engines`: Debian's gnugo)")
    assert found is not None
    return found
