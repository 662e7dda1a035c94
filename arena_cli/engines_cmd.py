"""`arena engines`: check an engine program (``check``) and list the engines file (``list``)."""

from __future__ import annotations

import argparse
import sys

from arena_cli.options import add_engines_option, apply_engines_option

EXAMPLES = """examples:
  arena engines check 'engine:cmd=gtp-rhino,args=-l 3,protocol=gtp' --game reversi
  arena engines check 'engine:cmd=gnugo,args=--mode gtp --level 1,protocol=gtp' --game go
  arena engines check engine:rhino --game reversi --engines engines.toml
  arena engines check 'engine:cmd=./my_engine' --game tictactoe --move-time 0.2
  arena engines list --engines engines.toml

exit status: 0 every step passed; 1 the engine failed a step; 2 bad input (spec, file, game)."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "engines",
        help="check an engine program (GTP, Gomocup, text protocol) or list the engines file",
        description="External engines: programs that play over GTP, the Gomocup protocol or"
        " the arena text protocol (docs/ENGINES.md).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    check = actions.add_parser(
        "check",
        help="start the engine, shake hands, play a game on each seat against random, time"
        " every answer, check every move, end it",
        description="A compliance check: one line per step, exit 0 if every step passed.",
    )
    check.add_argument("spec", metavar="SPEC", help="an engine spec, e.g. engine:cmd=./x")
    check.add_argument("--game", required=True, help="the game to play (see `arena games`)")
    check.add_argument(
        "-o",
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game option (repeatable), e.g. -o width=9",
    )
    check.add_argument(
        "--move-time",
        type=float,
        default=1.0,
        metavar="SECONDS",
        help="the budget of every move (default 1)",
    )
    check.add_argument(
        "--seed", type=int, default=1, help="seed of the random opponent (default 1)"
    )
    add_engines_option(check)
    check.set_defaults(func=run_check, default_log_level="error")  # the steps say it all
    listing = actions.add_parser(
        "list",
        help="list the entries of the engines file",
        description="The engines file's entries, each with its protocol and command line, or why it"
        " cannot be used (exit 2 if one cannot).",
    )
    add_engines_option(listing)
    listing.set_defaults(func=run_list, default_log_level="warning")


def _fail(text: str) -> int:
    print(f"arena engines: {text}", file=sys.stderr)
    return 2


def run_check(args: argparse.Namespace) -> int:
    from games import make_game, parse_options
    from player.engines.agent import EngineAgent
    from player.engines.check import Step, check_engine
    from player.spec import make_agent, parse_agent_spec

    try:
        apply_engines_option(args.engines)
        if parse_agent_spec(args.spec)[0] != "engine":
            raise ValueError(f"{args.spec!r} is not an engine spec (engine:cmd=PROGRAM,...)")
        if not args.move_time > 0:
            raise ValueError(f"--move-time must be > 0 seconds, not {args.move_time!r}")
        options: dict[str, str] = {}
        for item in args.option:
            options.update(parse_options(item))
        game = make_game(args.game, options)
        agent = make_agent(args.spec)
        agent.check_game(game)
    except ValueError as exc:
        return _fail(str(exc))
    assert isinstance(agent, EngineAgent)

    def report(step: Step) -> None:
        mark = "FAIL" if not step.ok else "warn" if step.warning else "ok  "
        print(f"{mark}  {step.name}: {step.detail}", flush=True)
        for line in step.stderr:
            print(f"      engine stderr: {line}", flush=True)

    ok = check_engine(agent, game, report, move_time=args.move_time, seed=args.seed)
    print("passed" if ok else "failed", flush=True)
    return 0 if ok else 1


def run_list(args: argparse.Namespace) -> int:
    from player.engines.config import build_config, engines_file, load_engines_file

    try:
        apply_engines_option(args.engines)
        path = engines_file()
        if path is None:
            raise ValueError("no engines file (--engines FILE, $ARENA_ENGINES or ./engines.toml)")
        entries = load_engines_file(path)
    except ValueError as exc:
        return _fail(str(exc))
    print(f"{path}: {len(entries)} engine{'s' if len(entries) != 1 else ''}")
    status = 0
    for name in entries:
        try:
            config = build_config({"entry": name})
            detail = f"{config.protocol}: {' '.join(config.argv)}"
        except ValueError as exc:
            detail, status = f"unusable: {exc}", 2
        print(f"  engine:{name}  {detail}")
    return status
