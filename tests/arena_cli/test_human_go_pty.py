"""A person plays Go at the terminal: `arena play go human --vs ...` in a pseudo-terminal.

The person here is a script that reads what the terminal shows (the board,
the "... played X" lines) and types as a person would: moves in GTP
vertices, `pass` and `resign`. It keeps its own copy of the game, from the
moves it read, only to choose moves that capture (so the count of captures
the board shows must change) and to check the board drawn against it.
"""

from __future__ import annotations

import re

import pexpect

from games.go import LETTERS, PASS, Go, GoState
from tests.arena_cli.cli import seen, terminal

PROMPT = r"left\] move> "
PLAYED = re.compile(r"(?m)^(Black|White)(?: \(you\))? played (pass|[A-HJ-T]\d+)")


class Person:
    """A scripted person at `arena play go human`: it follows the game from what is shown."""

    def __init__(self, child: pexpect.spawn[str], size: int) -> None:
        self.child = child
        self.game = Go(size=size)
        self.state: GoState = self.game.initial_state()
        self.shown = ""
        self.verdict = ""

    def to_prompt(self) -> bool:
        """Read up to the next prompt (True) or the end of the game (False), following moves."""
        index = self.child.expect([PROMPT, r"=== game over: ([^=]+) ==="])
        self.shown = seen(self.child)
        if index == 1:
            match = self.child.match
            assert isinstance(match, re.Match)
            self.verdict = match.group(1)
        for _, vertex in PLAYED.findall(self.shown):
            self.state = self.game.apply(self.state, self.game.parse_move(vertex))
        return index == 0

    def capturing_move(self) -> str | None:
        """A legal move that captures, else one next to an opposing stone (to make captures)."""
        game, state = self.game, self.state
        legal = [m for m in game.legal_moves(state) if m != PASS]
        mover = game.to_move(state)
        before = captures(state, mover)
        for move in legal:
            if captures(game.apply(state, move), mover) > before:
                return game.format_move(move)
        theirs = stones(state, 1 - mover)
        n = game.size
        for move in legal:
            row, col = divmod(move, n)
            for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
                if 0 <= r < n and 0 <= c < n and (theirs >> game.tables.position[r * n + c]) & 1:
                    return game.format_move(move)
        return game.format_move(legal[len(legal) // 2]) if legal else None

    def play(self, text: str) -> None:
        self.child.sendline(text)


def captures(state: GoState, seat: int) -> int:
    """The stones `seat` has captured so far."""
    return state[8] if seat else state[7]


def stones(state: GoState, seat: int) -> int:
    """The bitboard of `seat`'s stones."""
    return state[1] if seat else state[0]


def board_rows(shown: str, size: int) -> list[str]:
    """The last board drawn in `shown`: its rows, top first, each as printed."""
    lines = shown.replace("\r", "").splitlines()
    header = "  " + " " * (size >= 10) + " ".join(LETTERS[:size])
    starts = [i for i, line in enumerate(lines) if line == header]
    assert len(starts) >= 2, shown
    top = starts[-2]
    assert lines[top + size + 1] == header, shown  # the letters below as above
    return lines[top + 1 : top + size + 1]


def check_board(person: Person, size: int) -> None:
    """The board drawn agrees with the game: coordinates on all four sides, last move marked."""
    rows = board_rows(person.shown, size)
    game, state = person.game, person.state
    last = state[6]
    for index, line in enumerate(rows):
        number = str(size - index)
        left = f"{number:>{len(str(size))}}"
        assert line.startswith(f"{left} ") or line.startswith(f"{left}("), line
        assert line.endswith(f" {number}") or line.endswith(f"){number}"), line  # right
        points = re.sub(r"^\s*\d+|\d+$", "", line)
        stones = points.replace("(", " ").replace(")", " ").split()
        assert len(stones) == size, line
        for col, symbol in enumerate(stones):
            move = index * size + col
            pos = game.tables.position[move]
            want = "X" if (state[0] >> pos) & 1 else "O" if (state[1] >> pos) & 1 else "."
            assert symbol == want, (game.format_move(move), line)
            marked = f"({symbol})" in points[2 * col : 2 * col + 3]
            assert marked == (move == last), (game.format_move(move), line)
    captures = f"captures: Black (X) {state[7]}, White (O) {state[8]}"
    assert captures in person.shown, person.shown


def test_a_person_plays_9x9_captures_passes_and_the_game_is_counted() -> None:
    child = terminal("play", "go", "human", "--vs", "random:seed=7", "--tc", "30+0", timeout=60)
    person = Person(child, 9)
    try:
        child.expect(r"=== new match of go\(size=9, komi=7\.0\)")
        # play toward captures until the board counts one for us
        captured = False
        for _ in range(100):
            assert person.to_prompt(), person.shown
            check_board(person, 9)
            mover = person.game.to_move(person.state)
            if captures(person.state, mover):
                captured = True
                break
            move = person.capturing_move()
            assert move is not None
            person.play(move)
        assert captured, "no capture in 100 moves"
        # then pass until the opponent passes too: two passes end the game, counted by area
        passes = 0
        while True:  # at a prompt
            person.play("pass")
            passes += 1
            assert passes < 250
            if not person.to_prompt():
                break
        child.expect(pexpect.EOF)
        shown = person.shown + seen(child)
    finally:
        child.close()
    assert child.exitstatus == 0, shown
    assert re.search(r"(Black|White) \(you\) played pass", shown), shown
    black, white = person.game.area(person.state)
    outcome = person.game.outcome(person.state)
    assert outcome is not None  # both passed (or the move cap)
    margin = black - white - 7
    result = "0" if margin == 0 else f"{'B' if margin > 0 else 'W'}+{abs(margin)}"
    assert f"game over: area Black {black}, White {white}: {result}" in shown, shown
    assert person.verdict.endswith(", score)"), person.verdict
    assert "Traceback" not in shown


def test_a_person_plays_19x19_with_coordinates_on_every_side_and_resigns() -> None:
    child = terminal(
        "play", "go", "human", "--vs", "random:seed=3", "-o", "size=19", "--tc", "30+0"
    )
    person = Person(child, 19)
    try:
        child.expect(r"=== new match of go\(size=19, komi=7\.5\)")
        for _ in range(6):
            assert person.to_prompt(), person.shown
            check_board(person, 19)
            move = person.capturing_move()
            assert move is not None
            person.play(move)
        assert person.to_prompt()
        rows = board_rows(person.shown, 19)
        assert rows[0].startswith("19 ") and rows[0].endswith("19"), rows[0]
        assert rows[-1].startswith(" 1 ") and rows[-1].endswith(" 1"), rows[-1]
        person.play("pass")
        assert person.to_prompt()
        assert re.search(r"(Black|White) \(you\) played pass", person.shown), person.shown
        assert "last move pass" in person.shown or "last move: " in person.shown
        person.play("resign")
        child.expect("you resign")
        child.expect(r"=== game over: you lose \(([^,]+), resignation\) ===")
        child.expect(pexpect.EOF)
        shown = seen(child)
    finally:
        child.close()
    assert child.exitstatus == 0, shown
    assert "Traceback" not in shown
