"""Our text protocol (docs/ENGINES.md): UCI's shape, every game, moves in the game's notation."""

from __future__ import annotations

import math
import time
from typing import Any, ClassVar

from games.base import Game, GameError
from player.agent import MoveInfo
from player.engines.errors import (
    EngineIllegalMove,
    EngineProtocolError,
    EngineTimeout,
    quote,
)
from player.engines.session import Answer, Session, Turn, clip_pv
from protocol.messages import MAX_DEPTH, MAX_VISITS

VERSION = 1
#: lines the engine may print before ``arenaok`` (banners, ids, options)
MAX_HANDSHAKE_LINES = 1000
_NUMBERS = {"depth", "seldepth", "visits", "nodes", "score", "time", "nps", "hashfull"}


def parse_info(words: list[str], into: dict[str, Any]) -> None:
    """Fold one ``info`` line's fields into `into` (later lines override earlier ones)."""
    index = 1
    while index < len(words):
        key = words[index]
        if key in ("pv", "string"):
            into[key] = words[index + 1 :]
            return
        if key not in _NUMBERS or index + 1 >= len(words):
            return  # an unknown key: its arity is unknown, so the rest is skipped
        try:
            number = float(words[index + 1])
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            into[key] = number
        index += 2


def move_info(fields: dict[str, Any]) -> MoveInfo | None:
    """The `MoveInfo` of the fields an engine reported (None if it reported nothing of use)."""
    score = fields.get("score")
    depth = fields.get("depth")
    visits = fields.get("visits", fields.get("nodes"))
    pv = clip_pv(fields.get("pv", ()))
    info = MoveInfo(
        eval=score if score is not None and 0.0 <= score <= 1.0 else None,
        depth=int(depth) if depth is not None and 0 <= depth <= MAX_DEPTH else None,
        visits=int(visits) if visits is not None and 0 <= visits <= MAX_VISITS else None,
        pv=pv,
    )
    return None if info == MoveInfo() else info


class TextSession(Session):
    """The arena text protocol, version 1."""

    protocol: ClassVar[str] = "text"
    quit_line: ClassVar[str | None] = "quit"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.options: list[str] = []

    def handshake(self) -> None:
        started = time.monotonic()
        deadline = self.startup_deadline()
        self.process.begin_answer()
        self.process.send(f"arena {VERSION}")
        for _ in range(MAX_HANDSHAKE_LINES):
            try:
                line = self.read(deadline)
            except EngineTimeout:
                raise self.timeout(f"'arena {VERSION}' (no arenaok)", started) from None
            words = line.split()
            if words == ["arenaok"]:
                break
            if len(words) >= 3 and words[0] == "id":
                value = line.split(None, 2)[2].strip()
                self.about[words[1]] = value
                if words[1] == "name":
                    self.engine_name = value
            elif words[:1] == ["option"]:
                self.options.append(line.strip())
        else:
            raise EngineProtocolError(
                f"no arenaok in the engine's first {MAX_HANDSHAKE_LINES} lines"
            )
        for command in self.config.init:
            self.process.send(command)
        self._ready(started)

    def _ready(self, started: float) -> None:
        deadline = self.startup_deadline()
        self.process.begin_answer()
        self.process.send("isready")
        while True:
            try:
                line = self.read(deadline)
            except EngineTimeout:
                raise self.timeout("isready (no readyok)", started) from None
            words = line.split()
            if words == ["readyok"]:
                return
            if words and words[0] != "info":
                raise EngineProtocolError(f"engine said {quote(line)} where readyok was expected")

    def new_game(self, game: Game[Any, Any], seat: int) -> None:
        options = ",".join(f"{key}={value}" for key, value in game.options.items())
        self.process.send(f"newgame {game.name} {options}".rstrip())
        self._ready(time.monotonic())

    def think(self, turn: Turn) -> Answer:
        game = turn.game
        moves = " ".join(game.format_move(move) for move in turn.moves)
        self.process.send(f"position startpos moves {moves}" if moves else "position startpos")
        go = f"go movetime {max(1, int(turn.movetime * 1000))}"
        if turn.clocks is not None:
            remaining, increment = turn.clocks
            go += "".join(
                f" p{seat + 1}time {max(0, int(left * 1000))}"
                for seat, left in enumerate(remaining)
            )
            go += f" inc {int(increment * 1000)}"
        self.process.begin_answer()
        started = time.monotonic()
        self.process.send(go)
        fields: dict[str, Any] = {}
        stopped = False
        while True:
            try:
                line = self.read(turn.give_up_at if stopped else turn.stop_at)
            except EngineTimeout:
                if stopped:
                    raise self.timeout("go (stop was sent)", started) from None
                self.process.send("stop")
                stopped = True
                continue
            words = line.split()
            if not words:
                continue
            if words[0] == "info":
                parse_info(words, fields)
                continue
            if words[0] == "bestmove" and len(words) >= 2:
                think = time.monotonic() - started
                try:
                    move = game.parse_move(words[1])
                except GameError as exc:
                    raise EngineIllegalMove(
                        f"engine answered {quote(words[1])}, not a move: {exc}"
                    ) from None
                return Answer(words[1], move, move_info(fields), think, stopped)
            raise EngineProtocolError(
                f"engine said {quote(line)} where bestmove or info was expected"
            )
