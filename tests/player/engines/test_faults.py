"""Every fault an engine can commit, each by a C engine written to commit it (tests/engines/misbehave.c).

In-process: the `engine` agent plays tic-tac-toe against `random`, with real
subprocesses and real signals. Each fault gives a one-line reason, the whole
process group is ended (nothing left, no zombie), and the next game starts a
fresh process.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import pytest
from structlog.testing import capture_logs

from games import make_game
from player.agent import SearchLimit, play_local_game
from player.baselines import RandomAgent
from player.engines.agent import EngineAgent
from player.errors import AgentError, ResignMatch
from player.spec import make_agent

TTT = make_game("tictactoe", {})


def engine(path: str, *args: str, **options: str) -> EngineAgent:
    extra = "".join(f",{key}={value}" for key, value in options.items())
    agent = make_agent(f"engine:cmd={path},args={' '.join(args)},name=misbehave{extra}")
    assert isinstance(agent, EngineAgent)
    return agent


def play(agent: EngineAgent, seconds: float = 0.5) -> Any:
    return play_local_game(TTT, [agent, RandomAgent(seed=3)], SearchLimit(time=seconds))


def group_gone(pid: int) -> bool:
    try:
        os.killpg(pid, 0)
    except ProcessLookupError:
        return True
    return False


def pid_of(agent: EngineAgent) -> int:
    assert agent.session is not None
    return agent.session.process.pid


def test_a_well_behaved_engine_plays_and_its_stderr_goes_to_the_log(
    engines: dict[str, str],
) -> None:
    agent = engine(engines["misbehave"], "ok")
    with capture_logs() as logs:
        result = play(agent)
        pid = pid_of(agent)
        agent.close()
    assert result.outcome is not None and len(result.moves) >= 5
    stderr = [entry["line"] for entry in logs if entry["event"] == "engine_stderr"]
    assert stderr[:2] == ["thinking about move 1", "thinking about move 2"]
    assert group_gone(pid)


@pytest.mark.parametrize(
    ("mode", "reason"),
    [
        ("exit-now", "engine misbehave: engine exited (code 3) (during its handshake)"),
        ("die-handshake", "engine misbehave: engine exited (code 4) (during its handshake)"),
    ],
)
def test_an_engine_that_dies_at_the_start_stops_the_player(
    engines: dict[str, str], mode: str, reason: str
) -> None:
    agent = engine(engines["misbehave"], mode)
    with pytest.raises(AgentError) as caught:
        play(agent)
    assert str(caught.value) == reason
    assert agent.session is None  # ended, reaped
    agent.close()


def test_a_program_that_cannot_start_is_refused_with_one_line(tmp_path: Any) -> None:
    script = tmp_path / "engine"
    script.write_text("#!/nonexistent/interpreter\n")
    script.chmod(0o755)
    agent = engine(str(script))
    with pytest.raises(AgentError, match=r"^engine misbehave: cannot start .*: no such program"):
        play(agent)


@pytest.mark.parametrize(
    ("mode", "n", "reason", "fault"),
    [
        ("die-at", "2", r"^engine misbehave: engine exited \(code 5\)$", "crash"),
        ("crash-at", "2", r"^engine misbehave: engine killed by SIGKILL \(9\)$", "crash"),
        (
            "garbage-at",
            "1",
            r"said 'hello there, this is not a move' where bestmove or info was expected",
            "protocol",
        ),
        ("badmove-at", "1", r"answered 'zz99', not a move", "illegal"),
        (
            "illegal-at",
            "2",
            r"^engine misbehave: engine played an illegal move: '[a-c][1-3]'$",
            "illegal",
        ),
        (
            "flood-at",
            "1",
            r"flooded its output \(over 10000 lines or 1024 KiB in one answer\)",
            "protocol",
        ),
        ("longline-at", "1", r"flooded its output \(a line over 65536 bytes\)", "protocol"),
    ],
)
def test_a_fault_mid_game_resigns_it_and_the_next_game_has_a_fresh_process(
    engines: dict[str, str], mode: str, n: str, reason: str, fault: str
) -> None:
    agent = engine(engines["misbehave"], mode, n)
    with pytest.raises(ResignMatch, match=reason) as caught:
        play(agent)
    assert "\n" not in caught.value.reason
    assert caught.value.fault == fault  # recorded as that failure, not as a resignation
    assert agent.session is None  # the faulty process is gone at once
    # the next game: a fresh process, which commits the same fault at the same move
    with pytest.raises(ResignMatch, match=reason):
        play(agent)
    agent.close()


def test_a_hung_engine_is_sent_stop_then_given_up_and_its_group_ended(
    engines: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("player.engines.agent.GIVE_UP_AFTER", 0.3)
    agent = engine(engines["misbehave"], "hang-at", "1")
    agent.start(TTT, 0)
    agent.sync(TTT.initial_state(), ())
    pid = pid_of(agent)
    started = time.monotonic()
    with pytest.raises(ResignMatch, match=r"did not answer go \(stop was sent\) within") as caught:
        agent.choose(TTT.initial_state(), SearchLimit(time=0.2))
    assert caught.value.fault == "stalled"
    assert 0.45 <= time.monotonic() - started < 5  # 0.2 s budget, then 0.3 s, then the kill
    assert group_gone(pid)
    agent.close()


def test_an_interrupt_ends_the_wait_at_once(engines: dict[str, str]) -> None:
    agent = engine(engines["misbehave"], "hang-at", "1")
    agent.start(TTT, 0)
    agent.sync(TTT.initial_state(), ())
    timer = threading.Timer(0.3, agent.interrupt)
    timer.start()
    started = time.monotonic()
    with pytest.raises(ResignMatch, match="interrupted") as caught:
        agent.choose(TTT.initial_state(), SearchLimit(time=30))
    assert caught.value.fault is None  # the match is over already: nothing to record
    assert time.monotonic() - started < 5
    agent.close()


def test_an_engine_answers_after_stop(engines: dict[str, str]) -> None:
    agent = engine(engines["misbehave"], "stop-at", "1")
    agent.start(TTT, 0)
    agent.sync(TTT.initial_state(), ())
    move = agent.choose(TTT.initial_state(), SearchLimit(time=0.2))
    assert move in TTT.legal_moves(TTT.initial_state())
    assert agent.last_answer is not None and agent.last_answer.stopped
    assert 0.2 <= agent.last_answer.think < 2
    agent.close()


def test_children_left_behind_are_ended_with_the_group(engines: dict[str, str]) -> None:
    agent = engine(engines["misbehave"], "children")
    with capture_logs():
        agent.start(TTT, 0)
        agent.sync(TTT.initial_state(), ())
        agent.choose(TTT.initial_state(), SearchLimit(time=1))
    info = agent.move_info()
    assert info is None or info.pv == ()
    pid = pid_of(agent)
    assert not group_gone(pid)
    started = time.monotonic()
    agent.close()  # quit: the parent exits; its children ignore SIGTERM: SIGKILL to the group
    assert group_gone(pid)
    assert time.monotonic() - started < 5


def test_an_engine_that_ignores_quit_and_sigterm_is_killed(engines: dict[str, str]) -> None:
    agent = engine(engines["misbehave"], "ignore-term")
    play(agent)
    pid = pid_of(agent)
    started = time.monotonic()
    agent.close()  # quit, 1 s, SIGTERM (ignored), 0.5 s, SIGKILL
    assert 1.4 <= time.monotonic() - started < 5
    assert group_gone(pid)
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: no zombie


def test_a_flood_on_stderr_is_logged_up_to_its_cap(engines: dict[str, str]) -> None:
    agent = engine(engines["misbehave"], "stderr-flood")
    with capture_logs() as logs:
        play(agent)
        agent.close()
    logged = sum(entry["event"] == "engine_stderr" for entry in logs)
    dropped = [entry["lines"] for entry in logs if entry["event"] == "engine_stderr_dropped"]
    assert dropped and logged + sum(dropped) == 10_000  # every line logged or counted
    # at most 500 a game; on a loaded machine the flood may still be read when the
    # next game starts (a new budget), so it may span two games
    assert logged in (500, 1000)
