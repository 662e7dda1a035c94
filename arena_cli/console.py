"""The rich console of the commands that draw tables: the terminal's width, or no cut at all.

Why: rich draws at 80 columns when the output is not a terminal (CI logs, a
pipe to `less`, a file), so a table cut a player's name mid-word there. On a
terminal the console follows it (as `$COLUMNS` says, when set); elsewhere it
is as wide as the content needs.
"""

from __future__ import annotations

import os
import sys

from rich.console import Console

#: the width when the output is not a terminal: wide enough that nothing is cut
UNCUT = 4096


def make_console(*, stderr: bool = False) -> Console:
    """A console on stdout (or stderr) that never cuts a table when it is not a terminal."""
    stream = sys.stderr if stderr else sys.stdout
    terminal = stream.isatty() or bool(os.environ.get("COLUMNS"))
    return Console(stderr=stderr, width=None if terminal else UNCUT)
