"""The documents' examples outside the quick start and the network sections, run as written
(README, docs/CLI.md, docs/STORAGE.md).

Shell lines (``$(date +%F)``, ``sgf/*.sgf``) run in bash with an `arena` on
PATH that runs this checkout; placeholders are filled as tests/arena_cli/
examples.py says. Servers run in a tmp dir on a free port ($ARENA_PORT, or the
port an example names replaced). `make demo`'s recipe, `arena demo`, runs
here too (slow); make itself gets the weaker check of test_readme_offline.py.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena_cli.main import COMMANDS
from games import available_games
from store import SqliteDatabase
from tests.arena_cli.cli import ROOT, Arena, arena, clean_env, free_port
from tests.arena_cli.examples import argv, shim, substitute
from tests.records.fixtures import random_match

GAMES = "arena games"
GOMOKU = "arena play gomoku mcts -o width=9 -o height=9"
VERSION, HELP = "arena --version", "arena --help"
STATUS, PING, STATUS_PORT = "arena status", "arena ping", "arena status --port 4242"
BACKUP = "arena backup arena-$(date +%F).sqlite --db arena.sqlite"
WEB = "arena serve --web 8080"
EXPORT_ALL = "arena export games.jsonl"
EXPORT_SGF = "arena export --format sgf sgf/"
EXPORT_ONE = "arena export --match ID -"
IMPORT = "arena import --db other.sqlite games.jsonl sgf/*.sgf"
DEMO = "arena demo"

PG = "postgresql://arena@db.example/arena"
PG_SERVE = f"arena serve --db {PG}"
PG_IMPORT = f"arena import arena.sqlite --db {PG}"
PG_BACKUP = f"arena backup arena.pgdump --db {PG}"
MAKE_POSTGRES = "make postgres"

SCENARIOS = {
    # PostgreSQL: run against the PostgreSQL the tests start (tests/postgres.py)
    PG_SERVE: "tests/server/test_postgres_faults.py::test_kill_nine_loses_no_acknowledged_result_and_a_restart_takes_over",
    PG_IMPORT: "tests/arena_cli/test_move_arena.py::test_an_sqlite_arena_moves_to_postgres_whole_and_again_harmlessly",
    PG_BACKUP: "tests/arena_cli/test_move_arena.py::test_a_postgres_arena_is_backed_up_and_restored",
    MAKE_POSTGRES: "test_make_postgres_says_what_it_found",
    GAMES: "test_games_version_and_help",
    VERSION: "test_games_version_and_help",
    HELP: "test_games_version_and_help",
    GOMOKU: "test_gomoku_on_a_server",
    STATUS: "test_status_ping_and_backup_beside_a_server",
    PING: "test_status_ping_and_backup_beside_a_server",
    STATUS_PORT: "test_status_ping_and_backup_beside_a_server",
    BACKUP: "test_status_ping_and_backup_beside_a_server",
    WEB: "test_the_web_app_on_its_port",
    EXPORT_ALL: "test_export_and_import_records",
    EXPORT_SGF: "test_export_and_import_records",
    EXPORT_ONE: "test_export_and_import_records",
    IMPORT: "test_export_and_import_records",
    DEMO: "test_the_demo_recipe_runs",
}


def sh(
    example: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`example` run by bash in `cwd`, `arena` being this checkout."""
    env = {**(env or clean_env()), **shim(cwd.parent / f"{cwd.name}-bin")}
    return subprocess.run(
        ["bash", "-c", example], cwd=cwd, env=env, capture_output=True, text=True, timeout=120
    )


@contextmanager
def served(words: list[str], cwd: Path, env: dict[str, str]) -> Iterator[Arena]:
    """`arena WORDS` (a server) until the block ends, then Ctrl-C: it must exit 130."""
    with arena(*words, cwd=cwd, env=env) as server:
        server.wait_for("listening")
        yield server
        assert server.stop(signal.SIGINT)[0] == 130, server.stderr


def seed(db: Path) -> dict[str, str]:
    """Two loose games (connect four, gomoku) and a tictactoe/reversi tournament."""
    store = SqliteDatabase(str(db))
    try:
        for record, moves in (
            random_match("connect4", 1),
            random_match("gomoku", 2),
            random_match("tictactoe", 3, tournament="t-demo"),
            random_match("reversi", 4, tournament="t-demo"),
        ):
            assert store.import_match(record, moves)
    finally:
        store.close()
    return {"loose": "connect4-0001", "tournament": "t-demo"}


def test_games_version_and_help(tmp_path: Path) -> None:
    games = sh(GAMES, tmp_path)
    assert games.returncode == 0, games.stderr
    assert "move notation" in games.stdout
    assert all(name in games.stdout for name in available_games())
    version = sh(VERSION, tmp_path)
    assert version.returncode == 0 and re.fullmatch(r"arena \(mcts-arena\) \S+\n", version.stdout)
    helped = sh(HELP, tmp_path)
    assert helped.returncode == 0 and "examples:" in helped.stdout
    assert all(f"    {name} " in helped.stdout for name in COMMANDS)


def test_status_ping_and_backup_beside_a_server(tmp_path: Path) -> None:
    seed(tmp_path / "arena.sqlite")
    port = str(free_port())
    env = clean_env(ARENA_PORT=port)
    with served(["serve"], tmp_path, env):
        for example, run_env in ((STATUS, env), (substitute(STATUS_PORT, **{"4242": port}), None)):
            status = sh(example, tmp_path, run_env)
            assert status.returncode == 0, status.stderr
            assert status.stdout.startswith("store: ok") and "matches: 0" in status.stdout
        pong = sh(PING, tmp_path, env)
        assert pong.returncode == 0 and re.match(
            rf"pong from mcts-arena at 127\.0\.0\.1:{port} in [\d.]+ ms", pong.stdout
        )
        backup = sh(BACKUP, tmp_path)  # while the server has the database open
    assert backup.returncode == 0, backup.stderr
    copy = re.fullmatch(
        r"backed up arena\.sqlite to (arena-\d{4}-\d\d-\d\d\.sqlite) \(4 matches\)\n", backup.stdout
    )
    assert copy and (tmp_path / copy.group(1)).is_file()
    # without a server: ping and status say so, exit 1
    for example in (PING, STATUS):
        down = sh(example, tmp_path, env)
        assert down.returncode == 1 and "the server at 127.0.0.1" in down.stderr


def get(url: str) -> tuple[int, bytes]:
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                return int(response.status), bytes(response.read())
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def test_the_web_app_on_its_port(tmp_path: Path) -> None:
    web = str(free_port())
    env = clean_env(ARENA_PORT=str(free_port()))
    with served(argv(WEB, **{"8080": web}), tmp_path, env):
        status, page = get(f"http://127.0.0.1:{web}/")
        assert status == 200 and b"<html" in page.lower()
        status, body = get(f"http://127.0.0.1:{web}/api/games")
        assert status == 200 and "connect4" in json.dumps(json.loads(body))


def test_export_and_import_records(tmp_path: Path) -> None:
    ids = seed(tmp_path / "arena.sqlite")
    done = sh(EXPORT_ALL, tmp_path)
    assert done.returncode == 0 and "exported 4 games to 'games.jsonl'" in done.stderr
    lines = (tmp_path / "games.jsonl").read_text().splitlines()
    assert len(lines) == 4 and {json.loads(line)["game"] for line in lines} >= {"connect4"}
    done = sh(EXPORT_SGF, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "left out 1 game without an SGF standard (connect4 1)" in done.stderr
    assert sorted(p.name for p in (tmp_path / "sgf").iterdir()) == [
        "gomoku-0002.sgf",
        "reversi-0004.sgf",
        "tictactoe-0003.sgf",
    ]
    assert (tmp_path / "sgf" / "tictactoe-0003.sgf").read_text().startswith("(;")
    done = sh(substitute(EXPORT_ONE, ID=ids["loose"][:5]), tmp_path)
    assert done.returncode == 0 and "exported 1 game to stdout" in done.stderr
    assert json.loads(done.stdout)["id"] == ids["loose"]
    done = sh(IMPORT, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "imported 4 games into other.sqlite" in done.stdout
    assert "skipped 3 games already stored: gomoku-0002, reversi-0004, tictactoe-0003" in (
        done.stdout
    )
    listed = sh("arena matches --db other.sqlite --json", tmp_path)
    assert sorted(m["id"] for m in json.loads(listed.stdout)) == sorted(
        json.loads(line)["id"] for line in lines
    )


def test_gomoku_on_a_server(tmp_path: Path) -> None:
    """The engine seeks the server's default time control (here 0.1 s a move)."""
    env = clean_env(ARENA_PORT=str(free_port()))
    with served(["serve", "--move-time", "0.1"], tmp_path, env):
        opponent = Arena(*argv("arena play gomoku random -o width=9 -o height=9 --tc any"), env=env)
        engine = Arena(*argv(GOMOKU), cwd=tmp_path, env=env)
        assert engine.finish(timeout=120) == 0, engine.stderr
        assert opponent.finish() == 0, opponent.stderr
    assert re.search(
        r"match m\w+ \(gomoku\(width=9, height=9, k=5\)\): (win|loss|draw)", engine.stdout
    )
    assert "played 1 match" in engine.stdout


@pytest.mark.slow
def test_the_demo_recipe_runs(tmp_path: Path) -> None:
    """`make demo` runs `arena demo`: a round-robin on an embedded server, standings."""
    demo = Arena(*argv(DEMO), cwd=tmp_path, env=clean_env())
    assert demo.finish(timeout=600) == 0, demo.stderr
    assert re.match(r"web app: http://127\.0\.0\.1:\d+", demo.stdout)
    assert "game 6/6" in demo.stdout and "(round-robin, finished)" in demo.stdout
    assert re.search(r"│ \d │ random +│ +4 │", demo.stdout), demo.stdout


def test_make_postgres_says_what_it_found(postgres_server: object) -> None:
    """With PostgreSQL installed (the fixture started one), `make postgres` installs nothing."""
    import subprocess

    done = subprocess.run(
        ["make", "-s", "postgres"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("PostgreSQL: /") and done.stdout.strip().endswith("/bin")
