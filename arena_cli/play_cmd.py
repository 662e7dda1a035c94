"""`arena play GAME AGENTSPEC`: the command's flags (the work is in `arena_cli.play_run`).

Every flag falls back to an environment variable (flags win), so a container
can be configured by its environment alone. Only argparse is imported here,
so `arena play --help` starts fast.
"""

from __future__ import annotations

import argparse

# re-exported: older callers import the address helpers from here
from arena_cli.options import DEFAULT_HOST as DEFAULT_HOST
from arena_cli.options import DEFAULT_PORT as DEFAULT_PORT
from arena_cli.options import HUMAN_TC as HUMAN_TC
from arena_cli.options import add_address_options as add_address_options
from arena_cli.options import add_engines_option
from arena_cli.options import address as address
from arena_cli.options import env_setting as env_setting

#: every example here is run by tests/arena_cli/test_examples.py
EXAMPLES = (
    ("arena play connect4 human --vs mcts:time=1", "play an engine yourself, 5+3 clock"),
    ("arena play tictactoe mcts:time=0.1 --games 2", "an engine on the server at 127.0.0.1:4242"),
    ("arena play tictactoe random --tc any --games 2", "accept whatever time control is sought"),
    (
        "arena play gomoku mcts -e time=0.1 -o width=9 -o height=9 --vs random",
        "9x9 gomoku, both players started here",
    ),
)
EPILOG = "examples:\n" + "\n".join(f"  {cmd}\n      {what}" for cmd, what in EXAMPLES)
#: the time control a human gets unless --tc or --move-time says otherwise


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "play",
        help="play matches on a server with an agent (mcts, random, human, ...)",
        description="Connect to an arena server, seek opponents and play matches."
        " With --vs, the opponent is started for you (on an embedded server unless"
        " --host/--port name one). A human plays a 5+3 clock unless told otherwise.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("game", nargs="?", help="game to play [$ARENA_GAME]")
    parser.add_argument(
        "agent", nargs="?", help="agent spec, e.g. mcts:time=0.5 or human [$ARENA_AGENT]"
    )
    add_address_options(parser)
    parser.add_argument(
        "--server",
        default=None,
        metavar="HOST:PORT,...",
        help="the server, or several nodes of one arena separated by commas: the player"
        " turns to the next when one does not answer (instead of --host/--port)"
        " [$ARENA_SERVER]",
    )
    add_engines_option(parser)
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="matches to play, 0 = until stopped [$ARENA_GAMES, 1; 0 with --ladder]",
    )
    parser.add_argument("--name", default=None, help="player name [$ARENA_NAME, agent@host]")
    parser.add_argument(
        "--move-time",
        type=float,
        default=None,
        help="seconds per move to ask for [$ARENA_MOVE_TIME, the server's default]",
    )
    parser.add_argument(
        "--tc",
        default=None,
        metavar="M+S",
        help="a clock: M minutes + S seconds a move (e.g. 5+3), or 'any' to accept the"
        f" opponent's time control [$ARENA_TC; {HUMAN_TC} for a human]",
    )
    parser.add_argument(
        "--vs",
        default=None,
        metavar="AGENTSPEC",
        help="start this opponent for you (e.g. mcts:time=1), on an embedded server"
        " unless --host/--port are given",
    )
    parser.add_argument(
        "--db",
        default=None,
        help="with --vs on the embedded server: keep the records in this SQLite file"
        " (created if missing) [no records]",
    )
    parser.add_argument(
        "--serve-port",
        type=int,
        default=None,
        metavar="PORT",
        help="with --vs on the embedded server: listen on this port, e.g. for"
        " `arena watch --all --port PORT` [a free port, printed]",
    )
    parser.add_argument("--room", default=None, help="join this named room [$ARENA_ROOM]")
    parser.add_argument(
        "--seat", type=int, default=None, help="seat to take in the room [$ARENA_SEAT]"
    )
    parser.add_argument("--pool", default=None, help="matchmaking pool [$ARENA_POOL]")
    parser.add_argument("--secret", default=None, help="pool secret [$ARENA_SECRET]")
    parser.add_argument(
        "--ladder",
        default=None,
        metavar="NAME",
        help="play the server's ladder NAME, game after game until stopped, on its time"
        " control (docs/LADDER.md) [$ARENA_LADDER]",
    )
    parser.add_argument(
        "--connect-wait",
        type=float,
        default=None,
        help="seconds to keep retrying while the server is down [$ARENA_CONNECT_WAIT, 30]",
    )
    parser.add_argument(
        "-e",
        "--agent-option",
        action="append",
        default=None,
        metavar="KEY=VALUE",
        help="agent option, added to the spec (repeatable) [$ARENA_AGENT_OPTIONS, k=v,...]",
    )
    parser.add_argument(
        "-o",
        "--option",
        action="append",
        default=None,
        metavar="KEY=VALUE",
        help="game option (repeatable) [$ARENA_GAME_OPTIONS, k=v,...]",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from arena_cli.play_run import run as play

    return play(args)
