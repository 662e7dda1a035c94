"""`arena play`'s work: settings from the flags and environment, then play (or --vs)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import trio

from arena_cli.options import (
    HUMAN_TC,
    address,
    apply_engines_option,
    env_setting,
    parse_servers,
    parse_time_control,
)
from arena_cli.play_settings import PlaySettings as PlaySettings
from games import make_game, parse_options
from player.client import ClientError, MatchResult, PlayerClient, PlayerConfig, default_player_name
from player.spec import make_agent, parse_agent_spec
from protocol.messages import Clock, Seeking


def merge_spec(spec: str, extra: Sequence[str]) -> str:
    """`spec` with the ``key=value`` items of `extra` added (they override the spec's)."""
    name, options = parse_agent_spec(spec)
    for item in extra:
        options.update(parse_options(item))
    if not options:
        return name
    return f"{name}:" + ",".join(f"{key}={value}" for key, value in options.items())


def _items(values: list[str] | None, var: str) -> list[str]:
    if values is not None:
        return values
    raw = os.environ.get(var, "").strip()
    return [raw] if raw else []


def resolve(args: argparse.Namespace) -> PlaySettings:
    """Apply the environment fallbacks; ValueError names the missing or bad setting."""
    apply_engines_option(getattr(args, "engines", None))
    game = env_setting(args.game, "ARENA_GAME", str, "")
    if not game:
        raise ValueError("no game given (argument GAME or $ARENA_GAME); see `arena games`")
    base_spec = env_setting(args.agent, "ARENA_AGENT", str, "")
    if not base_spec:
        raise ValueError("no agent given (argument AGENTSPEC or $ARENA_AGENT), e.g. mcts:time=0.5")
    spec = merge_spec(base_spec, _items(args.agent_option, "ARENA_AGENT_OPTIONS"))
    options: dict[str, str] = {}
    for item in _items(args.option, "ARENA_GAME_OPTIONS"):
        options.update(parse_options(item))
    server = env_setting(getattr(args, "server", None), "ARENA_SERVER", str, "")
    if server and (args.host is not None or args.port is not None):
        raise ValueError("give --server HOST:PORT,... or --host/--port, not both")
    nodes = parse_servers(server) if server else [address(args)]
    (host, port), others = nodes[0], tuple(nodes[1:])
    room = env_setting(args.room, "ARENA_ROOM", str, "") or None
    move_time = env_setting(args.move_time, "ARENA_MOVE_TIME", float, None)
    tc = env_setting(args.tc, "ARENA_TC", str, "")
    human = parse_agent_spec(spec)[0] == "human"
    if tc and move_time is not None:
        raise ValueError("give --tc (a clock) or --move-time (per move), not both")
    ladder = env_setting(getattr(args, "ladder", None), "ARENA_LADDER", str, "")
    if ladder and (tc or move_time is not None):
        raise ValueError("a ladder has its own time control: leave out --tc and --move-time")
    if ladder and (room is not None or args.pool or getattr(args, "vs", None) is not None):
        raise ValueError("--ladder plays the ladder's games: leave out --room, --pool and --vs")
    pooled = room is not None or bool(env_setting(args.pool, "ARENA_POOL", str, "")) or bool(ladder)
    if tc and pooled:
        raise ValueError(
            "--tc applies to seeks in the lobby; a room or pool plays --move-time"
            " or the server's default time control"
        )
    if not tc and move_time is None and human and not pooled:
        tc = HUMAN_TC
    clock, any_time = None, False
    if tc:
        parsed = parse_time_control(tc)
        if parsed is None:
            any_time = True
        else:
            clock = Clock(*parsed)
    vs = getattr(args, "vs", None)
    if vs is not None:
        if room is not None or args.pool:
            raise ValueError("--vs plays in the lobby: leave out --room and --pool")
        if any_time:
            raise ValueError("--vs starts the opponent: give it a time control, not 'any'")
        parse_agent_spec(vs)
    embedded = vs is not None and args.host is None and args.port is None and not server
    if getattr(args, "db", None) is not None and not embedded:
        raise ValueError("--db is for --vs on the embedded server (a server keeps its own)")
    serve_port = getattr(args, "serve_port", None)
    if serve_port is not None:
        if not embedded:
            raise ValueError(
                "--serve-port is for --vs on the embedded server (--host/--port name a server)"
            )
        if not 0 <= serve_port <= 65535:
            raise ValueError(f"--serve-port must be in 0..65535, not {serve_port}")
    config = PlayerConfig(
        host=host,
        port=port,
        servers=others,
        name=env_setting(args.name, "ARENA_NAME", str, "") or default_player_name(spec),
        games=env_setting(args.games, "ARENA_GAMES", int, 0 if ladder else 1),
        move_time=move_time,
        clock=clock,
        any_time=any_time,
        room=room,
        seat=env_setting(args.seat, "ARENA_SEAT", int, None),
        pool=env_setting(args.pool, "ARENA_POOL", str, ""),
        secret=env_setting(args.secret, "ARENA_SECRET", str, ""),
        ladder=ladder,
        connect_wait=env_setting(args.connect_wait, "ARENA_CONNECT_WAIT", float, 30.0),
    )
    return PlaySettings(game, options, spec, config, vs, embedded, serve_port or 0)


def tally(results: Sequence[MatchResult]) -> str:
    """``played 3 matches: 2 W, 0 D, 1 L (score 2/3)``."""
    counts = dict.fromkeys(("win", "draw", "loss", "unknown"), 0)
    for result in results:
        counts[result.verdict] += 1
    score = sum(r.score for r in results if r.score is not None)
    known = len(results) - counts["unknown"]
    noun = "match" if len(results) == 1 else "matches"
    text = (
        f"played {len(results)} {noun}: {counts['win']} W, {counts['draw']} D,"
        f" {counts['loss']} L (score {score:g}/{known})"
    )
    if counts["unknown"]:
        text += f", {counts['unknown']} lost on disconnect"
    return text


def _print_retry(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    from arena_cli.logs import json_lines
    from arena_cli.options import check_port_free
    from arena_cli.play_vs import check_db, seeking_text, vs_session

    try:
        settings = resolve(args)
        game = make_game(settings.game, settings.options)  # unknown game / bad options: first
        if settings.vs is not None:
            check_db(args.db)  # cheap checks first: an mcts opponent compiles its search
            opponent = make_agent(settings.vs)  # a bad opponent spec: before starting anything
            try:
                opponent.check_game(game)
            finally:
                opponent.close()
        if settings.embedded:
            check_port_free("127.0.0.1", settings.serve_port, "--serve-port")
        agent = make_agent(settings.spec)
        agent.check_game(game)
    except ValueError as exc:
        print(f"arena play: {exc}", file=sys.stderr)
        return 2
    if (settings.human or settings.vs is not None) and args.log_level is None:
        from arena_cli.logs import configure_logging

        # keep the board (and the embedded server's chatter) out: only warnings, on stderr
        json = None if args.log_format is None else args.log_format == "json"
        configure_logging("warning", json=json, stream=sys.stderr)

    results: list[MatchResult] = []

    def report(result: MatchResult) -> None:
        results.append(result)
        print(result.summary(), flush=True)

    def seeking(message: Seeking, host: str, port: int) -> None:
        if settings.human or (message.others and not message.paired):
            print(seeking_text(settings, message, host, port), flush=True)

    status = 0
    try:
        if settings.vs is None:
            config = settings.config
            client = PlayerClient(
                agent,
                settings.game,
                settings.options,
                settings.config,
                on_result=report,
                on_seeking=lambda message: seeking(message, config.host, config.port),
                on_retry=None if json_lines() else _print_retry,
            )
            trio.run(client.run)
        else:
            trio.run(vs_session, settings, agent, args.db, report, seeking)
    except (ClientError, OSError) as exc:
        print(f"arena play: {exc}", file=sys.stderr)
        status = 1
    finally:
        agent.close()
    if results or status == 0:
        print(tally(results), flush=True)
    return status
