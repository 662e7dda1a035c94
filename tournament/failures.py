"""Each player's failures, counted from finished games: the columns fastchess prints.

Why a module of its own: a crash, a stall, a time loss and an illegal move
are the player's doing, not a result over the board, and a reader of a
tournament's standings (or, later, a ladder's rating list) wants them counted
per player without opening every game. The count is made from what every
stored result has (its seats, scores and termination), so the standings of
`tournament.report`, the web pages and a ladder can all build on it, and old
records count as they always read: a fault that an older arena recorded as a
``resignation`` stays a resignation, not a guessed crash.

Which termination is which kind (docs/TOURNAMENTS.md, "Failures"):

* ``time``: ``timeout``, the server's clock fell;
* ``illegal``: ``illegal_move``, on the server or caught by the player's own
  check of its engine's answer;
* ``crash``: ``crash`` (its program exited, was killed or closed its output)
  and ``disconnect`` (its connection dropped and did not come back);
* ``stall``: ``stalled``, its program stopped answering and its player gave up;
* ``protocol``: ``protocol_error``, output that is no answer, a flood, or a
  connection closed by the server for breaking the protocol.

The failing player is the one seat that scored least; a game that ended so
with no single loser (nobody is ever scored that way today) counts for nobody.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, fields

from games import Termination

__all__ = ["KINDS", "Failures", "count_failures", "failure_of"]

#: termination -> the kind of failure it counts as
KINDS: dict[str, str] = {
    Termination.TIMEOUT.value: "time",
    Termination.ILLEGAL_MOVE.value: "illegal",
    Termination.CRASH.value: "crash",
    Termination.DISCONNECT.value: "crash",
    Termination.STALLED.value: "stall",
    Termination.PROTOCOL_ERROR.value: "protocol",
}


@dataclass(frozen=True, slots=True)
class Failures:
    """One player's failures by kind (the keys of `as_dict`, in this order)."""

    time: int = 0
    illegal: int = 0
    crash: int = 0
    stall: int = 0
    protocol: int = 0

    @property
    def total(self) -> int:
        return self.time + self.illegal + self.crash + self.stall + self.protocol

    def plus(self, kind: str) -> Failures:
        """These failures and one more of `kind` (a key of `as_dict`)."""
        counts = self.as_dict()
        counts[kind] += 1
        return Failures(**counts)

    def as_dict(self) -> dict[str, int]:
        return {field.name: getattr(self, field.name) for field in fields(self)}


def failure_of(
    seats: Sequence[str], scores: Sequence[float], termination: str
) -> tuple[str, str] | None:
    """(player, kind) when a game that ended so is a player's failure, else None."""
    kind = KINDS.get(termination)
    if kind is None or not scores or len(seats) != len(scores):
        return None
    least = min(scores)
    losers = [seat for seat, score in enumerate(scores) if score == least]
    if len(losers) != 1:
        return None
    return seats[losers[0]], kind


def count_failures(
    names: Iterable[str], games: Iterable[tuple[Sequence[str], Sequence[float], str]]
) -> dict[str, Failures]:
    """Each of `names`' failures over `games` (seats, scores, termination); others ignored."""
    counts = {name: Failures() for name in names}
    for seats, scores, termination in games:
        found = failure_of(seats, scores, termination)
        if found is not None and found[0] in counts:
            player, kind = found
            counts[player] = counts[player].plus(kind)
    return counts
