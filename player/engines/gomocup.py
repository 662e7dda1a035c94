"""The Gomocup "new protocol" (piskvork's; docs/ENGINES.md) for five-in-a-row boards."""

from __future__ import annotations

import re
import time
from typing import Any, ClassVar

import structlog

from games.base import Game
from player.engines.errors import (
    EngineIllegalMove,
    EngineProtocolError,
    EngineTimeout,
    quote,
)
from player.engines.mapping import BoardMapping, board_mapping
from player.engines.session import Answer, Session, Turn
from player.errors import NeedsRestart as NeedsRestart

log = structlog.get_logger("player.engines")

_MOVE = re.compile(r"\s*(\d+)\s*,\s*(\d+)\s*\Z")
_ABOUT = re.compile(r'(\w+)\s*=\s*"([^"]*)"')
#: MESSAGE/DEBUG lines one answer may carry
MAX_CHATTER = 1000


class GomocupSession(Session):
    """A Gomocup brain: START once, then TURN / BEGIN / BOARD for each move."""

    protocol: ClassVar[str] = "gomocup"
    quit_line: ClassVar[str | None] = "END"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.mapping: BoardMapping | None = None
        self.board: tuple[int, int] | None = None
        #: the moves the engine's board holds, from the empty board
        self.known: list[Any] | None = None
        self._timing: tuple[Any, ...] | None = None
        #: START was answered and no game has been played since: the next needs no RESTART
        self._pristine = False

    def handshake(self) -> None:
        return None  # a brain waits for START, which needs the board: see prepare, new_game

    def prepare(self, game: Game[Any, Any]) -> None:
        """``START`` (and ``ABOUT``, the ``init`` lines) before a match is sought, where the
        engine has no board yet: its start-up is then not paid on a move's clock."""
        mapping = board_mapping(game, "gomocup")
        if self.board is None:
            self._start((mapping.width, mapping.height))

    def _answer(self, deadline: float, what: str, started: float) -> str:
        """The engine's next line that is not MESSAGE/DEBUG chatter (logged)."""
        for _ in range(MAX_CHATTER):
            try:
                line = self.read(deadline)
            except EngineTimeout:
                raise self.timeout(what, started) from None
            head = line.split(None, 1)[0].upper() if line.strip() else ""
            if head in ("MESSAGE", "DEBUG"):
                log.debug("engine_says", engine=self.config.label, line=line[:200])
                continue
            if head in ("ERROR", "UNKNOWN"):
                raise EngineProtocolError(f"engine answered {what} with {quote(line)}")
            if head:
                return line.strip()
        raise EngineProtocolError(f"engine sent only MESSAGE/DEBUG lines after {what}")

    def new_game(self, game: Game[Any, Any], seat: int) -> None:
        mapping = board_mapping(game, "gomocup")
        board = (mapping.width, mapping.height)
        if self.board is not None and self.board != board:
            raise NeedsRestart(f"engine played a {self.board} board, now {board}")
        if not (self._pristine and self.board == board):
            self._start(board)
        self._pristine = False
        self.mapping, self.known, self._timing = mapping, [], None
        for key, value in (("max_memory", 0), ("game_type", 1), ("rule", 0)):
            self.process.send(f"INFO {key} {value}")

    def _start(self, board: tuple[int, int]) -> None:
        """``START`` (``RECTSTART``) on a fresh engine, ``RESTART`` on one that played."""
        started = time.monotonic()
        self.process.begin_answer()
        if self.board is None:
            if board[0] == board[1]:
                command = f"START {board[0]}"
            else:
                command = f"RECTSTART {board[0]},{board[1]}"
        else:
            command = "RESTART"
        self.process.send(command)
        try:
            answer = self._answer(self.startup_deadline(), quote(command), started)
        except EngineProtocolError as exc:
            if command == "RESTART":
                raise NeedsRestart(str(exc)) from None
            raise
        if answer.upper() != "OK":
            raise EngineProtocolError(f"engine answered {quote(command)} with {quote(answer)}")
        if self.board is None:
            self._about()
            for line in self.config.init:
                self.process.send(line)
            self._pristine = True
        self.board = board

    def _about(self) -> None:
        started = time.monotonic()
        self.process.begin_answer()
        self.process.send("ABOUT")
        line = self._answer(self.startup_deadline(), "ABOUT", started)
        self.about = dict(_ABOUT.findall(line))
        self.engine_name = self.about.get("name") or None

    def _time(self, turn: Turn) -> None:
        turn_ms = max(1, int(turn.movetime * 1000))
        match_ms = 0 if turn.clocks is None else int(max(turn.clocks[0]) * 1000)
        timing = (turn_ms, match_ms if self._timing is None else self._timing[1])
        if timing != self._timing:
            self.process.send(f"INFO timeout_turn {turn_ms}")
            self.process.send(f"INFO timeout_match {timing[1]}")
        self._timing = timing
        if turn.clocks is not None:
            left = max(0, int(turn.clocks[0][turn.seat] * 1000))
            self.process.send(f"INFO time_left {left}")

    def think(self, turn: Turn) -> Answer:
        mapping = self.mapping
        assert mapping is not None and self.known is not None, "new_game first"
        self._time(turn)
        moves = list(turn.moves)
        self.process.begin_answer()
        started = time.monotonic()
        if not moves and not self.known:
            self.process.send("BEGIN")
            what = "BEGIN"
        elif moves[:-1] == self.known:
            what = f"TURN {mapping.xy(moves[-1])}"
            self.process.send(what)
        else:
            self.process.send("BOARD")
            for move, mover in zip(moves, turn.movers, strict=True):
                field = 1 if mover == turn.seat else 2
                self.process.send(f"{mapping.xy(move)},{field}")
            self.process.send("DONE")
            what = "BOARD"
        line = self._answer(turn.give_up_at, what, started)
        think = time.monotonic() - started
        if not _MOVE.match(line):
            raise EngineProtocolError(f"engine answered {what} with {quote(line)}, not a move x,y")
        try:
            move = mapping.parse_xy(line)
        except ValueError as exc:
            raise EngineIllegalMove(f"engine answered {quote(line)}: {exc}") from None
        self.known = [*moves, move]
        return Answer(line, move, None, think, stopped=time.monotonic() > turn.stop_at)
