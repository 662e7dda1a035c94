"""structlog configuration, done once per process.

Human-readable console lines on a terminal, JSON lines otherwise (containers,
pipes), both on stdout... except when stdout carries program output (the
human player's board), where `stream` can send logs to stderr.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import structlog

LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


class _CurrentStream:
    """Writes to whatever sys.stdout / sys.stderr is *now* (test capture swaps them).

    A log sink that fails (full disk, closed pipe, EPIPE) never takes the
    program down: the failure is reported once on standard error if that is
    possible, lines are dropped while it lasts, and a line saying how many
    were dropped is written when the sink works again.
    """

    def __init__(self, name: str) -> None:
        self.name = name
        self.dropped = 0
        self.reported = False

    def write(self, text: str) -> int:
        try:
            stream: TextIO = getattr(sys, self.name)
            if self.dropped:
                stream.write(
                    f"(log: {self.dropped} lines were dropped: the log could not be written)\n"
                )
                self.dropped = 0
            return stream.write(text)
        except (OSError, ValueError) as exc:
            self._failed(exc)
            return len(text)

    def flush(self) -> None:
        try:
            getattr(sys, self.name).flush()
        except (OSError, ValueError) as exc:
            self._failed(exc)

    def isatty(self) -> bool:
        try:
            return bool(getattr(sys, self.name).isatty())
        except (OSError, ValueError):
            return False

    def _failed(self, exc: BaseException) -> None:
        self.dropped += 1
        if self.reported:
            return
        self.reported = True
        FAILED_SINKS.append(self)
        with contextlib.suppress(OSError):  # stderr may be the broken sink itself
            os.write(
                2,
                f"arena: cannot write the log to {self.name} ({exc}); dropping log lines\n".encode(),
            )


#: sinks that have failed in this process (the CLI silences them before exiting)
FAILED_SINKS: list[_CurrentStream] = []

#: whether the last configure_logging chose JSON lines (for commands that print progress
#: themselves: with JSON logs the log's event is the message, not a second human line)
_JSON_LINES = [False]


def json_lines() -> bool:
    """Whether this process logs JSON lines (as configure_logging last decided)."""
    return _JSON_LINES[0]


def check_level(level: str | None) -> str:
    """The log level name to use (`level`, $ARENA_LOG_LEVEL or info); ValueError if unknown."""
    source = "--log-level" if level else "$ARENA_LOG_LEVEL"
    raw = level or os.environ.get("ARENA_LOG_LEVEL") or "info"
    name = raw.lower()
    if name not in LEVELS:
        raise ValueError(f"{source} {raw!r}: a log level must be one of {', '.join(LEVELS)}")
    return name


def configure_logging(
    level: str | None = None, *, json: bool | None = None, stream: TextIO | None = None
) -> None:
    """Configure structlog for this process.

    `level` defaults to $ARENA_LOG_LEVEL or "info"; `json` defaults to
    $ARENA_LOG_FORMAT == "json", else to "stdout is not a terminal".
    """
    out: Any = stream if stream is not None else sys.stdout
    if out is sys.stdout:
        out = _CurrentStream("stdout")
    elif out is sys.stderr:
        out = _CurrentStream("stderr")
    name = check_level(level)
    import structlog  # here, not at the top: commands that never log start faster

    if json is None:
        fmt = os.environ.get("ARENA_LOG_FORMAT", "").lower()
        json = fmt == "json" if fmt in {"json", "console"} else not out.isatty()
    processors: list[structlog.typing.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    _JSON_LINES[0] = json
    if json:
        processors += [structlog.processors.dict_tracebacks, structlog.processors.JSONRenderer()]
    else:
        processors += [structlog.dev.ConsoleRenderer(colors=out.isatty())]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(LEVELS[name]),
        logger_factory=structlog.PrintLoggerFactory(out),
        cache_logger_on_first_use=False,
    )
