"""Root parallelism: independent searches in worker processes, merged by move.

Why processes: the search is pure Python, so threads would share one GIL.
Each worker keeps its own `Search` (and so its own reused tree) for the whole
life of the agent; the agent mirrors every observed move to the workers as
soon as it sees it, so they advance and free their trees off the clock.
Workers are started with the ``spawn`` method: the client runtime has threads
(Trio's event loop), and forking a threaded process is unsafe.

Messages (parent -> worker, in order on one pipe):
``("advance", state, move, new_state)``, ``("free",)``, ``("reset",)``,
``("search", seq, state, limit, deadline)`` answered by ``("ok", seq,
SearchResult)`` or ``("error", seq, text)``; ``None`` stops the worker.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

import structlog

from games.base import Game
from player.agent import SearchLimit
from player.mcts.search import Search, SearchResult, release_frozen

log = structlog.get_logger("player.mcts")

#: workers stop this much before the agent's deadline, so their answers are in on time
WORKER_EARLY = 0.003
#: how long after the deadline a worker's answer is still awaited (seconds)
RESULT_GRACE = 0.005


def _worker_main(
    conn: Connection, game: Game[Any, Any], options: dict[str, Any], seed: int | str | None
) -> None:
    """Body of a worker process: serve messages until `None` or a closed pipe."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    search = Search(game, seed=seed, **options)
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        if message is None:
            return
        kind = message[0]
        if kind == "advance":
            search.advance(message[1], message[2], message[3])
        elif kind == "free":
            search.free_garbage()
        elif kind == "reset":
            search.reset()
            search.free_garbage()
            release_frozen()
        elif kind == "search":
            _, seq, state, limit, deadline = message
            try:
                result = search.search(state, limit, deadline=deadline)
            except Exception as exc:  # report it; the parent carries on without us
                conn.send(("error", seq, repr(exc)))
            else:
                conn.send(("ok", seq, result))


class _Worker:
    __slots__ = ("conn", "process")

    def __init__(self, conn: Connection, process: BaseProcess) -> None:
        self.conn = conn
        self.process = process


class WorkerPool:
    """`count` persistent worker processes, each searching with its own seed."""

    def __init__(
        self,
        game: Game[Any, Any],
        seeds: list[int | str | None],
        options: dict[str, Any],
    ) -> None:
        self.game = game
        context = multiprocessing.get_context("spawn")
        self._workers: list[_Worker] = []
        self._seq = 0
        try:
            for index, seed in enumerate(seeds):
                parent_end, child_end = context.Pipe()
                process = context.Process(
                    target=_worker_main,
                    args=(child_end, game, options, seed),
                    name=f"mcts-worker-{index + 1}",
                    daemon=True,
                )
                try:
                    process.start()
                except BaseException:
                    parent_end.close()
                    raise
                finally:
                    child_end.close()
                self._workers.append(_Worker(parent_end, process))
        except BaseException:
            self.close()
            raise

    def __len__(self) -> int:
        return len(self._workers)

    def _send(self, message: Any) -> None:
        for worker in list(self._workers):
            try:
                worker.conn.send(message)
            except (OSError, ValueError) as exc:
                self._drop(worker, f"send failed: {exc!r}")

    def _drop(self, worker: _Worker, reason: str) -> None:
        log.warning("mcts_worker_lost", worker=worker.process.name, reason=reason)
        self._workers.remove(worker)
        worker.conn.close()
        if worker.process.is_alive():
            worker.process.terminate()

    def advance(self, state: Any, move: Any, new_state: Any) -> None:
        """Mirror an observed move to every worker's tree."""
        self._send(("advance", state, move, new_state))

    def free_garbage(self) -> None:
        """Ask the workers to free their discarded trees now."""
        self._send(("free",))

    def reset(self) -> None:
        """Make every worker forget its tree."""
        self._send(("reset",))

    def submit(self, state: Any, limit: SearchLimit, deadline: float | None) -> int:
        """Start a search in every worker; `deadline` is on the `time.perf_counter` clock."""
        self._seq += 1
        early = None if deadline is None else deadline - WORKER_EARLY
        self._send(("search", self._seq, state, limit, early))
        return self._seq

    def collect(self, seq: int, deadline: float | None) -> list[SearchResult]:
        """The workers' answers to search `seq`.

        A worker that has not answered `RESULT_GRACE` seconds after the
        deadline is left out of this move (its late answer is skipped next
        time), so a busy or still-starting worker never makes the agent late;
        a worker whose pipe broke or whose search failed is dropped.
        """
        results = []
        for worker in list(self._workers):
            while True:
                wait = None if deadline is None else deadline + RESULT_GRACE - time.perf_counter()
                try:
                    if not worker.conn.poll(None if wait is None else max(wait, 0.0)):
                        log.info("mcts_worker_late", worker=worker.process.name)
                        break
                    kind, reply_seq, payload = worker.conn.recv()
                except (EOFError, OSError) as exc:
                    self._drop(worker, f"receive failed: {exc!r}")
                    break
                if reply_seq != seq:
                    continue  # a late answer to an earlier search
                if kind == "ok":
                    results.append(payload)
                else:
                    self._drop(worker, f"search failed: {payload}")
                break
        return results

    def close(self) -> None:
        """Stop the workers (politely, then by force)."""
        workers, self._workers = self._workers, []
        for worker in workers:
            with contextlib.suppress(OSError, ValueError):
                worker.conn.send(None)
        for worker in workers:
            worker.process.join(timeout=1.0)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join(timeout=1.0)
            worker.conn.close()
