"""`arena tournament`'s configuration: the flags turned into a `TournamentConfig`.

A new tournament is built from the flags (players, game options, openings,
adjudication); `--resume ID` loads the stored one. Every mistake is a
ValueError with one line for the user, raised before any game.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

from arena_cli.options import env_setting
from games import make_game, parse_options
from tournament.adjudication import Adjudication
from tournament.config import TournamentConfig, TournamentPlayer
from tournament.openings import FileOpenings, RandomOpenings, load_opening_file
from tournament.results import TournamentRecords
from tournament.sprt import parse_sprt

__all__ = ["player_names", "resolve_config", "server_address", "validate_specs"]


def player_names(specs: Sequence[str]) -> list[TournamentPlayer]:
    """Players from ``SPEC`` or ``NAME=SPEC`` items; repeated names get ``#2``, ``#3``.

    A ``SPEC`` alone is named by its ``name=`` option (engines), else by itself.
    """
    from player.spec import spec_name

    players: list[TournamentPlayer] = []
    seen: dict[str, int] = {}
    for item in specs:
        name, sep, spec = item.partition("=")
        if not sep or ":" in name or "," in name:
            name, spec = spec_name(item) or item, item
        name = name.strip()
        seen[name] = seen.get(name, 0) + 1
        if seen[name] > 1:
            name = f"{name}#{seen[name]}"
        players.append(TournamentPlayer(name[:64], spec.strip()))
    return players


def validate_specs(specs: Sequence[str]) -> None:
    """Fail early, in this process, on an agent spec the player processes would reject.

    The agents are not built: building an MCTS agent loads its compiler, which
    costs seconds at start and at exit in a process that never searches. A
    constraint only the agent's constructor checks shows in the player's log
    (the player is withdrawn after `--max-failures` failed starts).
    """
    from player.spec import check_agent_spec

    for spec in specs:
        check_agent_spec(spec)


def _openings(args: argparse.Namespace, game: Any) -> dict[str, Any] | None:
    if args.openings and args.random_openings is not None:
        raise ValueError("give --openings FILE or --random-openings PLIES, not both")
    if args.random_openings is not None:
        book = RandomOpenings(game, args.random_openings, args.seed)
        book.opening(0)  # an impossible length fails now, not at the first game
        return book.describe()
    if args.openings:
        openings = load_opening_file(game, args.openings)
        return FileOpenings(
            openings, order=args.openings_order, seed=args.seed, source=args.openings
        ).describe()
    return None


def resolve_config(args: argparse.Namespace, records: TournamentRecords) -> TournamentConfig:
    """The stored configuration (--resume) or a new one from the flags (ValueError if bad)."""
    if args.resume:
        found = records.load(args.resume)
        if found is None:
            raise ValueError(f"no tournament {args.resume!r} in {records.store.path}")
        return found[0]
    if not args.game:
        raise ValueError("name a game (e.g. connect4) or --resume ID")
    players = player_names(args.player) + [TournamentPlayer(name, None) for name in args.remote]
    if args.instances < 1:
        raise ValueError(f"--instances must be >= 1, not {args.instances}")
    players = [TournamentPlayer(p.name, p.spec, args.instances if p.spec else 1) for p in players]
    options: dict[str, Any] = {}
    for item in args.option:
        options.update(parse_options(item))
    game = make_game(args.game, options)  # validates the game and its options
    move_time = env_setting(args.move_time, "ARENA_MOVE_TIME", float, 0.5)
    if args.max_pairs is not None and not args.sprt:
        raise ValueError("--max-pairs limits an SPRT; give --sprt too")
    resign = _run_rule("--adjudicate-resign", args.adjudicate_resign)
    draw = _run_rule("--adjudicate-draw", args.adjudicate_draw)
    rules = Adjudication(
        max_plies=args.max_plies,
        proven_nodes=args.adjudicate_proven,
        resign_moves=None if resign is None else resign[0],
        resign_score=None if resign is None else resign[1],
        draw_moves=None if draw is None else draw[0],
        draw_score=None if draw is None else draw[1],
    )
    return TournamentConfig(
        game=game.name,
        options=game.options,
        players=tuple(players),
        games_per_pair=args.games_per_pair,
        move_time=move_time,
        seed=args.seed,
        format="sprt" if args.sprt else "gauntlet" if args.gauntlet else "round-robin",
        sprt=parse_sprt(args.sprt).as_dict() if args.sprt else None,
        max_pairs=args.max_pairs,
        openings=_openings(args, game),
        adjudication=rules.as_dict(),
    )


def server_address(text: str | None) -> tuple[str, int] | None:
    if not text:
        return None
    host, _, port_text = text.rpartition(":")
    if not host or not port_text.isdigit():
        raise ValueError(f"--server must be HOST:PORT, not {text!r}")
    return host, int(port_text)


def _run_rule(flag: str, text: str | None) -> tuple[int, float] | None:
    """``N:SCORE`` of an evaluation rule (ValueError with the flag's name if malformed)."""
    if text is None:
        return None
    count, sep, score = text.partition(":")
    try:
        if not sep:
            raise ValueError
        return int(count), float(score)
    except ValueError:
        raise ValueError(f"{flag} must be N:SCORE (e.g. 6:0.05), not {text!r}") from None
