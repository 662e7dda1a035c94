"""`arena gtp`: any agent as a GTP engine on standard input and output."""

from __future__ import annotations

import argparse

from arena_cli.front_run import add_option_argument, run_front

EXAMPLES = """examples:
  arena gtp mcts:time=1 --game reversi
  arena gtp mcts --game gomoku -o width=15 -o height=15

The agent answers GTP commands on stdin/stdout (logs go to stderr). A controller
that sends time_settings and time_left sets the budget of an agent whose spec
has no time; `arena engines check 'engine:cmd=arena,args=gtp mcts --game
reversi,protocol=gtp' --game reversi` seats it in the arena itself.

exit status: 0 after quit or the end of input; 2 bad input (spec, game)."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "gtp",
        help="run an agent (mcts, ...) as a GTP engine on stdin/stdout",
        description="Play as a GTP engine (version 2): GoGui, Sabaki, gogui-twogtp or any GTP"
        " controller drives the agent (docs/ENGINES.md).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("spec", metavar="SPEC", help="an agent spec, e.g. mcts:time=1")
    parser.add_argument("--game", required=True, help="the game to play (see `arena games`)")
    add_option_argument(parser, "boardsize and komi commands change them")
    parser.set_defaults(func=run, default_log_level="warning")


def run(args: argparse.Namespace) -> int:
    from arena_cli.main import version
    from player.stdio.gtp import GtpFront

    return run_front(
        "gtp", args, lambda agent, options: GtpFront(agent, args.game, options, version())
    )
