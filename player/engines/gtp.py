"""GTP version 2 (docs/ENGINES.md): Go and Othello programs, such as GNU Go and gtp-rhino."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, ClassVar

import structlog

from games.base import Game
from player.engines.errors import EngineIllegalMove, EngineProtocolError, EngineTimeout, quote
from player.engines.mapping import BoardMapping, board_mapping
from player.engines.session import Answer, Session, Turn

log = structlog.get_logger("player.engines")

COLOURS = ("black", "white")
#: lines one GTP answer may have (showboard of a 25x25 board is under 30)
MAX_ANSWER_LINES = 1000


class GtpSession(Session):
    """A GTP engine: `play` the opponent's moves, `genmove` ours."""

    protocol: ClassVar[str] = "gtp"
    quit_line: ClassVar[str | None] = "quit"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.commands: set[str] = set()
        self.mapping: BoardMapping | None = None
        #: the moves the engine's board holds, from the initial position
        self.known: list[Any] = []
        self._timing: tuple[Any, ...] | None = None

    def command(self, text: str, deadline: float | None = None) -> tuple[bool, str]:
        """Send `text`; (True, result) for ``=``, (False, message) for ``?``."""
        started = time.monotonic()
        deadline = self.startup_deadline() if deadline is None else deadline
        self.process.begin_answer()
        self.process.send(text)
        lines: list[str] = []
        while len(lines) < MAX_ANSWER_LINES:
            try:
                line = self.read(deadline)
            except EngineTimeout:
                raise self.timeout(quote(text), started) from None
            if not line.strip():
                if lines:
                    break
                continue  # blank lines before an answer
            if not lines and line[0] not in "=?":
                raise EngineProtocolError(
                    f"engine answered {quote(text)} with {quote(line)}, not '= …' or '? …'"
                )
            lines.append(line)
        else:
            raise EngineProtocolError(f"engine's answer to {quote(text)} never ended")
        first = lines[0]
        head = first[1:].lstrip("0123456789").strip()
        return first[0] == "=", "\n".join([head, *lines[1:]]).strip()

    def expect(self, text: str) -> str:
        """`command` that must succeed (EngineProtocolError quoting the engine's refusal)."""
        ok, result = self.command(text)
        if not ok:
            raise EngineProtocolError(f"engine refused {quote(text)}: {quote(result)}")
        return result

    def handshake(self) -> None:
        version = self.expect("protocol_version")
        if version != "2":
            log.info("gtp_version", engine=self.config.label, version=version)
        self.engine_name = self.expect("name") or None
        self.about["name"] = self.engine_name or ""
        ok, version = self.command("version")
        if ok and version:
            self.about["version"] = version
        ok, listed = self.command("list_commands")
        self.commands = set(listed.split()) if ok else set()
        for command in self.config.init:
            self.expect(command)

    def new_game(self, game: Game[Any, Any], seat: int) -> None:
        self.mapping = board_mapping(game, "gtp")
        self.expect(f"boardsize {self.mapping.width}")
        self._clear()
        if "komi" in self.commands:
            self.command(f"komi {self.mapping.komi:g}")
        self._timing = None

    def _clear(self) -> None:
        self.expect("clear_board")
        self.known = []

    def _time(self, turn: Turn) -> None:
        """Tell the engine its time: per move as byo-yomi of one stone, a clock as main time.

        ``kgs-time_settings`` where the engine lists it (it names the system,
        so an engine cannot mistake a per-move budget for absolute time), else
        ``time_settings``; nothing for an engine that lists neither.
        """
        kgs = "kgs-time_settings" in self.commands
        if not kgs and "time_settings" not in self.commands:
            return
        seconds = max(1, int(turn.movetime))
        if turn.clocks is None:
            timing: tuple[Any, ...] = ("move", seconds)
            if timing != self._timing:
                self.command(
                    f"kgs-time_settings byoyomi 0 {seconds} 1"
                    if kgs
                    else f"time_settings 0 {seconds} 1"
                )
        else:
            timing = ("clock",)
            if timing != self._timing:
                main = max(1, int(turn.clocks[0][turn.seat]))  # its own clock
                self.command(
                    f"kgs-time_settings absolute {main}" if kgs else f"time_settings {main} 0 0"
                )
            if "time_left" in self.commands:
                left = max(1, int(turn.clocks[0][turn.seat]))
                self.command(f"time_left {COLOURS[turn.seat]} {left} 0")
        self._timing = timing

    def sync(self, moves: Sequence[Any], movers: Sequence[int]) -> None:
        """Bring the engine's board to `moves` (played by `movers`): `play` what it lacks."""
        mapping = self.mapping
        assert mapping is not None, "new_game first"
        if self.known != list(moves[: len(self.known)]):
            self._clear()  # out of step (a reconnect): start the board again
        for index in range(len(self.known), len(moves)):
            move = moves[index]
            if mapping.sends_pass or mapping.pass_move is None or move != mapping.pass_move:
                colour = COLOURS[movers[index] % 2]
                self.expect(f"play {colour} {mapping.vertex(move)}")
            self.known.append(move)

    def final_score(
        self, moves: Sequence[Any], movers: Sequence[int], deadline: float | None = None
    ) -> str | None:
        """The engine's own count of the game (``W+12.0``) after `moves`, if it lists
        ``final_score`` and answers it (by `deadline`); None otherwise."""
        if "final_score" not in self.commands:
            return None
        self.sync(moves, movers)
        ok, text = self.command("final_score", deadline)
        return text.split()[0] if ok and text.split() else None

    def dead_stones(self) -> list[str] | None:
        """The vertices of the stones the engine itself counts as dead on its board
        (``final_status_list dead``), or None if it does not list the command."""
        if "final_status_list" not in self.commands:
            return None
        ok, text = self.command("final_status_list dead")
        return text.split() if ok else None

    def think(self, turn: Turn) -> Answer:
        mapping = self.mapping
        assert mapping is not None, "new_game first"
        self.sync(turn.moves, turn.movers)
        self._time(turn)
        started = time.monotonic()
        ok, text = self.command(f"genmove {COLOURS[turn.seat % 2]}", turn.give_up_at)
        think = time.monotonic() - started
        if not ok:
            raise EngineProtocolError(f"engine refused genmove: {quote(text)}")
        word = text.split()[0] if text.split() else ""
        if word.lower() == "resign":
            return Answer(word, None, None, think)
        try:
            move = mapping.parse_vertex(word)
        except ValueError as exc:
            raise EngineIllegalMove(f"engine answered {quote(word)}, not a move: {exc}") from None
        self.known.append(move)
        return Answer(word, move, None, think, stopped=time.monotonic() > turn.stop_at)
