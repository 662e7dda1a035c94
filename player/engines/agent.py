"""The ``engine`` agent kind: an external program, over GTP, Gomocup or our text protocol.

The agent owns at most one running engine. A process is started (and its
handshake done) by `prepare`, which the client runtime calls before every
seek, so that a slow start is never paid on a move's clock; it is kept from
game to game while it behaves (``restart=auto``), and replaced by a fresh one
after any fault or, with ``restart=always``, after every game, again by the
next `prepare` where a runtime calls it (else at the next `start`). A fault
during a game gives it up with the fault as the reason and its kind
(`ResignMatch` with a ``fault``: the match is recorded as ``crash``,
``stalled``, ``illegal_move`` or ``protocol_error``, not as a resignation); a
fault while starting the engine
stops the player (`AgentError`), which a tournament treats as any failing
player.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Sequence
from typing import Any

import structlog

from games.base import Game, Outcome, Termination
from player.agent import Agent, MoveInfo, SearchLimit
from player.engines.config import PROTOCOLS, RESTARTS, EngineConfig, build_config
from player.engines.errors import (
    EngineError,
    EngineFlood,
    EngineIllegalMove,
    EngineInterrupted,
    EngineProtocolError,
    EngineTimeout,
    quote,
)
from player.engines.gomocup import GomocupSession, NeedsRestart
from player.engines.gtp import GtpSession
from player.engines.mapping import board_mapping
from player.engines.process import EngineProcess
from player.engines.session import Answer, Session, Turn, movers_of
from player.engines.text import TextSession
from player.errors import AgentError, ResignMatch
from player.spec import AgentOption, register_agent
from protocol.messages import Fault

log = structlog.get_logger("player.engines")

SESSIONS: dict[str, type[Session]] = {
    session.protocol: session for session in (TextSession, GtpSession, GomocupSession)
}
#: after the budget (and `stop`), how long the agent waits before it gives up by itself;
#: in a match the server's deadline comes first and `interrupt` ends the wait
GIVE_UP_AFTER = 5.0
#: seconds of its budget an engine that passes must have left to be asked its own count
OWN_COUNT_TIME = 0.25
#: the budget when the runtime gives no time (an iteration-only limit)
DEFAULT_MOVE_TIME = 1.0


class EngineAgent(Agent):
    """An engine program behind the `Agent` interface."""

    def __init__(self, config: EngineConfig) -> None:
        self.config = config
        self._process: EngineProcess | None = None
        self._session: Session | None = None
        self._abort = threading.Event()
        self._clocks: tuple[tuple[float, ...], float] | None = None
        self._info: MoveInfo | None = None
        #: the seat that played each move of `history` (the protocols say who played what)
        self._movers: list[int] = []
        self._fresh = True
        #: the last answer (its think time as measured here), for logs and `engines check`
        self.last_answer: Answer | None = None
        #: the last process started, running or ended: its stderr explains a fault
        self.last_process: EngineProcess | None = None
        #: a GTP engine's own count of the last counted Go game (`final_score`), if it gave one
        self.engine_score: str | None = None

    # --- the process ------------------------------------------------------------------

    @property
    def session(self) -> Session | None:
        """The running session, if any."""
        return self._session

    def launch(self) -> Session:
        """(Re)start the engine and do its handshake (AgentError if it fails)."""
        self._end_process()
        config = self.config
        try:
            process = EngineProcess(config.argv, cwd=config.workdir, label=config.label)
        except EngineError as exc:
            raise AgentError(f"engine {config.label}: {exc}") from None
        session = SESSIONS[config.protocol](process, config, self._abort)
        self._process, self._session, self._fresh = process, session, True
        self.last_process = process
        try:
            session.handshake()
        except EngineError as exc:
            self._end_process()
            raise AgentError(f"engine {config.label}: {exc} (during its handshake)") from None
        log.info(
            "engine_ready",
            engine=config.label,
            protocol=config.protocol,
            says=session.engine_name,
            pid=process.pid,
        )
        return session

    def _end_process(self) -> None:
        process, session = self._process, self._session
        self._process = self._session = None
        if process is not None:
            process.close(session.quit_line if session is not None else None)

    def _needs_launch(self) -> bool:
        return (
            self._session is None
            or self._process is None
            or not self._process.running
            or (self.config.restart == "always" and not self._fresh)
        )

    # --- the Agent interface --------------------------------------------------------------

    def prepare(self, game: Game[Any, Any]) -> None:
        """Start the engine and do its handshake now, before a match is sought (and
        Gomocup's ``START``, which needs the board): a no-op while one is ready."""
        self._abort.clear()
        session = self.launch() if self._needs_launch() else self._session
        assert session is not None
        try:
            session.prepare(game)
        except ValueError as exc:  # the protocol cannot play this game
            raise AgentError(f"engine {self.config.label}: {exc}") from None
        except EngineError as exc:
            self._end_process()
            raise AgentError(f"engine {self.config.label}: {exc} (during its handshake)") from None

    def start(self, game: Game[Any, Any], seat: int) -> None:
        super().start(game, seat)
        self._abort.clear()
        self._clocks = None
        self._info = None
        session = self._session
        if session is None or self._needs_launch():
            session = self.launch()
        assert self._process is not None
        self._process.new_game()
        try:
            try:
                session.new_game(game, seat)
            except NeedsRestart:
                session = self.launch()
                session.new_game(game, seat)
        except ValueError as exc:  # the protocol cannot play this game
            raise AgentError(f"engine {self.config.label}: {exc}") from None
        except EngineError as exc:
            self._end_process()
            raise AgentError(f"engine {self.config.label}: {exc} (starting a game)") from None
        self._fresh = False

    def check_game(self, game: Game[Any, Any]) -> None:
        if self.config.protocol != "text":
            board_mapping(game, self.config.protocol)

    def sync(self, state: Any, moves: Sequence[Any]) -> None:
        super().sync(state, moves)
        self._movers = list(movers_of(self.require_game(), self.history)[0])

    def observe(self, state: Any, move: Any, new_state: Any) -> None:
        super().observe(state, move, new_state)
        self._movers.append(self.require_game().to_move(state))

    def clocks(self, remaining: Any, increment: float) -> None:
        self._clocks = (tuple(float(left) for left in remaining), float(increment))

    def choose(self, state: Any, limit: SearchLimit) -> Any:
        """Ask the engine; resign the match (with the reason) on any fault."""
        game = self.require_game()
        session = self._session
        if session is None:
            raise ResignMatch(
                f"engine {self.config.label}: not running (a fault earlier)", fault="crash"
            )
        budget = limit.time if limit.time is not None else DEFAULT_MOVE_TIME
        now = time.monotonic()
        turn = Turn(
            game=game,
            moves=tuple(self.history),
            movers=tuple(self._movers),
            seat=game.to_move(state),
            state=state,
            movetime=max(0.001, budget - self.config.margin),
            stop_at=now + budget,
            give_up_at=now + budget + max(GIVE_UP_AFTER, budget),
            clocks=self._clocks,
        )
        self._info = None
        try:
            answer = session.think(turn)
            if answer.move is None:
                raise ResignMatch(f"engine {self.config.label} resigned")
            if answer.move not in game.legal_moves(state):
                raise EngineIllegalMove(f"engine played an illegal move: {quote(answer.text)}")
        except EngineInterrupted:
            self._end_process()  # the match is over; its answer may still come: start afresh
            raise ResignMatch("interrupted") from None
        except EngineError as exc:
            self._end_process()
            reason = f"engine {self.config.label}: {exc}"
            log.warning("engine_fault", engine=self.config.label, reason=str(exc))
            raise ResignMatch(reason, fault=fault_of(exc)) from None
        self.last_answer = answer
        self._info = answer.info
        if game.name == "go" and answer.text.lower() == "pass":
            self._own_count(session, turn, answer.move)
        log.info(  # one line a move, like mcts_move: the engine's think as measured here
            "engine_move",
            engine=self.config.label,
            move=answer.text,
            think=round(answer.think, 4),
            stopped=answer.stopped,
            **({} if answer.info is None else {"info": answer.info}),
        )
        return answer.move

    def _own_count(self, session: Session, turn: Turn, move: Any) -> None:
        """A GTP engine's pass in Go: its own count of the board (``final_score``) goes
        with the move (`MoveInfo.count`), for the record to keep beside ours. Asked only
        with `OWN_COUNT_TIME` of the budget left; a count it cannot give is left out."""
        game = turn.game
        if (
            not isinstance(session, GtpSession)
            or game.name != "go"
            or turn.stop_at - time.monotonic() < OWN_COUNT_TIME
        ):
            return
        try:
            said = session.final_score([*turn.moves, move], [*turn.movers, turn.seat], turn.stop_at)
        except EngineError as exc:
            self._end_process()  # its answer may still come: a fresh process next game
            log.warning("engine_fault", engine=self.config.label, reason=str(exc))
            return
        count = None if said is None else own_count(said)
        if count is not None:
            base = self._info or MoveInfo()
            self._info = dataclasses.replace(base, count=count)

    def finish(self, outcome: Outcome | None) -> None:
        """A counted Go game: ask a GTP engine's own count (``final_score``) and log it
        beside ours when the two disagree. Ours stands: the board as it stands is what
        Tromp–Taylor counts, while an engine's count takes out the stones it thinks dead."""
        self.engine_score = None
        session, game = self._session, self.game
        if (
            outcome is None
            or outcome.termination is not Termination.SCORE
            or not isinstance(session, GtpSession)
            or game is None
            or game.name != "go"
        ):
            return
        self._abort.clear()  # the match's end interrupted any think; this asks afresh
        try:
            said = session.final_score(self.history, self._movers)
        except EngineError as exc:
            self._end_process()
            log.warning("engine_fault", engine=self.config.label, reason=str(exc))
            return
        ours = game.result_text(outcome)
        self.engine_score = said
        if said is not None and not same_count(said, ours):
            log.warning(
                "engine_final_score",
                engine=self.config.label,
                engine_says=said,
                ours=ours,
                stands="ours",
            )

    def interrupt(self) -> None:
        self._abort.set()

    def move_info(self) -> MoveInfo | None:
        return self._info

    def evaluation(self) -> float | None:
        return None if self._info is None else self._info.eval

    def close(self) -> None:
        self._abort.set()
        self._end_process()


def fault_of(exc: EngineError) -> Fault:
    """How an engine's fault during a game is recorded (``resign.fault``, docs/ENGINES.md)."""
    if isinstance(exc, EngineTimeout):
        return "stalled"  # no answer, even after stop, long past its budget
    if isinstance(exc, EngineIllegalMove):
        return "illegal"
    if isinstance(exc, EngineProtocolError | EngineFlood):
        return "protocol"
    return "crash"  # it exited, was killed, or closed its output


def own_count(said: str) -> str | None:
    """An engine's ``final_score`` as a count the protocol carries (``W+12.0`` as
    ``W+12``, ``Draw`` as ``0``), or None if it is not one."""
    text = said.strip().upper()
    if text in ("0", "DRAW", "JIGO"):
        return "0"
    side, plus, margin = text.partition("+")
    try:
        number = float(margin)
    except ValueError:
        return None
    if side not in ("B", "W") or not plus or not 0 <= number < 10_000:
        return None
    return f"{side}+{round(number, 1):g}"


def same_count(theirs: str, ours: str) -> bool:
    """Whether two Go results agree: ``W+12.0`` and ``W+12``; ``0`` and ``Draw``."""
    if theirs.strip().upper() in ("0", "DRAW", "JIGO"):
        return ours == "0"
    side, plus, margin = theirs.strip().partition("+")
    try:
        return bool(plus) and f"{side.upper()}+{float(margin):g}" == ours
    except ValueError:
        return False


def _engine(**options: Any) -> EngineAgent:
    return EngineAgent(build_config(options))


def _check(**options: Any) -> None:
    build_config(options)


def _player_name(**options: Any) -> str | None:
    return build_config(options).name


#: the defaults an option left out gets (from the spec and the entry), as users are told them
_DEFAULTS = {
    field.name: field.default
    for field in dataclasses.fields(EngineConfig)
    if field.default not in (dataclasses.MISSING, None, ())
}


def _option(key: str, kind: type[str] | type[float], text: str, **more: Any) -> AgentOption:
    default = _DEFAULTS.get(key)
    shown = None if default is None else f"{default:g}" if kind is float else str(default)
    return AgentOption(key, kind, None, text, shown=shown, **more)


ENGINE = register_agent(
    "engine",
    _engine,
    {
        "entry": _option("entry", str, "an entry of the engines file (engine:NAME)"),
        "cmd": _option("cmd", str, "the program (PATH, /usr/local/games, /usr/games)"),
        "args": _option("args", str, "its arguments, split like a shell"),
        "protocol": _option("protocol", str, "text, gtp or gomocup", choices=PROTOCOLS),
        "name": _option("name", str, "the player's name"),
        "workdir": _option("workdir", str, "the directory it runs in"),
        "init": _option("init", str, "commands after the handshake, ';'-separated"),
        "margin": _option("margin", float, "seconds kept back from each budget"),
        "start_timeout": _option("start_timeout", float, "seconds to start and shake hands"),
        "restart": _option(
            "restart", str, "auto: after a fault; always: every game", choices=RESTARTS
        ),
    },
    "an external program over GTP, Gomocup or the arena text protocol (docs/ENGINES.md)",
    positional="entry",
    check=_check,
    player_name=_player_name,
)
