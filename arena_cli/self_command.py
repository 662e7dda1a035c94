"""How to write an `arena` command that the user can paste into a fresh shell.

Why: `make demo` runs `.venv/bin/arena` without activating the virtualenv, so
a hint that says `arena matches ...` fails in the user's shell with "command
not found". A command we print names `arena` only when that name finds this
very program on $PATH; otherwise the script beside this interpreter (relative
to the current directory when it lies below it, as `.venv/bin/arena`), or,
without one, this interpreter running the module.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys

__all__ = ["arena_command"]


def _script() -> str | None:
    """The `arena` console script installed beside this interpreter, if there is one."""
    # not resolved: a virtualenv's python is a link to the system's, its scripts are not
    candidate = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), "arena")
    return candidate if os.path.isfile(candidate) and os.access(candidate, os.X_OK) else None


def arena_command() -> str:
    """``arena``, ``.venv/bin/arena``, ``/abs/path/bin/arena`` or ``/usr/bin/python3 -m ...``."""
    script = _script()
    found = shutil.which("arena")
    if found is not None and (
        script is None or os.path.realpath(found) == os.path.realpath(script)
    ):
        return "arena"
    if script is None:
        return f"{shlex.quote(sys.executable)} -m arena_cli.main"
    relative = os.path.relpath(script)
    shown = relative if not relative.startswith(os.pardir) else script
    return shlex.quote(shown)
