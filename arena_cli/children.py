"""Child processes the CLI starts (players, opponents): how a cancelled one is ended."""

from __future__ import annotations

import ctypes
import functools
import signal
import sys
from collections.abc import Awaitable, Callable

import trio

_PR_SET_PDEATHSIG = 1


async def _end(grace: float, process: trio.Process) -> None:
    process.terminate()
    with trio.move_on_after(grace):
        await process.wait()
        return
    process.kill()


def ender(grace: float) -> Callable[[trio.Process], Awaitable[None]]:
    """A `deliver_cancel` for `trio.run_process`: SIGTERM, then SIGKILL after `grace` seconds."""
    return functools.partial(_end, grace)


def die_with_parent() -> None:
    """A `preexec_fn`: the child is sent SIGTERM when the thread that started it dies
    (Linux; elsewhere nothing). Only for children started from the main thread: a
    worker thread's exit would end the child too early."""
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
