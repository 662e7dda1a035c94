"""`arena gomocup`: any agent as a Gomocup brain (piskvork's protocol) on stdin/stdout."""

from __future__ import annotations

import argparse

from arena_cli.front_run import add_option_argument, run_front

EXAMPLES = """examples:
  arena gomocup mcts:time=1
  arena gomocup mcts --game tictactoe -o width=20 -o height=20 -o k=5

The agent answers the Gomocup protocol on stdin/stdout (logs go to stderr):
START/RECTSTART set the board's size, BEGIN/TURN/BOARD ask for a move,
INFO timeout_turn/timeout_match/time_left set the budget of an agent whose
spec has no time. Five in a row only. `arena engines check
'engine:cmd=arena,args=gomocup mcts,protocol=gomocup' --game gomoku` seats it
in the arena itself.

exit status: 0 after END or the end of input; 2 bad input (spec, game)."""


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "gomocup",
        help="run an agent (mcts, ...) as a Gomocup brain on stdin/stdout",
        description="Play as a Gomocup brain (piskvork's protocol): piskvork or any Gomocup"
        " manager drives the agent at five in a row (docs/ENGINES.md).",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("spec", metavar="SPEC", help="an agent spec, e.g. mcts:time=1")
    parser.add_argument(
        "--game",
        default="gomoku",
        help="the game: gomoku (default) or another m,n,k board with k=5",
    )
    add_option_argument(parser, "START and RECTSTART set width and height")
    parser.set_defaults(func=run, default_log_level="warning")


def run(args: argparse.Namespace) -> int:
    from arena_cli.main import version
    from player.stdio.gomocup import GomocupFront

    return run_front(
        "gomocup", args, lambda agent, options: GomocupFront(agent, args.game, options, version())
    )
