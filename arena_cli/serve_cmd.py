"""`arena serve`: run the match server until interrupted (Ctrl-C or SIGTERM)."""

from __future__ import annotations

import argparse
import os
import signal
import sys

import structlog
import trio

from arena_cli import stops
from arena_cli.errors import WebListenError as WebListenError
from arena_cli.options import (
    DB_HELP,
    add_engines_option,
    apply_engines_option,
    check_port_free,
    env_setting,
)
from server.app import ArenaServer, TlsError, tls_context
from server.config import build_config, parse_clock
from server.ladder_spec import (
    LadderSpec,
    parse_ladder,
    with_anchor,
    with_resident,
    with_time_control,
)
from server.web import serve_web
from server.web.config import (
    DEFAULT_ENGINES,
    ENGINE_NAME,
    WebConfig,
    parse_engine,
    parse_web_address,
)
from store import StoreError
from store.interface import Database
from store.open import open_database

log = structlog.get_logger("arena.server")


def add_server_options(parser: argparse.ArgumentParser) -> None:
    """Flags shared by commands that run a server (serve, tournament). None = not given."""
    parser.add_argument(
        "--host", default=None, help="address to listen on [$ARENA_HOST, 127.0.0.1]"
    )
    parser.add_argument("--port", type=int, default=None, help="TCP port [$ARENA_PORT, 4242]")
    parser.add_argument("--db", default=None, help=DB_HELP)
    parser.add_argument("--no-db", action="store_true", help="keep no records")
    parser.add_argument(
        "--move-time", type=float, default=None, help="seconds per move [$ARENA_MOVE_TIME, 1.0]"
    )
    parser.add_argument(
        "--tc",
        default=None,
        metavar="M+S",
        help="default time control as a clock, M minutes + S seconds a move (e.g. 5+3),"
        " for seeks that ask for none [$ARENA_TC; default: --move-time per move]",
    )
    parser.add_argument(
        "--lag-margin",
        type=float,
        default=None,
        help="network slack before a timeout [$ARENA_LAG_MARGIN, 0.2]",
    )
    parser.add_argument(
        "--illegal-retries",
        type=int,
        default=None,
        help="extra tries after an illegal move; 0 = forfeit [$ARENA_ILLEGAL_RETRIES, 0]",
    )
    parser.add_argument(
        "--reconnect-grace",
        type=float,
        default=None,
        help="seconds a dropped seat may take to come back [$ARENA_RECONNECT_GRACE, 10]",
    )
    parser.add_argument(
        "--max-frame",
        type=int,
        default=None,
        help="largest accepted frame in bytes [$ARENA_MAX_FRAME, 65536]",
    )
    parser.add_argument(
        "--tls-cert",
        default=None,
        help="serve TLS with this PEM certificate chain [$ARENA_TLS_CERT]",
    )
    parser.add_argument(
        "--tls-key", default=None, help="the certificate's PEM private key [$ARENA_TLS_KEY]"
    )
    parser.add_argument(
        "--referee",
        default=None,
        metavar="SPEC",
        help="a GTP engine (e.g. engine:gnugo) asked for the dead stones after a Go game"
        " between engines, taken off before the count (default: the board as it stands)",
    )
    parser.add_argument(
        "--accounts",
        choices=("open", "registered"),
        default=None,
        help="open: unregistered names may play; registered: only registered names"
        " [$ARENA_ACCOUNTS, open]",
    )


def config_overrides(args: argparse.Namespace) -> dict[str, object]:
    overrides: dict[str, object] = {
        "host": args.host,
        "port": args.port,
        "db": args.db,
        "move_time": args.move_time,
        "clock": None if args.tc is None else parse_clock(args.tc),
        "lag_margin": args.lag_margin,
        "illegal_retries": args.illegal_retries,
        "reconnect_grace": args.reconnect_grace,
        "max_frame": args.max_frame,
        "tls_cert": args.tls_cert,
        "tls_key": args.tls_key,
        "accounts": args.accounts,
    }
    if args.no_db:
        overrides["db"] = ""
    return overrides


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "serve",
        help="run the match server",
        description="Run the match server until Ctrl-C or SIGTERM: it pairs seekers, runs"
        " the matches (legality, turn order, time limits, reconnects), records them in"
        " SQLite and, with --web, serves the web app. On a stop, open matches are recorded"
        " as aborted and clients are told.",
    )
    add_server_options(parser)
    balancer = parser.add_argument_group(
        "behind a TCP load balancer (docs/PROTOCOL.md, section 6: the PROXY protocol)"
    )
    balancer.add_argument(
        "--proxy-protocol",
        action="store_const",
        const=True,
        default=None,
        help="connections from a --trusted-proxy begin with a PROXY protocol header (v1 or v2)"
        " naming the client, whose address the limits count; off by default"
        " [$ARENA_PROXY_PROTOCOL]",
    )
    balancer.add_argument(
        "--trusted-proxy",
        action="append",
        default=None,
        metavar="ADDRESS[/BITS]",
        help="a load balancer's address or network (repeatable)"
        " [$ARENA_TRUSTED_PROXIES, comma-separated]",
    )
    limits = parser.add_argument_group(
        "limits (docs/PROTOCOL.md, section 6; the others: $ARENA_<NAME> only)"
    )
    limits.add_argument(
        "--max-connections",
        type=int,
        default=None,
        metavar="N",
        help="connections at once, from everyone [$ARENA_MAX_CONNECTIONS, 10000]",
    )
    limits.add_argument(
        "--max-connections-per-address",
        type=int,
        default=None,
        metavar="N",
        help="connections at once from one client address; raise it for a host that runs"
        " many bots [$ARENA_MAX_CONNECTIONS_PER_ADDRESS, 256]",
    )
    limits.add_argument(
        "--trusted-address",
        action="append",
        default=None,
        metavar="ADDRESS[/BITS]",
        help="a client address or network exempt from the per-address limits (connections,"
        " message rate), e.g. 127.0.0.1 for bots on this host (repeatable)"
        " [$ARENA_TRUSTED_ADDRESSES, comma-separated]",
    )
    ladders = parser.add_argument_group("ladders (docs/LADDER.md)")
    ladders.add_argument(
        "--ladder",
        action="append",
        default=None,
        metavar="[NAME=]GAME[:K=V,...]",
        help="run a ladder: bots that join it (arena play ... --ladder NAME) are paired"
        " game after game and rated; the name defaults to the game spec (repeatable)",
    )
    ladders.add_argument(
        "--ladder-tc",
        action="append",
        default=None,
        metavar="[NAME=]TC",
        help="a ladder's time control: M+S a clock (5+3) or Ns seconds a move (0.5s)"
        " [the server's default] (repeatable)",
    )
    ladders.add_argument(
        "--ladder-anchor",
        action="append",
        default=None,
        metavar="[NAME:]BOT=RATING",
        help="the bot keeps this rating in the ladder's list, e.g. gnugo=1800 (repeatable)",
    )
    ladders.add_argument(
        "--ladder-resident",
        action="append",
        default=None,
        metavar="[NAME=][BOT@]AGENTSPEC",
        help="the server runs this agent or engine as a bot of the ladder, restarted when it"
        " exits; BOT defaults to the engine's or agent's name, e.g."
        " 'go9=gnugo@engine:cmd=gnugo,args=--mode gtp --level 10,protocol=gtp' (repeatable)",
    )
    web = parser.add_argument_group("web app (docs/WEB.md)")
    web.add_argument(
        "--web",
        default=None,
        metavar="[HOST:]PORT",
        help="also serve the web app here; off by default [$ARENA_WEB]",
    )
    web.add_argument(
        "--engine",
        action="append",
        default=None,
        metavar="[NAME=]SPEC",
        help="an engine humans may play, e.g. mcts=mcts:time=1 (repeatable)"
        " [$ARENA_WEB_ENGINES, comma-free specs separated by ';'; default: random and mcts]",
    )
    add_engines_option(web)
    web.add_argument(
        "--engine-limit",
        type=int,
        default=None,
        help="engine processes at once [$ARENA_WEB_ENGINE_LIMIT, 4]",
    )
    web.add_argument(
        "--web-origin",
        action="append",
        default=None,
        metavar="URL",
        help="another origin (http://host:port) allowed to open the WebSocket (repeatable)",
    )
    parser.set_defaults(func=run, log_stream="stdout")


def ladder_specs(args: argparse.Namespace) -> tuple[LadderSpec, ...] | None:
    """The ladders of ``--ladder``, their ``--ladder-tc``, ``--ladder-anchor`` and
    ``--ladder-resident`` (None: none)."""
    specs = [parse_ladder(text) for text in args.ladder or ()]
    for text in args.ladder_tc or ():
        specs = with_time_control(specs, text)
    for text in args.ladder_anchor or ():
        specs = with_anchor(specs, text)
    residents = getattr(args, "ladder_resident", None) or ()
    if residents:
        apply_engines_option(getattr(args, "engines", None))  # engine:NAME names its entry
    for text in residents:
        specs = with_resident(specs, text, resident_name)
    return tuple(specs) or None


def resident_name(agent: str) -> str:
    """A resident's default name: the one its spec gives (an engine's ``name``), else the
    engine's entry or program (``gnugo``), else the agent's kind (``random``)."""
    from player.spec import parse_agent_spec, spec_name

    given = spec_name(agent)
    if given:
        return given
    kind, options = parse_agent_spec(agent)
    program = options.get("entry") or options.get("cmd") if kind == "engine" else None
    return os.path.basename(program.strip()) if program else kind


def check_residents(ladders: tuple[LadderSpec, ...]) -> None:
    """Refuse at start (ValueError naming it) a resident whose spec `arena play` would
    refuse: an unknown agent or option; an engine whose protocol cannot play the game.
    (An agent is not built here: an MCTS one may compile its search for a minute.)"""
    from games import make_game
    from player.spec import check_agent_spec, make_agent

    for ladder in ladders:
        for resident in ladder.residents:
            where = f"--ladder-resident {ladder.name}={resident.bot}@{resident.agent}"
            try:
                info, _ = check_agent_spec(resident.agent)
                if info.name == "engine":
                    agent = make_agent(resident.agent)  # an engine starts only to play
                    try:
                        agent.check_game(make_game(ladder.game, ladder.option_dict))
                    finally:
                        agent.close()
            except ValueError as exc:
                raise ValueError(f"{where}: {exc}") from None


def check_resident_accounts(ladders: tuple[LadderSpec, ...], store: Database | None) -> None:
    """Refuse a resident named as a registered account: the name is somebody's."""
    if store is None:
        return
    for ladder in ladders:
        for resident in ladder.residents:
            if store.accounts.password_hash(resident.bot) is not None:
                raise ValueError(
                    f"--ladder-resident: {resident.bot!r} is a registered account here;"
                    f" name the resident otherwise (BOT@AGENTSPEC), or free the name with"
                    f" arena accounts delete {resident.bot}"
                )


def web_config(args: argparse.Namespace, tcp_host: str) -> WebConfig | None:
    """The web app's settings from the flags and environment; None when --web is off."""
    address = args.web or os.environ.get("ARENA_WEB") or None
    if address is None:
        return None
    host, port = parse_web_address(address, default_host=tcp_host)
    specs = args.engine
    if specs is None:
        raw = os.environ.get("ARENA_WEB_ENGINES", "")
        specs = [s for s in raw.split(";") if s.strip()] or list(DEFAULT_ENGINES)
    apply_engines_option(getattr(args, "engines", None))  # before the names it gives
    engines = dict(_named(parse_engine(text), text) for text in specs)
    check_specs(engines)
    limit = env_setting(args.engine_limit, "ARENA_WEB_ENGINE_LIMIT", int, 4)
    return WebConfig(
        host=host,
        port=port,
        engines=engines,
        engine_limit=limit,
        origins=tuple(args.web_origin or ()),
    )


def _named(parsed: tuple[str, str], text: str) -> tuple[str, str]:
    """A SPEC given alone is named by the name it gives (an engine's ``name``), if it fits."""
    from player.spec import spec_name

    spec = parsed[1]
    if spec != text.strip():
        return parsed  # NAME=SPEC: the operator's name
    given = spec_name(spec)
    return (given, spec) if given is not None and ENGINE_NAME.match(given) else parsed


def check_specs(engines: dict[str, str]) -> None:
    """Refuse at start (ValueError naming it) a web engine whose spec `arena play` would refuse.

    ``--engines FILE`` (applied before) is handed on to the engines the web app launches.
    """
    from player.spec import check_agent_spec

    for name, spec in engines.items():
        try:
            check_agent_spec(spec)
        except ValueError as exc:
            raise ValueError(f"--engine {name}: {exc}") from None


#: seconds a stopping server gives its matches to record their end, then its clients to read
STOP_MATCHES = 1.0
STOP_FLUSH = 0.5


async def stop_gracefully(server: ArenaServer) -> None:
    """Abort the running matches (recorded, ``match_end`` sent), then tell every client
    ``server_shutdown`` and give the writers a moment to flush (bounded: a stop takes < 2 s)."""
    lobby = server.lobby
    if lobby is not None:
        matches = list(lobby.matches.values())
        for match in matches:
            match.abort("the server shut down")
        with trio.move_on_after(STOP_MATCHES):
            for match in matches:
                await match.finished.wait()
    server.announce_shutdown()
    with trio.move_on_after(STOP_FLUSH):
        while server.open_connections:  # noqa: ASYNC110 (a connection has no "gone" event)
            await trio.sleep(0.02)


async def serve_until_signalled(server: ArenaServer, web: WebConfig | None = None) -> int:
    """Run `server` (and its web app) until SIGINT or SIGTERM, then shut down cleanly.

    Returns the signal's number.
    """
    with trio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.serve)
            if web is not None:
                try:
                    await nursery.start(serve_web, server, web)
                except OSError as exc:
                    raise WebListenError(web, exc) from None
            async for signum in signals:
                log.info("shutting_down", signal=signal.Signals(signum).name)
                await stop_gracefully(server)
                nursery.cancel_scope.cancel()
                return int(signum)
    return 0


def _serve(server: ArenaServer, web: WebConfig | None) -> int:
    """`serve_until_signalled` in trio, an OSError out of a nursery's group unwrapped."""
    try:
        return trio.run(serve_until_signalled, server, web)
    except BaseExceptionGroup as group:
        errors, rest = group.split(OSError)
        if errors is None or rest is not None:
            raise
        leaf: BaseException = errors
        while isinstance(leaf, BaseExceptionGroup):
            leaf = leaf.exceptions[0]
        raise leaf from None


def referee(args: argparse.Namespace) -> object | None:
    """``--referee SPEC`` as a `GtpReferee` (ValueError in one line for a bad spec)."""
    spec = getattr(args, "referee", None)
    if spec is None:
        return None
    from player.engines.referee import GtpReferee

    apply_engines_option(getattr(args, "engines", None))  # engine:NAME names its entry
    try:
        return GtpReferee.from_spec(spec)
    except ValueError as exc:
        raise ValueError(f"--referee: {exc}") from None


def run(args: argparse.Namespace) -> int:
    store: Database | None = None
    try:
        overrides = config_overrides(args)
        overrides["referee"] = referee(args)
        overrides["proxy_protocol"] = args.proxy_protocol
        overrides["trusted_proxies"] = (
            None if args.trusted_proxy is None else tuple(args.trusted_proxy)
        )
        overrides["max_connections"] = args.max_connections
        overrides["max_connections_per_address"] = args.max_connections_per_address
        overrides["trusted_addresses"] = (
            None if args.trusted_address is None else tuple(args.trusted_address)
        )
        overrides["ladders"] = ladder_specs(args)
        config = build_config(overrides)
        check_residents(config.ladders)
        check_port_free(config.host, config.port)  # a busy port: one line, before anything
        tls_context(config)  # an unusable certificate is one line, before anything starts
        web = web_config(args, config.host)
        if web is not None:
            check_port_free(web.host, web.port, "--web")
        store = (
            None if config.db is None else open_database(config.db, check=True, make_directory=True)
        )
        check_resident_accounts(config.ladders, store)
    except (ValueError, StoreError, OSError, TlsError) as exc:
        print(f"arena serve: {exc}", file=sys.stderr)
        if store is not None:
            store.close()
        return 2
    server = ArenaServer(config, store=store)
    try:
        signum = _serve(server, web)
    except StoreError as exc:  # e.g. the journal of unwritten results cannot be imported
        print(f"arena serve: {exc}", file=sys.stderr)
        return 1
    except WebListenError as exc:  # a port is bad input (exit 2), even when taken meanwhile
        print(f"arena serve: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # e.g. the address was taken between the check and the bind
        print(
            f"arena serve: cannot listen on {config.host}:{config.port}: {exc.strerror or exc}",
            file=sys.stderr,
        )
        return 2
    finally:
        if store is not None:
            store.close()
    if signum == signal.SIGTERM:
        stops.note_terminated()
    code, line = stops.stop_status()
    print(f"arena serve: {line}; clients told, records closed", file=sys.stderr, flush=True)
    return code
