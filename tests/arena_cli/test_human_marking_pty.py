"""Two people at two terminals mark Go's dead stones: `arena play go human`, twice, in ptys.

A real `arena serve`, two `arena play go human` in pseudo-terminals (each says
``hello.human``). They play a 5×5 game to two passes; the board then shows the
marked stones in lower case; Black types ``dead A3``, White ``resume`` and passes
again, then both ``accept`` and the count takes the stone off.
"""

from __future__ import annotations

import re
from pathlib import Path

import pexpect

from tests.arena_cli.cli import run, seen, terminal
from tests.server.serverproc import server_process

MOVE_PROMPT = r"left\] move> "
DEAD_PROMPT = r"left\] dead> "
#: Black walls column C, White column D, then White drops a stone at A3 in Black's area
MOVES = ["C1", "D1", "C2", "D2", "C3", "D3", "C4", "D4", "C5", "D5", "pass", "A3", "pass", "pass"]


def person(port: int, name: str) -> pexpect.spawn[str]:
    return terminal(
        "play", "go", "human", "--port", str(port), "--name", name,
        "-o", "size=5", "-o", "komi=0.5", "--tc", "30+0", timeout=60,
    )  # fmt: skip


def test_two_people_at_terminals_mark_resume_and_agree(tmp_path: Path) -> None:
    with server_process(tmp_path / "arena.db", tmp_path / "server.log") as server:
        first, second = person(server.port, "ann"), person(server.port, "bob")
        try:
            colours = {}
            for child in (first, second):
                child.expect(r"you play (Black|White) ===")
                match = child.match
                assert isinstance(match, re.Match)
                colours[match.group(1)] = child
            black, white = colours["Black"], colours["White"]
            for ply, move in enumerate(MOVES):
                mover = (black, white)[ply % 2]
                mover.expect(MOVE_PROMPT)
                mover.sendline(move)

            # both passed: both boards show the marking, nothing marked yet
            for child in (black, white):
                child.expect(r"marking dead stones \(x, o\): 0 marked")
                child.expect(DEAD_PROMPT)
            black.sendline("dead B2")  # an empty point: told, the prompt again
            black.expect("no stone on B2 to mark")
            black.expect(DEAD_PROMPT)
            black.sendline("dead A3")
            for child in (black, white):
                child.expect(r"marking dead stones \(x, o\): 1 marked; counted without them:"
                             r" area Black 15, White 10: B\+4\.5")  # fmt: skip
                shown = seen(child)
                assert re.search(r"(?m)^3 o \. X O \. 3", shown.replace("\r", "")), shown
                child.expect(r"dead: A3; ")
                child.expect(DEAD_PROMPT)

            # White would rather play on: its pass is taken back and it moves again
            white.sendline("resume")
            white.expect(MOVE_PROMPT)
            white.sendline("pass")
            for child in (black, white):
                child.expect(r"marking dead stones \(x, o\): 0 marked")
                child.expect(DEAD_PROMPT)
            black.sendline("dead A3")
            for child in (black, white):
                child.expect("dead: A3; ")
                child.expect(DEAD_PROMPT)
            white.sendline("accept")
            black.expect(r"White accepted")
            black.expect(DEAD_PROMPT)
            black.sendline("accept")
            for child, verdict in ((black, "you win"), (white, "you lose")):
                # the final board is counted without the agreed dead stone
                child.expect(
                    r"game over: 1 dead stone \(x, o\) taken off; area Black 15, White 10: B\+4\.5"
                )
                child.expect(rf"=== game over: {verdict} \((B\+4\.5|1-0), score\) ===")
            for child in (black, white):
                child.expect(pexpect.EOF)
        finally:
            first.close()
            second.close()
        assert first.exitstatus == 0 and second.exitstatus == 0
    log = (tmp_path / "server.log").read_text()
    assert "marking_resumed" in log
    assert "with 1 dead stone taken off (A3): both agreed" in log
    # `arena show` counts the stored game's final board without the agreed dead stone
    match = re.search(r'"match": "(m[0-9a-z]+)"', log)
    assert match is not None
    shown = run("show", "--db", str(tmp_path / "arena.db"), match.group(1))
    assert shown.returncode == 0, shown.stderr
    assert "game over: 1 dead stone (x, o) taken off; area Black 15, White 10: B+4.5" in (
        shown.stdout
    )
    assert "3 o . X O . 3" in shown.stdout
    assert "with 1 dead stone taken off (A3): both agreed" in shown.stdout
