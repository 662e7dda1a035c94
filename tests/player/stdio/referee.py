"""A GTP referee for tests: two engine processes play one game, driven over GTP alone."""

from __future__ import annotations

import contextlib
import subprocess
from collections.abc import Sequence
from typing import Any

from games import Game


class GtpProcess:
    """One engine program spoken to over its pipes, one command at a time."""

    def __init__(self, argv: Sequence[str]) -> None:
        self.process = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def ask(self, command: str) -> tuple[bool, str]:
        """(success, the answer's text) of `command`."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        lines: list[str] = []
        while True:
            line = self.process.stdout.readline()
            if line == "":
                raise EOFError(f"the engine closed its output after {command!r}")
            if line.strip() == "" and lines:
                break
            if line.strip():
                lines.append(line.rstrip("\n"))
        head = lines[0]
        text = "\n".join([head[1:].strip(), *lines[1:]]).strip()
        return head.startswith("="), text

    def close(self) -> None:
        with contextlib.suppress(EOFError, OSError):
            self.ask("quit")
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def referee(
    game: Game[Any, Any],
    engines: Sequence[GtpProcess],
    vertex: Any,
    parse: Any,
    setup: Sequence[str] = (),
    max_plies: int = 400,
    implied_passes: bool = False,
) -> tuple[list[Any], str | None]:
    """Play one game of `game` between `engines` (seat 0 black); every move is checked
    by our rules. (moves, the resigning colour or None). With `implied_passes` (the
    Othello convention: gtp-rhino refuses ``play white pass``) a pass is not sent on:
    the colour of the next command implies it."""
    for engine in engines:
        for command in setup:
            ok, text = engine.ask(command)
            assert ok, f"{command}: {text}"
    state = game.initial_state()
    moves: list[Any] = []
    pending: list[list[str]] = [[], []]  # each engine's moves not yet sent
    while game.outcome(state) is None and len(moves) < max_plies:
        seat = game.to_move(state)
        colour = "bw"[seat]
        for command in pending[seat]:
            ok, text = engines[seat].ask(command)
            assert ok, f"{command}: {text}"
        pending[seat] = []
        ok, answer = engines[seat].ask(f"genmove {colour}")
        assert ok, answer
        if answer.lower() == "resign":
            return moves, colour
        move = parse(answer)
        assert move in game.legal_moves(state), f"{answer} is illegal"
        state = game.play(state, move)
        moves.append(move)
        if not (implied_passes and answer.lower() == "pass"):
            pending[1 - seat].append(f"play {colour} {answer}")
    for seat, engine in enumerate(engines):  # both see the game to its end
        for command in pending[seat]:
            ok, text = engine.ask(command)
            assert ok, f"{command}: {text}"
    return moves, None
