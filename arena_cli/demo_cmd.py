"""`arena demo`: the main job shown by `make demo`.

Until the server and tournaments land, plays one game between two random
agents in-process and prints it.
"""

from __future__ import annotations

import argparse
import random

from games import make_game, parse_options


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser("demo", help="run the demo")
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--options", default="", help="game options, key=value,...")
    parser.add_argument("--seed", type=int, default=1)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    game = make_game(args.game, parse_options(args.options))
    rng = random.Random(args.seed)
    state = game.initial_state()
    while (outcome := game.outcome(state)) is None:
        moves = game.legal_moves(state)
        move = rng.choice(list(moves))
        print(f"{game.seat_names[game.to_move(state)]} plays {game.format_move(move)}")
        state = game.apply(state, move)
    print(game.render(state))
    print(f"result {outcome.result()} ({outcome.termination.value})")
    return 0
