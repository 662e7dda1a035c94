"""Clean stops: Ctrl-C and SIGTERM end every command with one line and 130 / 143.

Why this shape: Trio turns SIGINT into a `KeyboardInterrupt` raised safely at
a checkpoint (it guards its own bookkeeping against the interrupt), and a
nursery may wrap it in an `ExceptionGroup` with the errors it caused. SIGTERM
reuses that path: its handler notes that it came and raises SIGINT, so a
command needs no signal code of its own and cannot be left half torn down.
`main` then recognises the interrupt anywhere in a group and prints one line.
Commands that must act on a signal themselves (`arena serve` tells its
clients) open a `trio.open_signal_receiver`, which takes precedence while open.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from types import FrameType

#: exit codes of a command stopped by SIGINT / SIGTERM (128 + signal number)
INTERRUPTED = 128 + signal.SIGINT
TERMINATED = 128 + signal.SIGTERM

_terminated = False


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    global _terminated
    _terminated = True
    signal.raise_signal(signal.SIGINT)


def install() -> Callable[[], None]:
    """Route SIGTERM through the SIGINT path (see the module docstring).

    Returns a function restoring the previous handlers. Outside the main
    thread (a test calling `main` from a worker) nothing is installed.
    """
    global _terminated
    _terminated = False
    if threading.current_thread() is not threading.main_thread():
        return lambda: None
    previous = signal.getsignal(signal.SIGTERM)
    if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        # a parent ignored SIGINT (`cmd &` in a script, so that Ctrl-C reaches only the
        # foreground job): obeyed, and SIGTERM keeps its default action (an immediate stop)
        return lambda: None
    signal.signal(signal.SIGTERM, _on_sigterm)

    def restore() -> None:
        signal.signal(signal.SIGTERM, previous)

    return restore


def note_terminated() -> None:
    """Record that the stop was a SIGTERM (for commands with their own signal receiver)."""
    global _terminated
    _terminated = True


def is_interrupt(exc: BaseException) -> bool:
    """True if `exc` is, or a group holding anywhere, a `KeyboardInterrupt`."""
    if isinstance(exc, KeyboardInterrupt):
        return True
    if isinstance(exc, BaseExceptionGroup):
        return any(is_interrupt(inner) for inner in exc.exceptions)
    return False


def is_broken_pipe(exc: BaseException) -> bool:
    """True if `exc` is a closed stdout's error, or a group made only of such errors.

    rich answers a `BrokenPipeError` with `SystemExit(1)` raised while handling it;
    inside a nursery (a running tournament) either arrives wrapped in a group.
    """
    if isinstance(exc, BaseExceptionGroup):
        return all(is_broken_pipe(inner) for inner in exc.exceptions)
    if isinstance(exc, SystemExit):
        return isinstance(exc.__context__, BrokenPipeError)
    return isinstance(exc, BrokenPipeError)


def stop_status() -> tuple[int, str]:
    """The exit code and the one line to print after an interrupt."""
    if _terminated:
        return TERMINATED, "terminated (SIGTERM)"
    return INTERRUPTED, "interrupted (Ctrl-C)"
