"""A GTP engine as a referee of Go games between engines: which stones are dead.

Tromp–Taylor counts the board as it stands, so an engine that passes with a
dead group on the board gives points away. A server given a referee
(``arena serve --referee SPEC``) asks it, after a Go game between engines ends
by the count, which stones are dead (``final_status_list dead``, which GNU Go
answers with its own life-and-death reading), and takes them off before the
count, as people do when they mark dead stones (`server.marking`).

Why a fresh process per game: a referee is asked once a game, after it, in a
worker thread of the server; a fresh process holds no state from another game
or another thread, and a referee that crashes or hangs costs only that count.
The server (`server.match`) holds only the `DeadStonesReferee` interface
(server/config.py): the layers meet here, in the command that wires them.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from games.go import Go
from player.engines.agent import EngineAgent
from player.engines.config import EngineConfig
from player.engines.errors import EngineError, EngineProtocolError, quote
from player.engines.gtp import GtpSession
from player.engines.process import EngineProcess
from player.engines.session import movers_of
from player.spec import make_agent


class GtpReferee:
    """The dead stones of a finished Go game, as a GTP engine reads them."""

    def __init__(self, config: EngineConfig) -> None:
        if config.protocol != "gtp":
            raise ValueError(f"a referee speaks GTP: protocol=gtp, not {config.protocol}")
        self.config = config
        self.name = config.name or config.label

    @classmethod
    def from_spec(cls, spec: str) -> GtpReferee:
        """A referee from an engine spec (``engine:gnugo``); ValueError in one line."""
        agent = make_agent(spec)
        try:
            if not isinstance(agent, EngineAgent):
                raise ValueError(f"a referee is an engine (engine:…), not {spec!r}")
            return cls(agent.config)
        finally:
            agent.close()

    def dead_stones(self, game: Go, moves: Sequence[Any]) -> frozenset[int]:
        """(Blocking) the points of the stones the engine calls dead after `moves`
        (EngineError if it fails, cannot say, or names a point with no stone)."""
        config = self.config
        process = EngineProcess(config.argv, cwd=config.workdir, label=config.label)
        session = GtpSession(process, config, threading.Event())
        try:
            session.handshake()
            if "final_status_list" not in session.commands:
                raise EngineProtocolError("the referee does not list final_status_list")
            session.new_game(game, 0)
            movers, state = movers_of(game, moves)
            session.sync(moves, movers)
            words = session.dead_stones()
            if words is None:
                raise EngineProtocolError("the referee refused final_status_list dead")
            mapping = session.mapping
            assert mapping is not None
            dead: set[int] = set()
            for word in words:
                try:
                    point = int(mapping.parse_vertex(word))
                except ValueError:
                    raise EngineProtocolError(f"the referee named {quote(word)}") from None
                if point < 0 or not game.chain(state, point):
                    raise EngineProtocolError(f"the referee named {quote(word)}: no stone there")
                dead.add(point)
            return frozenset(dead)
        finally:
            process.close(session.quit_line)


__all__ = ["EngineError", "GtpReferee"]
