"""What `arena serve --ladder` says of a ladder: its name, game, time control and anchors.

Why a value of its own: a ladder is configured once, when the server starts,
and every part of the server that meets it (pairing, ratings, the web API)
reads the same frozen value. The text forms are parsed here, each with a
one-line error that names the bad part (docs/LADDER.md):

* ``--ladder [NAME=]GAME[:KEY=VALUE,...]``: the name defaults to the game spec
  as written (``go:size=9``);
* ``--ladder-tc [NAME=]TC``: ``M+S`` a clock (minutes + seconds a move) or
  ``Ns`` seconds per move (``0.2s``); without it, the server's default;
* ``--ladder-anchor [NAME:]BOT=RATING``: the bot keeps this rating in the list;
* ``--ladder-resident [NAME=][BOT@]AGENTSPEC``: the server runs this agent as a
  bot of the ladder (server/ladder_residents.py); BOT defaults to the name the
  spec gives (``default_bot``, told by the caller: the agent kinds live in
  `player`, which the server does not import).

NAME may be left out of the last three where the server has a single ladder.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from protocol.messages import Clock

#: what a ladder's name may be (the wire's `seek.ladder`, docs/PROTOCOL.md)
LADDER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:=,+-]{0,63}$")
#: what a resident bot's name may be (it is written before an ``@``: no ``:``, ``=`` or ``,``)
RESIDENT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$")


@dataclass(frozen=True, slots=True)
class ResidentSpec:
    """A bot the server runs itself in a ladder: its name and its agent spec."""

    bot: str
    agent: str


@dataclass(frozen=True, slots=True)
class LadderSpec:
    """One ladder: a game with its options, one time control, and its anchors."""

    name: str
    game: str
    #: the options as written (the game coerces and checks them when the server starts)
    options: tuple[tuple[str, str], ...] = ()
    #: seconds per move; None with no clock: the server's default time control
    move_time: float | None = None
    clock: Clock | None = None
    #: bots whose rating is fixed: (name, rating)
    anchors: tuple[tuple[str, float], ...] = ()
    #: bots the server runs itself (``--ladder-resident``)
    residents: tuple[ResidentSpec, ...] = ()

    def __post_init__(self) -> None:
        if not LADDER_NAME.match(self.name):
            raise ValueError(
                f"ladder name {self.name!r} must be 1-64 letters, digits or ._:=,+-"
                " (starting with a letter or digit)"
            )
        if self.move_time is not None and not 0 < self.move_time <= 86_400:
            raise ValueError(f"ladder {self.name}: move time must be in (0, 86400] seconds")

    @property
    def option_dict(self) -> dict[str, Any]:
        return dict(self.options)


def parse_ladder(text: str) -> LadderSpec:
    """``[NAME=]GAME[:KEY=VALUE,...]`` -> LadderSpec; ValueError naming what is wrong."""
    from games.registry import parse_options

    text = text.strip()
    head, colon, tail = text.partition(":")
    name, equals, game = head.partition("=")
    if not equals:
        name, game = text, head
    game = game.strip()
    if not game:
        raise ValueError(f"--ladder {text!r}: no game (write [NAME=]GAME[:KEY=VALUE,...])")
    options = parse_options(tail) if colon else {}
    return LadderSpec(name=name.strip(), game=game, options=tuple(options.items()))


def parse_time_control(text: str) -> tuple[float | None, Clock | None]:
    """``M+S`` -> a clock; ``Ns`` -> N seconds a move; ValueError otherwise."""
    raw = text.strip()
    if raw.endswith("s") and "+" not in raw:
        try:
            seconds = float(raw[:-1])
        except ValueError:
            seconds = math.nan
        if not 0 < seconds <= 86_400:
            raise ValueError(f"{text!r} is not a move time: write e.g. 0.5s (0 < s <= 86400)")
        return seconds, None
    minutes, plus, increment = raw.partition("+")
    try:
        clock = Clock(float(minutes) * 60, float(increment) if plus else 0.0)
    except ValueError:
        raise ValueError(
            f"{text!r} is not a time control: M+S for a clock (5+3) or Ns a move (0.5s)"
        ) from None
    if not (0 < clock.initial <= 86_400 and 0 <= clock.increment <= 3600):
        raise ValueError(f"{text!r}: a clock is (0, 1440] minutes + [0, 3600] seconds")
    return None, clock


def _target(ladders: Sequence[LadderSpec], name: str | None, flag: str, text: str) -> int:
    """The index of the ladder `name` (None: the only one)."""
    if not ladders:
        raise ValueError(f"{flag} {text!r}: no --ladder to apply it to")
    if name is None:
        if len(ladders) != 1:
            raise ValueError(
                f"{flag} {text!r}: name the ladder (there are {len(ladders)}: "
                f"{', '.join(spec.name for spec in ladders) or 'none'})"
            )
        return 0
    for index, spec in enumerate(ladders):
        if spec.name == name:
            return index
    raise ValueError(
        f"{flag} {text!r}: no ladder {name!r}"
        f" (ladders: {', '.join(spec.name for spec in ladders) or 'none'})"
    )


def with_time_control(ladders: Sequence[LadderSpec], text: str) -> list[LadderSpec]:
    """``[NAME=]TC`` applied to its ladder."""
    name, equals, tc = text.rpartition("=")
    index = _target(ladders, name if equals else None, "--ladder-tc", text)
    move_time, clock = parse_time_control(tc)
    changed = list(ladders)
    changed[index] = replace(changed[index], move_time=move_time, clock=clock)
    return changed


def with_anchor(ladders: Sequence[LadderSpec], text: str) -> list[LadderSpec]:
    """``[NAME:]BOT=RATING`` added to its ladder's anchors."""
    head, equals, value = text.rpartition("=")
    if not equals or not head:
        raise ValueError(f"--ladder-anchor {text!r}: write [LADDER:]BOT=RATING")
    ladder, colon, bot = head.rpartition(":")
    try:
        rating = float(value)
    except ValueError:
        rating = math.nan
    if not math.isfinite(rating):
        raise ValueError(f"--ladder-anchor {text!r}: the rating must be a number")
    index = _target(ladders, ladder if colon else None, "--ladder-anchor", text)
    if not 1 <= len(bot) <= 64:
        raise ValueError(f"--ladder-anchor {text!r}: a bot's name is 1-64 characters")
    changed = list(ladders)
    spec = changed[index]
    anchors = (*tuple((n, r) for n, r in spec.anchors if n != bot), (bot, rating))
    changed[index] = replace(spec, anchors=anchors)
    return changed


def with_resident(
    ladders: Sequence[LadderSpec], text: str, default_bot: Callable[[str], str]
) -> list[LadderSpec]:
    """``[NAME=][BOT@]AGENTSPEC`` added to its ladder's residents.

    The ladder's name is a known ladder's name followed by ``=`` (ladder names may hold
    ``=`` and ``:``), or else what comes before a first ``=`` that holds no ``:`` or
    ``@`` (an agent's options hold them: ``mcts:time=1``); the bot's name is what comes
    before an ``@`` that precedes any ``:``, ``=`` or ``,``.
    """
    flag = "--ladder-resident"
    raw = text.strip()
    ladder: str | None = None
    for spec in sorted(ladders, key=lambda spec: -len(spec.name)):
        if raw.startswith(spec.name + "="):
            ladder, raw = spec.name, raw[len(spec.name) + 1 :]
            break
    else:
        head, equals, tail = raw.partition("=")
        if equals and not any(mark in head for mark in ":@"):
            ladder, raw = head, tail
    index = _target(ladders, ladder, flag, text)
    bot: str | None = None
    at = raw.find("@")
    if at >= 0 and not any(mark in raw[:at] for mark in ":=,"):
        bot, raw = raw[:at].strip(), raw[at + 1 :]
    agent = raw.strip()
    if not agent:
        raise ValueError(f"{flag} {text!r}: no agent (write [LADDER=][BOT@]AGENTSPEC)")
    if agent.partition(":")[0].strip() == "human":
        raise ValueError(f"{flag} {text!r}: a resident plays by itself: not a human")
    if bot is None:
        try:
            bot = default_bot(agent)
        except ValueError as exc:
            raise ValueError(f"{flag} {text!r}: {exc}") from None
    if not RESIDENT_NAME.match(bot):
        raise ValueError(
            f"{flag} {text!r}: a bot's name is 1-64 letters, digits or ._+-"
            f" (starting with a letter or digit), not {bot!r}"
        )
    changed = list(ladders)
    spec = changed[index]
    if any(resident.bot == bot for resident in spec.residents):
        raise ValueError(
            f"{flag} {text!r}: ladder {spec.name} has a resident {bot!r} already:"
            " name each one (BOT@AGENTSPEC)"
        )
    changed[index] = replace(spec, residents=(*spec.residents, ResidentSpec(bot, agent)))
    return changed


def check_ladders(ladders: Sequence[LadderSpec]) -> None:
    """Refuse two ladders of one name, an unknown game, bad options, a game for more or
    fewer than two players (ValueError naming the ladder)."""
    from games import make_game

    seen: set[str] = set()
    for spec in ladders:
        if spec.name in seen:
            raise ValueError(f"two ladders are named {spec.name!r}: name one NAME=GAME")
        seen.add(spec.name)
        try:
            game = make_game(spec.game, spec.option_dict)
        except ValueError as exc:
            raise ValueError(f"ladder {spec.name}: {exc}") from None
        if game.num_players != 2:
            raise ValueError(f"ladder {spec.name}: {game.name} is not a two-player game")
