"""The result of one match as a player saw it, and its one-line summary."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from games import Outcome


@dataclass(frozen=True, slots=True)
class MatchResult:
    """One finished match as seen by this player.

    `outcome` is None when the match was lost track of (the seat could not be
    taken back after a disconnect); its result is then unknown here.
    """

    match: str
    game: str
    seat: int
    seat_name: str
    players: tuple[str, ...]
    outcome: Outcome | None
    reason: str
    plies: int
    #: the think time the agent got, when less than it asked for (e.g. capped by the server)
    think: str = ""
    #: the result as the game writes it (`Game.result_text`: ``1-0``, Go's ``B+3.5``)
    result_text: str = ""

    @property
    def score(self) -> float | None:
        """This seat's score (1 win, 0.5 draw, 0 loss), or None if unknown."""
        return None if self.outcome is None else self.outcome.scores[self.seat]

    @property
    def verdict(self) -> Literal["win", "draw", "loss", "unknown"]:
        """The result for this seat in one word."""
        if self.outcome is None:
            return "unknown"
        if self.outcome.winner is None:
            return "draw"
        return "win" if self.outcome.winner == self.seat else "loss"

    def summary(self) -> str:
        """A one-line summary, e.g. ``match m1 (tictactoe): win as X vs bob, 1-0 by line``."""
        opponents = ", ".join(p for s, p in enumerate(self.players) if s != self.seat) or "?"
        head = (
            f"match {self.match} ({self.game}): {self.verdict} as {self.seat_name} vs {opponents}"
        )
        if self.outcome is None:
            return f"{head} ({self.reason})"
        text = f"{head}, {self.result_text or self.outcome.result()} by {self.outcome.termination.value} after {self.plies} plies"
        return f"{text}; {self.think}" if self.think else text
