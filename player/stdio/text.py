"""`TextFront`: any arena agent as an engine of our text protocol (docs/ENGINES.md).

The reverse of the engine kind's text adapter (`player.engines.text`), and
the same shape as UCI: ``arena 1`` is answered with ``id`` lines and
``arenaok``; ``isready`` with ``readyok``; ``newgame GAME OPTIONS`` and
``position startpos [moves …]`` set the game; ``go movetime MS [p1time MS
p2time MS … inc MS]`` is answered with one ``info`` line (what the agent says
of its move, if anything) and ``bestmove MOVE``. Moves are in the game's own
notation. ``stop`` and ``setoption`` are accepted and do nothing (the agent
answers within its ``movetime``; it has no options to set here); ``quit`` ends
the loop.

Errors: the protocol has no error reply, and an unknown command is ignored
without an answer. So every refusal (a bad position, a game it does not play,
``go`` with no position to play) is one ``info string error: …`` line and
nothing else: a controller waiting for ``bestmove`` then times out, as it
would with any engine that cannot move. A ``newgame`` for a game other than
the one ``--game`` named exits (status 1), which the protocol says is how an
engine refuses a game.

Time (`player.stdio.front.budget`): ``movetime`` less `MARGIN`; with only a
clock, the mover's time left over `MOVES_AHEAD` moves plus the increment.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from games import Game, GameError, make_game, parse_options
from player.agent import Agent, SearchLimit
from player.errors import GameRefused as GameRefused
from player.errors import TextError as TextError
from player.stdio.front import (
    MARGIN,
    MOVES_AHEAD,
    AgentGame,
    IllegalChoice,
    answer_lines,
    budget,
    one_line,
)

__all__ = ["TextFront"]

VERSION = 1


@dataclass
class TextFront:
    """One text-protocol session driving `agent`; `game_name` (None: any game) is the
    game it plays until a ``newgame`` names one."""

    agent: Agent
    game_name: str | None = None
    options: dict[str, Any] = field(default_factory=dict)
    version: str = "0"
    log: Callable[[str], None] = lambda message: None

    def __post_init__(self) -> None:
        self.match: AgentGame | None = None
        if self.game_name is not None:
            self.match = AgentGame(self.agent, make_game(self.game_name, self.options))
        self.done = False
        #: the last ``position`` was refused: no ``go`` until another is given
        self._no_position = False
        #: set by a refused ``newgame``: why the engine exits
        self.refused: str | None = None

    # --- the loop ----------------------------------------------------------------

    def run(self, lines: Iterable[str], out: TextIO) -> int:
        """Answer each command of `lines` on `out` until ``quit`` or the end of input;
        1 if a ``newgame`` was refused (`refused` says why)."""
        answer_lines(self, lines, out)
        return 1 if self.refused is not None else 0

    def handle(self, line: str) -> str | None:
        """The answer to one command line (None: the command gets none)."""
        words = re.sub(r"[\x00-\x1f\x7f]", " ", line).split()
        if not words:
            return None
        handler = getattr(self, f"_cmd_{words[0]}", None)
        if handler is None or not words[0].isalpha():
            return None  # an unknown command is ignored, as the protocol says
        try:
            answer: str | None = handler(words[1:])
        except TextError as exc:
            return f"info string error: {exc}\n"
        except GameRefused as exc:
            self.refused, self.done = str(exc), True
            return f"info string error: {exc}\n"
        return answer

    # --- the handshake -------------------------------------------------------------

    def _cmd_arena(self, args: list[str]) -> str:
        if args != [str(VERSION)]:
            raise TextError(f"this engine speaks version {VERSION} of the protocol")
        return f"id name MCTS Arena {self.agent.name}\nid author MCTS Arena\narenaok\n"

    def _cmd_isready(self, args: list[str]) -> str:
        return "readyok\n"

    def _cmd_setoption(self, args: list[str]) -> None:
        return None

    def _cmd_stop(self, args: list[str]) -> None:
        return None  # not thinking: every `go` is answered within its movetime

    def _cmd_quit(self, args: list[str]) -> None:
        self.done = True
        return None

    # --- the game ------------------------------------------------------------------

    def _cmd_newgame(self, args: list[str]) -> None:
        if not args:
            raise TextError("newgame takes a game's name, e.g. newgame connect4")
        name = args[0]
        if self.game_name is not None and name != self.game_name:
            raise GameRefused(f"this engine plays {self.game_name} only, not {name}")
        try:
            options = parse_options(" ".join(args[1:]))
            game: Game[Any, Any] = make_game(name, options)
        except (GameError, ValueError) as exc:
            raise TextError(one_line(exc)) from None
        self.match, self._no_position = AgentGame(self.agent, game), False
        return None

    def _cmd_position(self, args: list[str]) -> None:
        match = self._need()
        if not args or args[0] != "startpos" or (len(args) > 1 and args[1] != "moves"):
            raise TextError("position takes 'startpos' or 'startpos moves M1 M2 …'")
        game = match.game
        moves: list[Any] = []
        try:
            for word in args[2:]:
                moves.append(game.parse_move(word))
            match.reset(moves)
        except (GameError, ValueError) as exc:
            self._no_position = True
            raise TextError(f"not a position of {game.name}: {one_line(exc)}") from None
        self._no_position = False
        return None

    def _need(self) -> AgentGame:
        if self.match is None:
            raise TextError("no game: newgame first")
        return self.match

    def _cmd_go(self, args: list[str]) -> str:
        match = self._need()
        if self._no_position:
            raise TextError("no position to play: the last one was refused")
        if match.over:
            raise TextError("the game is over: no move to play")
        limit = self._limit(args, match.game.to_move(match.state))
        try:
            move = match.choose(limit)
        except IllegalChoice as exc:
            raise TextError(str(exc)) from None
        game = match.game
        info = self.agent.move_info()
        notation = game.format_move(move)
        match.play(move)
        return f"{_info_line(info)}bestmove {notation}\n"

    def _limit(self, args: list[str], seat: int) -> SearchLimit:
        fields: dict[str, float] = {}
        for key, value in zip(args[::2], args[1::2], strict=False):
            try:
                fields[key] = max(0, int(value)) / 1000
            except ValueError:
                raise TextError(f"go: {key} {value!r} is not a number of milliseconds") from None
        seconds: float | None = None
        if "movetime" in fields:
            seconds = fields["movetime"]
        elif f"p{seat + 1}time" in fields:
            seconds = fields[f"p{seat + 1}time"] / MOVES_AHEAD + fields.get("inc", 0.0)
        return budget(self.agent, None if seconds is None else seconds - MARGIN)


def _info_line(info: Any) -> str:
    """The ``info`` line of what the agent said of its move ('' if nothing)."""
    if info is None:
        return ""
    parts = []
    if info.depth is not None:
        parts.append(f"depth {info.depth}")
    if info.visits is not None:
        parts.append(f"visits {info.visits}")
    if info.eval is not None:
        parts.append(f"score {info.eval:.4f}")
    if info.pv:
        parts.append("pv " + " ".join(info.pv))
    return f"info {' '.join(parts)}\n" if parts else ""
