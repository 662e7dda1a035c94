"""A person at a terminal: `arena play ... human --vs mcts` in a pseudo-terminal (pexpect).

The test types as a user would: it asks for the legal moves, plays one, and
reads the board, the clocks and the result that a person would see.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pexpect

from tests.arena_cli.cli import ARENA, ROOT, clean_env

PROMPT = r"left\] move> "


def group(child: pexpect.spawn[str], index: int) -> str:
    """Group `index` of the pattern `child` last matched."""
    match = child.match
    assert isinstance(match, re.Match)
    return str(match.group(index))


def before(child: pexpect.spawn[str]) -> str:
    return child.before or ""


def spawn(*args: str) -> pexpect.spawn[str]:
    return pexpect.spawn(
        ARENA[0],
        [*ARENA[1:], *args],
        cwd=str(ROOT),
        env=clean_env(),
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 100),
    )


def play_first_legal_moves(
    child: pexpect.spawn[str], before_move: Callable[[str], None] | None = None
) -> tuple[str, int]:
    """Play the first legal move at every prompt to the game's end: (verdict, moves played).

    `before_move` sees what the person saw before each of their moves.
    """
    moves = 0
    while True:
        index = child.expect([PROMPT, "=== game over: ([^=]+) ==="])
        if index == 1:
            return group(child, 1), moves
        if before_move is not None:
            before_move(before(child))
        child.sendline("moves")
        child.expect(r"legal moves: ([a-z0-9 ]+)\r\n")
        first = group(child, 1).split()[0]
        child.expect(PROMPT)
        child.sendline(first)
        moves += 1


def test_a_person_plays_a_full_clocked_game_against_mcts() -> None:
    child = spawn("play", "tictactoe", "human", "--vs", "mcts:time=0.05", "--tc", "0.5+1")
    try:
        child.expect(r"waiting for an opponent: tictactoe at a 0.5\+1 clock on 127\.0\.0\.1:\d+")
        child.expect("=== new match of tictactoe")

        def sees_both_clocks(shown: str) -> None:
            # before each of its turns the person sees both clocks, theirs marked running
            assert re.search(r"clock: X.* \| O.*\(\+1s a move\)", shown), shown
            assert "(you)" in shown.split("clock:")[-1]

        verdict, moves = play_first_legal_moves(child, sees_both_clocks)
        assert moves >= 2
        assert verdict.split(" (")[0] in ("you win", "you lose", "draw")
        child.expect(r"played 1 match: \d W, \d D, \d L")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0, before(child)
    assert "Traceback" not in before(child)


def test_bad_moves_are_explained_and_ctrl_c_ends_the_game_cleanly() -> None:
    child = spawn("play", "connect4", "human", "--vs", "random")
    try:
        child.expect(PROMPT)
        child.sendline("9")
        child.expect("invalid move")
        child.expect(PROMPT)
        child.sendline("banana")
        child.expect("invalid move")
        child.expect(PROMPT)
        child.sendintr()  # Ctrl-C at the prompt
        child.expect(r"interrupted \(Ctrl-C\)")
        child.expect(pexpect.EOF)
        seen = before(child)
    finally:
        child.close()
    assert child.exitstatus == 130, (child.exitstatus, child.signalstatus)
    assert "Traceback" not in seen
