"""The chess clock of a match: remaining time per seat, increment, bounded lag compensation.

Why this shape: the rules are plain arithmetic on seconds measured by the
match (which owns the event loop and the deadlines), so they live here as a
small value that tests drive with exact numbers.

Policy (docs/PROTOCOL.md, "Time controls"), in the spirit of lichess:

- Each seat starts with `initial` seconds. The seat to move spends its own
  time from the moment its ``turn`` is sent until its move is received; the
  clock is paused while that seat is disconnected (and the reconnect grace
  runs instead). After each move the mover gets `increment` seconds.
- Lag compensation: the server cannot tell thinking from network delay, so
  it refunds up to `lag_margin` seconds of each move's time from a per-seat
  quota. The quota starts at ``LAG_QUOTA_MOVES * lag_margin``, never exceeds
  it, and regains ``lag_margin / 2`` per move. A seat can therefore never gain
  more than ``LAG_QUOTA_MOVES * lag_margin + moves * lag_margin / 2`` seconds
  from compensation over a whole game, however it plays its clock.
- The flag falls when a seat's time, plus the compensation it could still
  get on this move, runs out: a timeout, forfeit by default.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from protocol.messages import Clock

#: the lag quota holds this many moves' worth of full compensation
LAG_QUOTA_MOVES = 5.0


@dataclass
class GameClock:
    """Remaining seconds and lag quota of every seat of one match."""

    clock: Clock
    lag_margin: float
    seats: int
    remaining: list[float] = field(default_factory=list)
    quota: list[float] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.lag_margin < 0:
            raise ValueError(f"lag_margin must be >= 0 seconds, not {self.lag_margin!r}")
        if not self.remaining:
            self.remaining = [self.clock.initial] * self.seats
        if not self.quota:
            self.quota = [self.quota_max] * self.seats

    @property
    def quota_max(self) -> float:
        return LAG_QUOTA_MOVES * self.lag_margin

    @property
    def refill(self) -> float:
        return self.lag_margin / 2

    def allowance(self, seat: int) -> float:
        """The most compensation `seat` can get on its current move (slack before the flag)."""
        return min(self.lag_margin, self.quota[seat])

    def move_made(self, seat: int, used: float, last_segment: float) -> float:
        """Charge `seat` for a move that took `used` seconds of its clock; return the refund.

        `last_segment` is the time since the last ``turn`` was sent (the part
        that carries one network round trip); earlier segments (before an
        illegal move or a reconnection) were already thinking time.
        """
        refund = max(0.0, min(self.allowance(seat), last_segment, used))
        self.quota[seat] = min(self.quota_max, self.quota[seat] - refund + self.refill)
        left = self.remaining[seat] - used + refund
        self.remaining[seat] = max(0.0, left) + self.clock.increment
        return refund

    def view(self, seat_to_move: int | None = None, left_now: float | None = None) -> list[float]:
        """Every seat's remaining seconds; the mover's as `left_now` when given."""
        values = list(self.remaining)
        if seat_to_move is not None and left_now is not None:
            values[seat_to_move] = max(0.0, left_now)
        return [round(v, 3) for v in values]
