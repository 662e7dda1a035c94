"""`arena engines check`: a compliance run of one engine, step by step, like fastchess's --compliance.

Start and handshake, then one game on each seat against a seeded `random`
player at a fixed budget, every answer timed and checked for legality, then
the engine's end (and that nothing of its process group is left). Each step is
reported as it happens; the run stops at the first failed step.

Go adds a warning (not a failure): a GTP engine that passes while its own
``final_status_list dead`` lists stones leaves them on a board that
Tromp–Taylor counts as it stands, and gives those points away.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.base import Game
from player.agent import SearchLimit
from player.baselines import RandomAgent
from player.engines.agent import EngineAgent
from player.engines.errors import EngineError
from player.engines.gtp import GtpSession
from player.engines.process import EngineProcess
from player.errors import AgentError, ResignMatch
from player.errors import CheckFailed as CheckFailed


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the check: what, whether it passed, and a one-line detail.

    A failed step carries the engine's last lines of standard error, where an
    engine explains itself ("cannot play tictactoe").
    """

    name: str
    ok: bool
    detail: str
    stderr: tuple[str, ...] = ()
    #: passed, with something the user should know (a Go engine that passes with dead stones)
    warning: bool = False


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds >= 0.01 else f"{seconds * 1000:.1f} ms"


def check_engine(
    agent: EngineAgent,
    game: Game[Any, Any],
    report: Callable[[Step], None],
    *,
    move_time: float = 1.0,
    seed: int = 1,
) -> bool:
    """Run the check of `agent` on `game`, calling `report` for every step; True if all passed."""
    failed = False
    launched: list[EngineProcess] = []

    def step(name: str, ok: bool, detail: str, warning: bool = False) -> None:
        nonlocal failed
        failed = failed or not ok
        process = agent.last_process
        stderr = () if ok or process is None else process.stderr_tail()
        report(Step(name, ok, detail, stderr, warning))
        if not ok:
            raise CheckFailed(name)

    try:
        _run(agent, game, step, move_time, seed, launched)
    except CheckFailed:
        pass
    finally:
        process = launched[-1] if launched else None
        started = time.perf_counter()
        agent.close()
        if process is not None:
            left = process.group_alive()
            report(
                Step(
                    "quit",
                    not left,
                    f"ended in {_ms(time.perf_counter() - started)}"
                    + ("; processes of its group are still running" if left else "; nothing left"),
                )
            )
            failed = failed or left
    return not failed


def _run(
    agent: EngineAgent,
    game: Game[Any, Any],
    step: Callable[..., None],
    move_time: float,
    seed: int,
    launched: list[EngineProcess],
) -> None:
    config = agent.config
    started = time.perf_counter()
    try:
        session = agent.launch()
    except AgentError as exc:
        step("start", False, str(exc))
        return
    launched.append(session.process)
    about = ", ".join(f"{key} {value!r}" for key, value in session.about.items() if value)
    step(
        "start",
        True,
        f"{config.program} (pid {session.process.pid}, protocol {config.protocol})"
        f" answered its handshake in {_ms(time.perf_counter() - started)}"
        + (f": {about}" if about else ""),
    )
    limit = SearchLimit(time=move_time)
    for engine_seat in range(game.num_players):
        label = f"game {engine_seat + 1}"
        seat_name = game.seat_names[engine_seat]
        opponent = RandomAgent(seed=seed + engine_seat)
        agents: list[Any] = [opponent] * game.num_players
        agents[engine_seat] = agent
        try:
            for seat, player in enumerate(agents):
                player.start(game, seat)
                player.sync(game.initial_state(), ())
        except AgentError as exc:
            step(label, False, str(exc))
            return
        state = game.initial_state()
        thinks: list[float] = []
        ply = 0
        warned = False
        while (outcome := game.outcome(state)) is None:
            seat = game.to_move(state)
            if seat == engine_seat:
                try:
                    move = agent.choose(state, limit)
                except ResignMatch as exc:
                    step(f"{label} ply {ply + 1}", False, exc.reason)
                    return
                answer = agent.last_answer
                think = answer.think if answer is not None else 0.0
                thinks.append(think)
                over = think > move_time
                step(
                    f"{label} ply {ply + 1}",
                    not over,
                    f"{game.format_move(move)} in {_ms(think)}"
                    + (f", over its budget of {_ms(move_time)}" if over else ""),
                )
                if not warned and game.name == "go" and game.format_move(move) == "pass":
                    warned = _dead_stones_warning(agent, f"{label} ply {ply + 1}", step)
            else:
                move = opponent.choose(state, limit)
            new_state = game.play(state, move)
            for player in {id(a): a for a in agents}.values():
                player.observe(state, move, new_state)
            state, ply = new_state, ply + 1
        result = {1.0: "won", 0.5: "drew", 0.0: "lost"}.get(outcome.scores[engine_seat], "scored")
        mean = sum(thinks) / len(thinks) if thinks else 0.0
        step(
            label,
            True,
            f"as {seat_name} against random: {result} ({outcome.termination.value}) in {ply}"
            f" plies; answers mean {_ms(mean)}, max {_ms(max(thinks, default=0.0))}",
        )
        agent.finish(outcome)


def _dead_stones_warning(agent: EngineAgent, name: str, step: Callable[..., None]) -> bool:
    """Warn if the engine just passed with stones it counts dead on the board; True if so."""
    session = agent.session
    if not isinstance(session, GtpSession):
        return False
    try:
        dead = session.dead_stones()
    except EngineError:
        return False  # not a compliance failure: the command is optional
    if not dead:
        return False
    shown = " ".join(dead[:12]) + (" ..." if len(dead) > 12 else "")
    step(
        name,
        True,
        f"warning: it passed while its own final_status_list dead lists {len(dead)}"
        f" stone{'s' if len(dead) != 1 else ''} ({shown}); the arena counts the board as"
        " it stands (Tromp-Taylor), so they count for their owner: give the engine its"
        " option to capture dead stones before passing (GNU Go: --capture-all-dead)",
        warning=True,
    )
    return True
