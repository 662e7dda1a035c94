"""`arena demo`: the main job shown by `make demo`.

A server with its web app (`arena serve --web`, a child process) and a small
connect-four round-robin between MCTS at two settings and a random player,
each a separate process playing over TCP; the web app's address is printed
first (watch the games live in a browser) and the standings at the end. The
server records the matches in a fresh temporary database unless --db is
given; the tournament's own tables go to `tournament.sqlite` beside it.
The commands it prints at the end work as printed in a fresh shell
(`arena_cli.self_command`): `make demo` does not activate the virtualenv.
`--web off` runs the tournament on an embedded server instead.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator

from arena_cli import tournament_cmd
from arena_cli.children import die_with_parent
from arena_cli.self_command import arena_command

DEFAULT_PLAYERS = ("mcts:time=0.2", "mcts:time=0.2,c=3.0", "random")


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "demo",
        help="a small round-robin on an embedded server (what `make demo` runs)",
        description="A small round-robin (MCTS at two settings and a random player, each a"
        " process playing over TCP) on a server with its web app, whose address is printed"
        " first: watch the games live while the demo runs. Standings at the end, then the"
        " command that serves the recorded games again.",
    )
    parser.add_argument("--game", default="connect4", help="the game [connect4]")
    parser.add_argument(
        "--player",
        action="append",
        default=None,
        metavar="SPEC",
        help=f"a player's agent spec (repeatable) [{', '.join(DEFAULT_PLAYERS)}]",
    )
    parser.add_argument(
        "--games-per-pair", type=int, default=2, help="games between two players, even [2]"
    )
    parser.add_argument("--move-time", type=float, default=0.25, help="seconds per move [0.25]")
    parser.add_argument("--concurrency", type=int, default=2, help="games at once [2]")
    parser.add_argument("--db", default=None, help="records file (default: a fresh temporary one)")
    parser.add_argument(
        "--web",
        default="127.0.0.1:0",
        metavar="[HOST:]PORT",
        help="serve the web app here while the demo runs (default: a free port); 'off' for none",
    )
    parser.add_argument(
        "--linger",
        type=float,
        default=0.0,
        help="seconds the server and web app stay up after the tournament (default 0)",
    )
    parser.set_defaults(func=run, default_log_level="warning")


@contextlib.contextmanager
def demo_server(db: str, web: str) -> Iterator[tuple[int, str]]:
    """`arena serve --web` on a free TCP port: yields (TCP port, web app URL)."""
    log = f"{db}.serve.log"
    env = {**os.environ, "ARENA_LOG_FORMAT": "json", "ARENA_LOG_LEVEL": "info"}
    argv = [sys.executable, "-m", "arena_cli.main", "serve", "--port", "0", "--db", db]
    with open(log, "wb") as out:
        process = subprocess.Popen(
            [*argv, "--web", web],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            preexec_fn=die_with_parent,  # a demo killed with -9 takes its server along
        )
    try:
        port, url = None, None
        deadline = time.monotonic() + 30
        while not (port and url):
            if process.poll() is not None or time.monotonic() > deadline:
                with open(log, errors="replace") as failed:
                    tail = failed.read().strip().splitlines()[-3:]
                raise RuntimeError("the demo server did not start: " + " / ".join(tail))
            time.sleep(0.05)
            with open(log, errors="replace") as lines:
                for line in lines:
                    with contextlib.suppress(ValueError):
                        entry = json.loads(line)
                        if entry.get("event") == "listening":
                            port = int(entry["port"])
                        elif entry.get("event") == "web_listening":
                            url = str(entry["url"])
        yield port, url
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def compile_search_once(specs: list[str]) -> None:
    """Compile (or load) the search kernels in one child process before the players start.

    On a first run (a cold numba cache) every MCTS player process would compile
    them at the same time, each on its own share of the cores; once is enough,
    and the players then load them from the cache in about a second.
    """
    if not any(spec.split(":", 1)[0] == "mcts" for spec in specs):
        return
    print("loading the search kernels (the first run compiles them: under a minute)", flush=True)
    warm = "from player.mcts import fast; fast.warm_up()"
    with contextlib.suppress(subprocess.TimeoutExpired, OSError):
        subprocess.run([sys.executable, "-c", warm], timeout=600, check=False)


def run(args: argparse.Namespace) -> int:
    db = args.db or os.path.join(tempfile.mkdtemp(prefix="arena-demo-"), "demo.sqlite")
    compile_search_once(list(args.player or DEFAULT_PLAYERS))
    argv = [
        args.game,
        *[item for spec in (args.player or DEFAULT_PLAYERS) for item in ("--player", spec)],
        "--games-per-pair", str(args.games_per_pair),
        "--move-time", str(args.move_time),
        "--concurrency", str(args.concurrency),
        "--instances", "2",
    ]  # fmt: skip
    parser = argparse.ArgumentParser(prog="arena demo")
    tournament_cmd.add_arguments(parser)
    if args.web == "off":
        code = tournament_cmd.run(parser.parse_args([*argv, "--db", db]))
    else:
        tournament_db = os.path.join(os.path.dirname(os.path.abspath(db)), "tournament.sqlite")
        try:
            with demo_server(db, args.web) as (port, url):
                print(f"web app: {url}  (open it to watch the games live)", flush=True)
                when = f"{args.linger:g} s after the last game" if args.linger > 0 else "with it"
                print(
                    f"  it stops when the demo ends ({when}; --linger SECONDS keeps it up"
                    " longer); the command printed at the end serves the games again",
                    flush=True,
                )
                argv += ["--server", f"127.0.0.1:{port}", "--db", tournament_db]
                tournament_args = parser.parse_args(argv)
                tournament_args.server_stops_with_us = True  # resume on an embedded server
                code = tournament_cmd.run(tournament_args)
                if args.linger > 0:
                    print(f"\nweb app: {url}  (up for {args.linger:g} more seconds)", flush=True)
                    time.sleep(args.linger)
        except RuntimeError as exc:
            print(f"arena demo: {exc}", file=sys.stderr)
            return 1
    if code == 0:
        arena, path = arena_command(), shlex.quote(db)
        print(f"\nrecords: {db}  (try: {arena} matches --db {path})")
        if args.web != "off":
            print("the web app has stopped with the demo; to watch the games again, run:")
        else:
            print("to watch the games in a browser, run:")
        print(f"  {arena} serve --db {path} --web 8080   (then open http://127.0.0.1:8080)")
    return code
