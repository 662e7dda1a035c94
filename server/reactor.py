"""Idle connections read by one task: a move is arbitrated without waking its connection's task.

Why: Trio wakes one task per readable socket and re-arms a one-shot epoll
registration before every wait. At 100 concurrent matches that scheduling was
a fifth of what a move cost the server's event loop, more than arbitrating
the move itself. Here every idle plain-socket connection sits in one
level-triggered epoll set of our own (registered once per wait, not per
event); one task waits on that set, reads every socket that is ready and
hands each message straight to the server's `handle`, in the same task step.

The contract with a connection's task (`Reactor.next_message`): the task
*parks* when nothing is left in its frame buffer and it would wait for the
next message; from then on the reactor alone reads that socket. It keeps
every message `handle` answers at once (the server: a move in turn, and any
request that needs no waiting) and hands the first one it does not (and a
protocol error, or the end of the stream) back to the task, leaving the
socket first. Order is kept: bytes after that message stay in the
connection's `FrameReader`, where the task reads them before it parks again.
Cancelling the task (closing the connection) leaves the set too.

Fairness: a ready socket is read once per round (at most one read's worth
of frames, `MAX_INLINE` of them handled inline); what else is waiting is
read in the next round, after every other task has run.

TLS connections and non-POSIX systems are never parked: they read as before.
"""

from __future__ import annotations

import contextlib
import os
import select
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import outcome
import structlog
import trio

from protocol.codec import ConnectionClosed

if TYPE_CHECKING:
    from protocol.messages import ClientMessage
    from server.connection import Connection

log = structlog.get_logger("arena.server")

#: frames one connection may have handled inline per round; the rest go to its own task
MAX_INLINE = 16


class _Parked:
    __slots__ = ("conn", "fd", "task")

    def __init__(self, conn: Connection, fd: int, task: trio.lowlevel.Task) -> None:
        self.conn = conn
        self.fd = fd
        self.task = task


class Reactor:
    """Reads parked connections; `handle(conn, message)` takes a message inline or returns False."""

    def __init__(self, handle: Callable[[Connection, ClientMessage], bool]) -> None:
        self._handle = handle
        self._epoll: select.epoll | None = None  # while running (none without epoll)
        self._parked: dict[int, _Parked] = {}

    @property
    def parked(self) -> int:
        """How many connections wait in the reactor now."""
        return len(self._parked)

    def can_park(self, conn: Connection) -> bool:
        """Whether `conn`'s next message may be read here (a plain socket, nothing buffered)."""
        return (
            self._epoll is not None
            and conn.reader.socket is not None
            and conn.reader.buffered == 0
            and not conn.closed
        )

    async def next_message(self, conn: Connection) -> ClientMessage:
        """Park `conn` until it sends a message the reactor does not handle itself.

        Raises what `Connection.receive` raises (ProtocolError, ConnectionClosed), and
        what handling one of its moves raised (a bug: its session reports it).
        """
        socket = conn.reader.socket
        assert self._epoll is not None and socket is not None
        fd = socket.fileno()
        self._epoll.register(fd, select.EPOLLIN)
        self._parked[fd] = _Parked(conn, fd, trio.lowlevel.current_task())

        def abort(_: Any) -> trio.lowlevel.Abort:
            self._leave(fd)
            return trio.lowlevel.Abort.SUCCEEDED

        message: ClientMessage = await trio.lowlevel.wait_task_rescheduled(abort)
        return message

    async def run(self, *, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        """Serve parked connections until cancelled (then nothing parks any more)."""
        if not hasattr(select, "epoll"):  # every connection reads in its own task
            task_status.started()
            await trio.sleep_forever()
        self._epoll = epoll = select.epoll()
        task_status.started()
        try:
            while True:
                await trio.lowlevel.wait_readable(epoll.fileno())
                for fd, _ in epoll.poll(0):
                    parked = self._parked.get(fd)
                    # a connection closed by someone else: its task is being cancelled
                    if parked is not None and not parked.conn.closed:
                        self._serve(parked)
        finally:
            for parked in list(self._parked.values()):
                self._hand_back(parked, outcome.Error(ConnectionClosed("the server is stopping")))
            trio.lowlevel.notify_closing(epoll.fileno())
            epoll.close()
            self._epoll = None

    def _serve(self, parked: _Parked) -> None:
        conn = parked.conn
        reader = conn.reader
        try:
            data = os.read(parked.fd, reader.read_size())
        except BlockingIOError:
            return
        except OSError as exc:
            self._hand_back(parked, outcome.Error(ConnectionClosed(f"connection lost: {exc}")))
            return
        if not data:
            self._hand_back(parked, outcome.Error(reader.end_of_stream()))
            return
        try:
            body = reader.push(data)
            handled = 0
            while body is not None:
                conn.last_received = trio.current_time()
                message = conn.decoder.decode(body)
                if handled >= MAX_INLINE or not self._handle(conn, message):
                    self._hand_back(parked, outcome.Value(message))
                    return
                handled += 1
                if conn.closed:
                    return
                body = reader.buffered_frame()
        except Exception as exc:  # a protocol error, or a crash its own task reports
            if not self._hand_back(parked, outcome.Error(exc)):  # its task is gone: say it here
                log.error("session_crashed", conn=conn.id, error=repr(exc), exc_info=exc)

    def _hand_back(self, parked: _Parked, result: outcome.Outcome[Any]) -> bool:
        """Wake the task with `result`; False if it left already (cancelled meanwhile)."""
        if self._leave(parked.fd) is not parked:
            return False
        trio.lowlevel.reschedule(parked.task, result)
        return True

    def _leave(self, fd: int) -> _Parked | None:
        parked = self._parked.pop(fd, None)
        if parked is not None and self._epoll is not None:
            with contextlib.suppress(OSError, ValueError):  # closed: the kernel dropped it
                self._epoll.unregister(fd)
        return parked
