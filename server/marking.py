"""Dead stones between people: after two passes in Go, both seats agree on the dead.

Why a room of its own: Tromp–Taylor counts the board as it stands, which is
right for engines (they capture what is dead before passing) and wrong for
people, who expect (as on OGS and KGS) to mark the dead groups together and
have them taken off before the count. This is the bookkeeping of that one
agreement, kept apart from the match's clock and seats: a set of dead points,
changed a whole chain at a time, and each seat's acceptance of one exact set.
Any change withdraws every acceptance, so the count only ever takes off a set
that both seats saw and accepted. It never awaits and owns no time: the match
(server/match.py) decides when marking starts and ends (docs/PROTOCOL.md,
"Dead stones").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from games import InvalidMoveError, Outcome
from games.go import Go, GoState
from server.errors import MarkingError as MarkingError


class DeadStones:
    """The dead stones two seats are agreeing on, on the final board `state` of `game`."""

    def __init__(self, game: Go, state: GoState) -> None:
        self.game = game
        self.state = state
        self.dead: frozenset[int] = frozenset()
        self.accepted = [False, False]

    def toggle(self, point: Any) -> frozenset[int]:
        """Mark the chain on `point` dead, or alive again if it was dead; the chain."""
        try:
            move = self.game.decode_move(point)
        except InvalidMoveError as exc:
            raise MarkingError(str(exc)) from None
        chain = self.game.chain(self.state, move) if move >= 0 else frozenset()
        if not chain:
            raise MarkingError(f"no stone on {self.game.format_move(move)} to mark")
        self.dead = self.dead - chain if move in self.dead else self.dead | chain
        self.accepted = [False, False]
        return chain

    def accept(self, seat: int, dead: Iterable[Any]) -> bool:
        """`seat` accepts the set `dead` it was shown; True once both seats have."""
        if frozenset(dead) != self.dead:
            raise MarkingError("the dead stones changed since you saw them: accept the new set")
        self.accepted[seat] = True
        return self.agreed

    @property
    def agreed(self) -> bool:
        return all(self.accepted)

    def outcome(self) -> Outcome:
        """The count with the agreed dead stones taken off."""
        return self.game.score(self.game.removing(self.state, self.dead))

    def area(self) -> tuple[int, int]:
        """Each side's area with the marked stones taken off."""
        return self.game.area(self.game.removing(self.state, self.dead))
