"""Child processes the CLI starts (players, opponents): how a cancelled one is ended."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable

import trio


async def _end(grace: float, process: trio.Process) -> None:
    process.terminate()
    with trio.move_on_after(grace):
        await process.wait()
        return
    process.kill()


def ender(grace: float) -> Callable[[trio.Process], Awaitable[None]]:
    """A `deliver_cancel` for `trio.run_process`: SIGTERM, then SIGKILL after `grace` seconds."""
    return functools.partial(_end, grace)
