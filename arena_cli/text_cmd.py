"""`arena text`: any agent as an engine of the arena's text protocol on stdin/stdout."""

from __future__ import annotations

import argparse

from arena_cli.front_run import add_option_argument, run_front

EXAMPLES = """examples:
  arena text mcts:time=1 --game connect4
  arena text mcts

The agent answers the arena text protocol (version 1) on stdin/stdout (logs go
to stderr): newgame and position set the game, go movetime asks for a move.
With --game it plays that game only (a newgame for another exits, status 1);
without, every game a newgame names. `arena engines check
'engine:cmd=arena,args=text mcts,protocol=text' --game connect4` seats it in
the arena itself.

exit status: 0 after quit or the end of input; 1 a newgame it does not play;
2 bad input (spec, game)."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "text",
        help="run an agent (mcts, ...) as a text-protocol engine on stdin/stdout",
        description="Play as an engine of the arena's text protocol (docs/ENGINES.md):"
        " another arena (the engine kind) or any controller of the protocol drives the agent.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("spec", metavar="SPEC", help="an agent spec, e.g. mcts:time=1")
    parser.add_argument(
        "--game", default=None, help="the only game it plays (default: any game newgame names)"
    )
    add_option_argument(parser, "the game's options until a newgame names others")
    parser.set_defaults(func=run, default_log_level="warning")


def run(args: argparse.Namespace) -> int:
    from arena_cli.main import version
    from player.stdio.text import TextFront

    return run_front(
        "text", args, lambda agent, options: TextFront(agent, args.game, options, version())
    )
