"""The ``human`` agent: a person at the terminal plays through the client runtime.

It shows the board after every move (with the last move and whose turn it is),
then on its turns prompts with the time left and reads a move in the game's
notation. Bad syntax and illegal moves are explained and re-prompted without
losing the turn.

In Go against another person, after two passes both mark the dead stones:
the board shows them in lower case with the count without them, and the
person types ``dead D4`` (the whole chain on D4 turns dead, or alive again),
``accept`` or ``resume`` (docs/PROTOCOL.md, "Go: dead stones between
people"). The other side's marks arrive while the prompt waits: they wake it
through the same line queue, so one thread does all the talking.

Why a reader thread: `choose` runs in the runtime's worker thread. Lines are
read by one daemon thread into a queue, and `choose` waits on that queue with
its own deadline, so a `choose` abandoned after a timeout gives up by itself
instead of keeping the input stream, and no two threads ever read it at once.
"""

from __future__ import annotations

import queue
import shutil
import sys
import textwrap
import threading
import time
from collections.abc import Sequence
from typing import Any, TextIO

from games import Game, InvalidMoveError, Outcome
from player.agent import Agent, DeadStonesView, MarkingAction, SearchLimit
from player.errors import ResignMatch
from player.spec import register_agent
from player.timefmt import clocks_line, format_seconds

HELP = """commands:
  <move>   play a move in the game's notation:
{notation}
  moves    list the legal moves
  board    show the board again
  resign   give up this match
  quit     resign and play no further matches
  help     this text"""
#: the help's indentation of the notation, under its command's description
HELP_INDENT = " " * 11
MARKING_HELP = """both passed: mark the dead stones, then both accept the same set
  dead <point>  toggle the whole chain on <point>: dead, or alive again
  accept        agree to count with the stones marked now taken off
  resume        take back the pass and play on
  board         show the board again
  resign        give up this match
  help          this text"""
#: put in the line queue when the marking changed: the waiting prompt redraws it
MARKING_CHANGED = "\x00marking"


def wrapped(text: str, indent: str = "") -> str:
    """`text` cut into lines that fit the terminal (at most 100 columns), each indented."""
    width = min(shutil.get_terminal_size((80, 24)).columns, 100) - 1
    return textwrap.fill(
        text,
        width=max(width, len(indent) + 20),
        initial_indent=indent,
        subsequent_indent=indent,
        break_long_words=False,
        break_on_hyphens=False,
    )


class HumanAgent(Agent):
    """Reads moves from `stdin` and writes the board and prompts to `stdout` (injectable).

    `grace` is how long past its budget `choose` keeps waiting before it gives
    up (by then the server has called the move a timeout). `hints` lists the
    legal moves at every prompt.
    """

    name = "human"
    default_limit = None
    human = True

    def __init__(
        self,
        *,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        hints: bool = False,
        grace: float = 2.0,
    ) -> None:
        if grace < 0:
            raise ValueError(f"grace must be >= 0 seconds, not {grace!r}")
        self._input = stdin if stdin is not None else sys.stdin
        self._output = stdout if stdout is not None else sys.stdout
        self.hints = hints
        self.grace = grace
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader: threading.Thread | None = None
        self._eof = False
        self._shown: Any = None
        self._last: str | None = None
        self._marking: DeadStonesView | None = None
        self._marking_shown: DeadStonesView | None = None
        #: the marking as it was when it ended: the count's, if the held pass follows
        self._agreed: DeadStonesView | None = None

    # --- output -------------------------------------------------------------

    def _say(self, text: str = "") -> None:
        self._output.write(text + "\n")
        self._output.flush()

    def _show_board(self, state: Any) -> str:
        board = self.require_game().render(state)
        self._say(board)
        self._shown = state
        return board

    def _seat_label(self, seat: int) -> str:
        names = self.require_game().seat_names
        label = names[seat] if seat < len(names) else f"seat {seat}"
        return f"{label} (you)" if seat == self.seat else label

    # --- Agent ----------------------------------------------------------------

    def start(self, game: Game[Any, Any], seat: int) -> None:
        super().start(game, seat)
        self._shown = None
        self._last = None
        self._say()
        names = game.seat_names
        symbol = names[seat] if seat < len(names) else f"seat {seat}"
        self._say(f"=== new match of {game.describe()}: you play {symbol} ===")
        notation = game.notation_help or "see arena games"
        self._say(wrapped(f"moves: {notation}; type 'help' for commands"))

    def observe(self, state: Any, move: Any, new_state: Any) -> None:
        super().observe(state, move, new_state)
        game = self.require_game()
        mover = game.to_move(state)
        self._last = f"{self._seat_label(mover)} played {game.format_move(move)}"
        self._say()
        self._say(self._last)
        agreed = self._agreed
        if agreed is not None and game.outcome(new_state) is not None:
            # the pass that was held while the dead stones were marked: counted without them
            self._say(game.render(new_state, dead=agreed.dead))  # type: ignore[call-arg]
            self._shown = new_state
            return
        board = self._show_board(new_state)
        if game.outcome(new_state) is None:
            seat = game.to_move(new_state)
            names = game.seat_names
            # a board that says who moves (reversi's score line) is not said again
            if seat >= len(names) or f"{names[seat]} to move" not in board:
                self._say(f"{self._seat_label(seat)} to move")

    whole_clock = True  # a person budgets their own clock

    def clocks(self, remaining: Sequence[float], increment: float) -> None:
        labels = [self._seat_label(seat) for seat in range(len(remaining))]
        line = clocks_line(labels, remaining, self.seat)
        self._say(line + (f" (+{increment:g}s a move)" if increment else ""))

    def choose(self, state: Any, limit: SearchLimit) -> Any:
        game = self.require_game()
        legal = list(game.legal_moves(state))
        if self._shown != state:
            self._say()
            self._show_board(state)
        started = time.monotonic()
        deadline = None if limit.time is None else started + limit.time + self.grace
        self._say(f"your move as {self._seat_label(game.to_move(state))}" + self._last_text())
        if self.hints:
            self._say(self._moves_text(game, legal))
        while True:
            self._prompt(limit, started)
            line = self._next_line(deadline)
            if line is None:
                self._say("\ntime is up")
                raise ResignMatch("out of time")
            text = line.strip()
            command = text.lower()
            if not text or line == MARKING_CHANGED:
                continue
            if command in {"help", "?"}:
                notation = game.notation_help or "see arena games"
                self._say(HELP.format(notation=wrapped(notation, HELP_INDENT)))
            elif command == "moves":
                self._say(self._moves_text(game, legal))
            elif command == "board":
                self._show_board(state)
            elif command == "resign":
                self._say("you resign")
                raise ResignMatch("resigned at the prompt")
            elif command == "quit":
                self._say("you resign and quit")
                raise ResignMatch("quit at the prompt", stop=True)
            else:
                move = self._parse(game, text, legal)
                if move is not None:
                    return move

    # --- dead stones ---------------------------------------------------------------

    def marking_changed(self, view: DeadStonesView | None) -> None:
        self._agreed = self._marking if view is None else None
        self._marking = view
        self._lines.put(MARKING_CHANGED)

    def mark_dead(self, view: DeadStonesView) -> MarkingAction | None:
        game = self.require_game()
        view = self.latest_marking() or view  # the runtime's `marking_changed` is the newest
        if view != self._marking_shown:  # not again after each of this person's own actions
            self._show_marking(view)
        deadline = time.monotonic() + view.time_left + self.grace
        while True:
            left = max(0.0, deadline - self.grace - time.monotonic())
            self._output.write(f"[{format_seconds(left)} left] dead> ")
            self._output.flush()
            line = self._next_line(deadline)
            if line is None:
                self._say("\ntime is up for marking")
                return None
            if line == MARKING_CHANGED:
                latest = self.latest_marking()
                if latest is None:  # resumed, or the match ended
                    self._say()
                    return None
                view = latest
                self._say()
                self._show_marking(view)
                continue
            words = line.split()
            command = words[0].lower() if words else ""
            if not command:
                continue
            if command in {"help", "?"}:
                self._say(MARKING_HELP)
            elif command == "board":
                self._show_marking(view)
            elif command == "accept":
                return MarkingAction("accept", dead=view.dead)
            elif command == "resume":
                return MarkingAction("resume")
            elif command == "resign":
                self._say("you resign")
                raise ResignMatch("resigned at the prompt")
            elif command == "quit":
                self._say("you resign and quit")
                raise ResignMatch("quit at the prompt", stop=True)
            elif command in {"dead", "alive", "mark"} and len(words) == 2:
                point = self._chain_point(game, view, words[1])
                if point is not None:
                    return MarkingAction("mark", point=point)
            else:
                self._say("type 'dead D4' to mark the chain on D4, 'accept', 'resume' or 'help'")

    def latest_marking(self) -> DeadStonesView | None:
        """The marking as the server last showed it (None: marking is over)."""
        return self._marking

    def _chain_point(self, game: Game[Any, Any], view: DeadStonesView, text: str) -> int | None:
        try:
            point = game.parse_move(text)
        except InvalidMoveError as exc:
            self._say(f"invalid point: {exc}")
            return None
        chain = getattr(game, "chain", None)
        if not isinstance(point, int) or point < 0 or chain is None or not chain(view.state, point):
            self._say(f"no stone on {text.upper()} to mark")
            return None
        return point

    def _show_marking(self, view: DeadStonesView) -> None:
        self._marking_shown = view
        game = self.require_game()
        self._say(game.render(view.state, dead=view.dead))  # type: ignore[call-arg]
        names = [self._seat_label(seat) for seat in range(len(view.accepted))]
        said = ", ".join(
            f"{name} {'accepted' if ok else 'has not accepted'}"
            for name, ok in zip(names, view.accepted, strict=True)
        )
        stones = " ".join(game.format_move(point) for point in sorted(view.dead)) or "none"
        self._say(f"dead: {stones}; {said}")
        self._say("type 'dead D4' to toggle a chain, 'accept', 'resume' or 'help'")

    def finish(self, outcome: Outcome | None) -> None:
        if outcome is None:
            self._say("=== the match was lost track of (disconnected); result unknown ===")
            return
        if outcome.winner is None:
            verdict = "draw"
        elif outcome.winner == self.seat:
            verdict = "you win"
        else:
            verdict = "you lose"
        self._say(f"=== game over: {verdict} ({outcome.result()}, {outcome.termination.value}) ===")

    # --- input ------------------------------------------------------------------

    def _parse(self, game: Game[Any, Any], text: str, legal: Sequence[Any]) -> Any:
        try:
            move = game.parse_move(text)
        except InvalidMoveError as exc:
            self._say(f"invalid move: {exc}")
            return None
        if move not in legal:
            self._say(
                f"illegal move: {text!r} is not legal in this position"
                " (type 'moves' to list the legal moves)"
            )
            return None
        return move

    def _last_text(self) -> str:
        return f"; last move: {self._last}" if self._last else ""

    def _moves_text(self, game: Game[Any, Any], legal: Sequence[Any]) -> str:
        return "legal moves: " + " ".join(game.format_move(m) for m in legal)

    def _prompt(self, limit: SearchLimit, started: float) -> None:
        if limit.time is None:
            self._output.write("move> ")
        else:
            left = max(0.0, limit.time - (time.monotonic() - started))
            self._output.write(f"[{format_seconds(left)} left] move> ")
        self._output.flush()

    def _next_line(self, deadline: float | None) -> str | None:
        """The next input line; None at the deadline; ResignMatch(stop) at end of input."""
        if self._eof:
            raise ResignMatch("standard input closed", stop=True)
        if self._reader is None:
            self._reader = threading.Thread(
                target=self._read_lines, name="human-input", daemon=True
            )
            self._reader.start()
        try:
            if deadline is None:
                line = self._lines.get()
            else:
                line = self._lines.get(timeout=max(0.0, deadline - time.monotonic()))
        except queue.Empty:
            return None
        if line is None:
            self._eof = True
            self._say()
            raise ResignMatch("standard input closed", stop=True)
        return line

    def _read_lines(self) -> None:
        while True:
            line = self._input.readline()
            if not line:
                self._lines.put(None)
                return
            self._lines.put(line)


def _make_human(hints: bool) -> HumanAgent:
    return HumanAgent(hints=hints)


HUMAN = register_agent(
    "human",
    _make_human,
    {"hints": (bool, False, "list the legal moves at every prompt")},
    description="a person at the terminal: shows the board, reads moves in the game's notation",
)
