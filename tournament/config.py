"""What defines a tournament: its players, format, openings and adjudication rules.

Why this shape: the configuration is stored when a tournament starts and is
everything ``--resume`` needs, so it is plain JSON (the SPRT settings, the
opening book's `describe()` and the adjudication rules are dicts), and its id
is a digest of it: the same configuration is the same tournament. Fields left
at their defaults are not part of the digest, so tournaments stored before a
field existed keep their ids.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from tournament.adjudication import Adjudication
from tournament.sprt import SPRT

__all__ = ["FORMATS", "TournamentConfig", "TournamentPlayer"]

#: round-robin: every pair of players; gauntlet: the first player against each other;
#: sprt: two players, pairs until the test decides (or `max_pairs`)
FORMATS = ("round-robin", "gauntlet", "sprt")


@dataclass(frozen=True, slots=True)
class TournamentPlayer:
    """A participant: a unique name and, for a local player, the agent spec to launch."""

    name: str
    spec: str | None  # None: a remote player that connects by itself
    instances: int = 1

    def __post_init__(self) -> None:
        if not 1 <= len(self.name) <= 64:
            raise ValueError(f"player name must be 1 to 64 characters, not {self.name!r}")
        if self.instances < 1:
            raise ValueError(f"instances must be >= 1, not {self.instances}")


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    """Everything that defines a tournament (and therefore its id)."""

    game: str
    options: dict[str, Any]
    players: tuple[TournamentPlayer, ...]
    games_per_pair: int = 2
    move_time: float = 1.0
    seed: int = 0
    format: str = "round-robin"
    sprt: dict[str, Any] | None = None  # SPRT.as_dict() (format sprt)
    max_pairs: int | None = None  # sprt: stop undecided after this many pairs
    openings: dict[str, Any] | None = None  # OpeningBook.describe(); None: initial position
    adjudication: dict[str, Any] = field(default_factory=dict)  # Adjudication.as_dict()

    def __post_init__(self) -> None:
        names = [p.name for p in self.players]
        if len(names) < 2:
            raise ValueError(f"a tournament needs at least 2 players, not {len(names)}")
        if len(set(names)) != len(names):
            duplicate = next(n for n in names if names.count(n) > 1)
            raise ValueError(f"player names must be unique; {duplicate!r} appears twice")
        if self.games_per_pair < 2 or self.games_per_pair % 2:
            raise ValueError(
                "games per pair must be even and >= 2 (each pair plays both seats),"
                f" not {self.games_per_pair}"
            )
        if not self.move_time > 0:
            raise ValueError(f"move time must be > 0 seconds, not {self.move_time!r}")
        if self.format not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.format == "sprt":
            if len(names) != 2:
                raise ValueError(f"an SPRT is between exactly 2 players, not {len(names)}")
            if self.sprt is None:
                raise ValueError("an SPRT tournament needs its settings (elo0, elo1, ...)")
            SPRT.from_dict(self.sprt)  # checks them
            if self.max_pairs is not None and self.max_pairs < 1:
                raise ValueError(f"max pairs must be >= 1, not {self.max_pairs}")
        Adjudication.from_dict(self.adjudication)  # checks the rules

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]

    @property
    def test(self) -> SPRT | None:
        """The SPRT settings (None unless the format is sprt)."""
        return SPRT.from_dict(self.sprt) if self.sprt is not None else None

    @property
    def rules(self) -> Adjudication:
        return Adjudication.from_dict(self.adjudication)

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TournamentConfig:
        data = json.loads(text)
        data["players"] = tuple(TournamentPlayer(**p) for p in data["players"])
        return cls(**data)

    @property
    def id(self) -> str:
        """A stable id: the same configuration is the same tournament (and resumes)."""
        identity = asdict(self)
        for player in identity["players"]:
            player.pop("instances")  # how many processes run a player does not change it
        for key, default in _DEFAULTS.items():
            if identity.get(key) == default:
                del identity[key]
        digest = hashlib.sha256(json.dumps(identity, sort_keys=True).encode()).hexdigest()
        return f"t-{digest[:10]}"

    def describe(self) -> str:
        """One line: format, game, players, time, openings."""
        what = {
            "round-robin": f"round-robin, {self.games_per_pair} games per pair",
            "gauntlet": f"gauntlet of {self.names[0]}, {self.games_per_pair} games per pair",
            "sprt": f"SPRT {self.test.describe() if self.test else ''}"
            + (f", at most {self.max_pairs} pairs" if self.max_pairs else ""),
        }[self.format]
        openings = self.openings or {"kind": "none"}
        book = {
            "none": "",
            "random": f", random openings of {openings.get('plies')}"
            + (" ply" if openings.get("plies") == 1 else " plies"),
            "file": f", openings from {openings.get('file') or 'a file'} ({openings.get('order')})",
        }.get(str(openings.get("kind")), "")
        rules = self.rules.describe()
        return f"{self.game} ({', '.join(self.names)}): {what}, {self.move_time:g}s/move{book}" + (
            f", adjudication: {rules}" if rules else ""
        )


#: fields added after the first version, at the value that means "as before"
_DEFAULTS: dict[str, Any] = {
    "format": "round-robin",
    "sprt": None,
    "max_pairs": None,
    "openings": None,
    "adjudication": {},
}
