"""What a person sees at the terminal of `arena play ... human` (issue 26, items 6 and 9).

A seek that pairs at once is not told to wait for somebody else; the in-game
help fits the terminal; reversi says once whose move it is.
"""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pexpect

from tests.arena_cli.cli import arena, clean_env, free_port, seen, terminal

PROMPT = r"left\] move> "


def test_a_human_paired_at_once_is_not_told_to_wait_for_others(tmp_path: Path) -> None:
    env = clean_env(ARENA_PORT=str(free_port()))
    with arena("serve", cwd=tmp_path, env=env) as server:
        server.wait_for("listening")
        with arena("play", "connect4", "mcts:time=0.2", "--tc", "any", env=env) as engine:
            engine.wait_for('"seeking"')  # the engine waits, for any time control
            child = terminal("play", "connect4", "human", env=env, cwd=tmp_path)
            try:
                child.expect(r"waiting for an opponent: connect4 at a 5\+3 clock on 127\.0\.0\.1")
                child.expect("=== new match of connect4")
                told = seen(child)
                child.expect(PROMPT)
                child.sendline("quit")
                child.expect(r"played 1 match: 0 W, 0 D, 1 L")
                child.expect(pexpect.EOF)
            finally:
                child.close()
            assert child.exitstatus == 0
            assert "not paired with you" not in told, told
            assert "to get an opponent" not in told, told
            assert engine.finish() == 0, engine.stderr  # its one game is over
        assert server.stop(signal.SIGINT)[0] == 130


def test_the_help_fits_the_terminal_and_reversi_says_whose_move_once() -> None:
    child = terminal("play", "reversi", "human", "--vs", "random", "--tc", "1+0")
    try:
        child.expect(PROMPT)
        child.sendline("help")
        child.expect(r"commands:\r\n")
        child.expect(r"help +this text\r\n")
        shown = seen(child)
        child.expect(PROMPT)
        child.sendline("moves")
        child.expect(r"legal moves: (\w+)")
        match = child.match
        assert isinstance(match, re.Match)
        child.expect(PROMPT)
        child.sendline(match.group(1))  # then the opponent answers: two moves observed
        child.expect(r"your move as (Black|White) \(you\)")
        observed = seen(child)
        child.expect(PROMPT)
        child.sendline("quit")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    lines = shown.splitlines()
    assert "<move>   play a move in the game's notation:" in shown, shown
    assert "(a1 = top left, Othello style)" in " ".join(shown.split()), shown
    assert all(len(line) <= 100 for line in lines), shown  # nothing left to wrap
    assert all(line.strip() != ")" for line in lines), shown
    said = re.findall(r"(Black|White)(?: \(you\))? to move", observed)
    boards = observed.count("  a b c d e f g h")
    assert said and len(said) == boards, observed  # once per board shown, not twice
