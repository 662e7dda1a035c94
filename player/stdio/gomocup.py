"""`GomocupFront`: any arena agent as a Gomocup brain (piskvork's "new protocol").

The reverse of the engine kind's Gomocup adapter (`player.engines.gomocup`).
A manager (piskvork, a Gomocup tournament, another arena) says ``START N``
(or ``RECTSTART W,H``), then asks for moves with ``BEGIN`` (we move first),
``TURN x,y`` (the opponent's move) or a whole position in ``BOARD`` …
``DONE``. Every one is answered with our move ``x,y``; ``START``, ``RESTART``
and ``TAKEBACK`` with ``OK``; ``INFO`` never; ``END`` ends the loop. A command
this brain does not know answers ``UNKNOWN …``, a bad or illegal one
``ERROR …``: one line, never a traceback.

Five in a row only: the game (gomoku, or any m,n,k board with ``k=5``) takes
its size from ``START``. ``x`` is the column from 0 at the left, ``y`` the row
from 0 at the top (`player.engines.mapping`). Stones come in ``BOARD`` as
``x,y,1`` (ours) or ``x,y,2`` (the opponent's), in the order played; the side
with fewer stones is to move, and that is us.

Time (`player.stdio.front.budget`): ``INFO timeout_turn`` (0: as fast as
possible), and on a match clock (``timeout_match`` > 0) ``time_left`` spread
over `MOVES_AHEAD` moves, whichever is less, less `MARGIN`; the agent's own
time when its spec has one and it is less.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from games import GameError, make_game
from player.agent import Agent, SearchLimit
from player.engines.mapping import BoardMapping, board_mapping
from player.errors import GomocupError as GomocupError
from player.stdio.front import (
    MARGIN,
    MIN_SECONDS,
    MOVES_AHEAD,
    AgentGame,
    IllegalChoice,
    answer_lines,
    budget,
    one_line,
)

__all__ = ["GomocupFront"]

_XY = re.compile(r"\s*(\d+)\s*,\s*(\d+)\s*\Z")
_STONE = re.compile(r"\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*\Z")
#: stones one BOARD may list before DONE (a 26x26 board has 676 points)
MAX_BOARD_LINES = 1000


@dataclass
class GomocupFront:
    """One brain session driving `agent` at `game_name` (options `options`)."""

    agent: Agent
    game_name: str = "gomoku"
    options: dict[str, Any] = field(default_factory=dict)
    version: str = "0"
    log: Callable[[str], None] = lambda message: None

    def __post_init__(self) -> None:
        game = make_game(self.game_name, self.options)
        board_mapping(game, "gomocup")  # ValueError: this game is not five in a row
        self.match: AgentGame | None = None
        self.mapping: BoardMapping | None = None
        self.timeout_turn: float | None = None
        self.timeout_match: float = 0.0
        self.time_left: float | None = None
        #: while a BOARD is read: the stones so far (None: not in a BOARD)
        self._board: list[tuple[Any, int]] | None = None
        self.done = False

    # --- the loop ----------------------------------------------------------------

    def run(self, lines: Iterable[str], out: TextIO) -> int:
        """Answer each command of `lines` on `out` until ``END`` or the end of input."""
        answer_lines(self, lines, out)
        return 0

    def handle(self, line: str) -> str | None:
        """The answer to one line (None for a line that gets none: INFO, a BOARD stone)."""
        text = re.sub(r"[\x00-\x1f\x7f]", " ", line).strip()
        if self._board is not None:
            return self._board_line(text)
        if not text:
            return None
        command, _, rest = text.partition(" ")
        command = command.upper()
        handler = getattr(self, f"_cmd_{command.lower()}", None)
        if handler is None or not command.isalpha():
            return f"UNKNOWN command {command[:40]!r} is not known\n"
        try:
            answer: str | None = handler(rest.strip())
        except GomocupError as exc:
            return f"ERROR {exc}\n"
        return None if answer is None else answer + "\n"

    # --- a game --------------------------------------------------------------------

    def _cmd_start(self, rest: str) -> str:
        if not rest.isdigit():
            raise GomocupError("START takes the board's size, e.g. START 15")
        size = int(rest)
        return self._start(size, size)

    def _cmd_rectstart(self, rest: str) -> str:
        found = _XY.match(rest)
        if found is None:
            raise GomocupError("RECTSTART takes the board's width and height, e.g. 20,15")
        return self._start(int(found.group(1)), int(found.group(2)))

    def _start(self, width: int, height: int) -> str:
        options = {**self.options, "width": width, "height": height}
        try:
            game = make_game(self.game_name, options)
            mapping = board_mapping(game, "gomocup")
        except (GameError, ValueError) as exc:
            raise GomocupError(f"unsupported board {width}x{height}: {one_line(exc)}") from None
        self.match, self.mapping = AgentGame(self.agent, game), mapping
        return "OK"

    def _cmd_restart(self, rest: str) -> str:
        self._need().reset([])
        return "OK"

    def _need(self) -> AgentGame:
        if self.match is None:
            raise GomocupError("no board: START first")
        return self.match

    def _cmd_end(self, rest: str) -> None:
        self.done = True
        return None

    def _cmd_about(self, rest: str) -> str:
        name = self.agent.name.replace('"', "'")
        return f'name="MCTS Arena {name}", version="{self.version}", author="MCTS Arena"'

    def _cmd_info(self, rest: str) -> None:
        key, _, value = rest.partition(" ")
        key = key.lower()
        if key in ("timeout_turn", "timeout_match", "time_left"):
            try:
                seconds = max(0, int(value.strip())) / 1000
            except ValueError:
                return None  # INFO is never answered: a bad value is ignored
            if key == "timeout_turn":
                self.timeout_turn = seconds
            elif key == "timeout_match":
                self.timeout_match = seconds
            else:
                self.time_left = seconds
        return None  # max_memory, game_type, rule, folder, evaluate: nothing to do

    # --- moves ---------------------------------------------------------------------

    def _cmd_begin(self, rest: str) -> str:
        match = self._need()
        if match.moves:
            raise GomocupError("BEGIN on a board that has stones (RESTART first)")
        return self._move()

    def _cmd_turn(self, rest: str) -> str:
        match = self._need()
        self._play(match, self._xy(rest))
        return self._move()

    def _cmd_takeback(self, rest: str) -> str:
        match = self._need()
        move = self._xy(rest)
        if not match.moves or match.moves[-1] != move:
            raise GomocupError(f"{rest.strip()} is not the last move")
        match.undo()
        return "OK"

    def _cmd_board(self, rest: str) -> None:
        self._need()
        self._board = []
        return None

    def _board_line(self, text: str) -> str | None:
        """One line inside BOARD: a stone, DONE (answered with our move), or an error."""
        assert self._board is not None
        if text.upper() == "DONE":
            stones, self._board = self._board, None
            try:
                self._set_position(stones)
            except GomocupError as exc:
                return f"ERROR {exc}\n"
            return self._move() + "\n"
        found = _STONE.match(text)
        if found is None or len(self._board) >= MAX_BOARD_LINES:
            self._board = None
            return f"ERROR {text[:40]!r} is not a stone x,y,field inside BOARD\n"
        x, y, owner = (int(part) for part in found.groups())
        if owner not in (1, 2, 3):
            self._board = None
            return f"ERROR field {owner} is not 1 (ours), 2 (theirs) or 3\n"
        try:
            move = self._mapping().parse_xy(f"{x},{y}")
        except ValueError as exc:
            self._board = None
            return f"ERROR {exc}\n"
        self._board.append((move, 1 if owner == 1 else 2))
        return None

    def _set_position(self, stones: list[tuple[Any, int]]) -> None:
        """The position of a BOARD: each side's stones in the order given, alternating
        from the side that has more (or the opponent when equal: we are to move)."""
        match = self._need()
        ours = [move for move, owner in stones if owner == 1]
        theirs = [move for move, owner in stones if owner == 2]
        if len(theirs) not in (len(ours), len(ours) + 1):
            raise GomocupError(
                f"{len(ours)} stones of ours and {len(theirs)} of theirs: not our turn"
            )
        first, second = (theirs, ours) if len(theirs) > len(ours) else (ours, theirs)
        order = [move for pair in zip(first, second, strict=False) for move in pair]
        order += first[len(second) :]
        try:
            match.reset(order)
        except GameError as exc:
            raise GomocupError(f"not a position of this game: {one_line(exc)}") from None

    def _play(self, match: AgentGame, move: Any) -> None:
        try:
            match.play(move)
        except GameError as exc:
            raise GomocupError(f"illegal move: {one_line(exc)}") from None

    def _xy(self, text: str) -> Any:
        try:
            return self._mapping().parse_xy(text.strip())
        except ValueError as exc:
            raise GomocupError(str(exc)) from None

    def _mapping(self) -> BoardMapping:
        if self.mapping is None:
            raise GomocupError("no board: START first")
        return self.mapping

    def _move(self) -> str:
        """Our move, played and written ``x,y``."""
        match = self._need()
        if match.over:
            raise GomocupError("the game is over")
        try:
            move = match.choose(self._limit())
        except IllegalChoice as exc:
            raise GomocupError(str(exc)) from None
        match.play(move)
        return self._mapping().xy(move)

    def _limit(self) -> SearchLimit:
        seconds: float | None = None
        if self.timeout_turn is not None:
            seconds = self.timeout_turn if self.timeout_turn > 0 else MIN_SECONDS
        if self.timeout_match > 0 and self.time_left is not None:
            share = self.time_left / MOVES_AHEAD
            seconds = share if seconds is None else min(seconds, share)
        return budget(self.agent, None if seconds is None else seconds - MARGIN)
