"""`GtpFront`: any arena agent as a GTP engine (the reverse of the engine kind's GTP adapter).

Why this shape: GTP is strictly request and answer, one command at a time,
so the front is a plain loop over lines with no concurrency: `handle` turns
one command line into one answer (``= ...`` or ``? ...``, then an empty
line), and `run` feeds it from a text stream. The game and the agent's view
of it are `player.stdio.front.AgentGame`'s, shared with the other fronts.

Coordinates come from the engines' per-game table (`player.engines.mapping`),
so every game that table maps to GTP is playable, with the same vertices our
own GTP adapter sends. Black is seat 0. A `play` or `genmove` for the colour
that is not to move is taken as the other colour passing first, where the
game has a pass (Go's handicap stones, Othello's implied passes); elsewhere it
is refused.

Time: the agent's own budget (``mcts:time=1``) when its spec has one, else
the clock GTP gives (`time_settings`, `time_left`): a byo-yomi period's time
per stone, or the main time left over `MOVES_AHEAD` moves, less `MARGIN`
(`player.stdio.front.budget`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TextIO

from games import Game, GameError, make_game
from player.agent import Agent, SearchLimit
from player.engines.mapping import BoardMapping, board_mapping
from player.errors import GtpError as GtpError
from player.stdio.front import MARGIN, MOVES_AHEAD, AgentGame, IllegalChoice, answer_lines, budget

__all__ = ["GtpFront"]

COLOURS = {"b": 0, "black": 0, "w": 1, "white": 1}
COMMANDS = (
    "protocol_version", "name", "version", "known_command", "list_commands", "quit",
    "boardsize", "clear_board", "komi", "play", "genmove", "undo", "showboard",
    "time_settings", "time_left", "final_score",
)  # fmt: skip


@dataclass
class Clock:
    """What the controller said of one colour's time (seconds; stones 0 = main time)."""

    main: float | None = None
    byo_yomi: float = 0.0
    stones: int = 0
    left: float | None = None
    left_stones: int = 0


@dataclass
class GtpFront:
    """One GTP session driving `agent` at `game_name` (options `options`)."""

    agent: Agent
    game_name: str
    options: dict[str, Any] = field(default_factory=dict)
    version: str = "0"
    log: Callable[[str], None] = lambda message: None

    def __post_init__(self) -> None:
        game = make_game(self.game_name, self.options)
        self.mapping: BoardMapping = board_mapping(game, "gtp")
        self.match = AgentGame(self.agent, game)
        self.clocks = [Clock(), Clock()]
        self.done = False

    @property
    def game(self) -> Game[Any, Any]:
        return self.match.game

    @property
    def moves(self) -> list[Any]:
        return self.match.moves

    @property
    def state(self) -> Any:
        return self.match.state

    # --- the loop ----------------------------------------------------------------

    def run(self, lines: Iterable[str], out: TextIO) -> int:
        """Answer each command of `lines` on `out` until ``quit`` or the end of input."""
        answer_lines(self, lines, out)
        return 0

    def handle(self, line: str) -> str | None:
        """The answer to one command line (None for a line with no command)."""
        text = re.sub(r"[\x00-\x08\x0b-\x1f\x7f]", "", line.split("#", 1)[0]).replace("\t", " ")
        words = text.split()
        if not words:
            return None
        ident = ""
        if words[0].isdigit():
            ident, words = words[0], words[1:]
            if not words:
                return f"?{ident} no command\n\n"
        command, args = words[0].lower(), words[1:]
        try:
            result = self._dispatch(command, args)
        except GtpError as exc:
            return f"?{ident} {exc}\n\n"
        return f"={ident}{' ' + result if result else ''}\n\n"

    def _dispatch(self, command: str, args: list[str]) -> str:
        handler = getattr(self, f"_cmd_{command}", None)
        if command not in COMMANDS or handler is None:
            raise GtpError("unknown command")
        result: str = handler(args)
        return result

    # --- administrative commands ---------------------------------------------------

    def _cmd_protocol_version(self, args: list[str]) -> str:
        return "2"

    def _cmd_name(self, args: list[str]) -> str:
        return f"MCTS Arena {self.agent.name}"

    def _cmd_version(self, args: list[str]) -> str:
        return self.version

    def _cmd_known_command(self, args: list[str]) -> str:
        return "true" if args and args[0].lower() in COMMANDS else "false"

    def _cmd_list_commands(self, args: list[str]) -> str:
        return "\n".join(COMMANDS)

    def _cmd_quit(self, args: list[str]) -> str:
        self.done = True
        return ""

    # --- setting up a game ---------------------------------------------------------

    def _cmd_boardsize(self, args: list[str]) -> str:
        size = _number(args, int, "boardsize")
        keys = self.game.options
        if "size" in keys:
            changed = {"size": size}
        elif "width" in keys and "height" in keys:
            changed = {"width": size, "height": size}
        else:
            raise GtpError("unacceptable size")
        try:
            self._new_game({**self.options, **changed})
        except (GameError, ValueError):
            raise GtpError("unacceptable size") from None
        return ""

    def _cmd_clear_board(self, args: list[str]) -> str:
        self._replay([])
        return ""

    def _cmd_komi(self, args: list[str]) -> str:
        komi = _number(args, float, "komi")
        if "komi" not in self.game.options:
            return ""  # a game without komi (Othello, gomoku) accepts and ignores it
        try:
            self._new_game({**self.options, "komi": komi}, keep=self.moves)
        except (GameError, ValueError) as exc:
            raise GtpError(f"komi not accepted: {exc}") from None
        return ""

    def _new_game(self, options: dict[str, Any], keep: list[Any] | None = None) -> None:
        game = make_game(self.game_name, options)
        mapping = board_mapping(game, "gtp")
        self.match.reset(list(keep or []), game)  # a new game for the agent too
        self.mapping, self.options = mapping, options

    def _replay(self, moves: list[Any]) -> None:
        self.match.reset(moves)  # the agent is started again before its next move

    # --- moves ---------------------------------------------------------------------

    def _cmd_play(self, args: list[str]) -> str:
        if len(args) != 2:
            raise GtpError("syntax error: play COLOUR VERTEX")
        seat = _colour(args[0])
        try:
            move = self.mapping.parse_vertex(args[1])
        except ValueError:
            raise GtpError("invalid coordinate") from None
        self._to_seat(seat)
        self._play(move)
        return ""

    def _cmd_genmove(self, args: list[str]) -> str:
        if len(args) != 1:
            raise GtpError("syntax error: genmove COLOUR")
        seat = _colour(args[0])
        if self.game.outcome(self.state) is not None:
            if self.mapping.pass_move is None:
                raise GtpError("the game is over")
            return "pass"
        self._to_seat(seat)
        try:
            move = self.match.choose(self._limit(seat))
        except IllegalChoice as exc:
            raise GtpError(str(exc)) from None
        self._play(move)
        return self.mapping.vertex(move) if move != self.mapping.pass_move else "pass"

    def _cmd_undo(self, args: list[str]) -> str:
        if not self.moves:
            raise GtpError("cannot undo")
        self._replay(self.moves[:-1])
        return ""

    def _to_seat(self, seat: int) -> None:
        """Make `seat` the side to move: the other side passes, where the game allows."""
        if self.game.outcome(self.state) is None and self.game.to_move(self.state) != seat:
            passing = self.mapping.pass_move
            if passing is None or passing not in self.game.legal_moves(self.state):
                raise GtpError("illegal move: it is not that colour's turn")
            self._play(passing)

    def _play(self, move: Any) -> None:
        try:
            self.match.play(move)
        except GameError:
            raise GtpError("illegal move") from None

    # --- time ------------------------------------------------------------------------

    def _cmd_time_settings(self, args: list[str]) -> str:
        if len(args) != 3:
            raise GtpError("syntax error: time_settings MAIN BYO_YOMI STONES")
        main, byo, stones = (_number([a], float, "time_settings") for a in args)
        for clock in self.clocks:
            clock.main, clock.byo_yomi, clock.stones = main, byo, int(stones)
            clock.left, clock.left_stones = main, 0
        return ""

    def _cmd_time_left(self, args: list[str]) -> str:
        if len(args) != 3:
            raise GtpError("syntax error: time_left COLOUR TIME STONES")
        clock = self.clocks[_colour(args[0])]
        clock.left = _number([args[1]], float, "time_left")
        clock.left_stones = int(_number([args[2]], float, "time_left"))
        return ""

    def _limit(self, seat: int) -> SearchLimit:
        clock = self.clocks[seat]
        seconds: float | None = None
        if clock.left is not None and clock.main is not None:
            if clock.left_stones > 0:  # in byo-yomi: this period's time per stone
                seconds = clock.left / clock.left_stones
            elif clock.stones > 0 and clock.left <= 0:
                seconds = clock.byo_yomi / clock.stones
            elif clock.stones > 0:  # main time, then byo-yomi: the period is a floor
                seconds = max(clock.left / MOVES_AHEAD, clock.byo_yomi / clock.stones)
            else:
                seconds = clock.left / MOVES_AHEAD
            seconds -= MARGIN
        return budget(self.agent, seconds)

    # --- the end ---------------------------------------------------------------------

    def _cmd_final_score(self, args: list[str]) -> str:
        outcome = self.game.outcome(self.state)
        if outcome is None:
            score = getattr(self.game, "score", None)
            if score is None:
                raise GtpError("cannot score a game that has not ended")
            outcome = score(self.state)
        if outcome.winner is None:
            return "0"
        margin = ""  # a game's points are each seat's margin (Go's area, Othello's discs)
        if outcome.points is not None and len(outcome.points) == 2:
            margin = f"{abs(outcome.points[outcome.winner]):g}"
        return f"{'BW'[outcome.winner]}+{margin}"

    def _cmd_showboard(self, args: list[str]) -> str:
        return "\n" + self.game.render(self.state)


def _colour(word: str) -> int:
    seat = COLOURS.get(word.lower())
    if seat is None:
        raise GtpError("invalid color")
    return seat


def _number(args: list[str], kind: Callable[[str], Any], command: str) -> Any:
    if len(args) != 1:
        raise GtpError(f"syntax error: {command} takes one number")
    try:
        return kind(args[0])
    except ValueError:
        raise GtpError(f"syntax error: {args[0]!r} is not a number") from None
