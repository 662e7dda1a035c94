"""kill -9 of the tournament director, of an external server, or of both, then `--resume`.

Whatever is killed and whenever: the resumed tournament ends with exactly the
planned games, each index once in the director's records, no game played to
its end twice on the server, and both databases pass `integrity_check`.
"""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.server.serverproc import integrity, start_server

ARENA = [sys.executable, "-m", "arena_cli.main"]
GAMES_PER_PAIR = 12  # two random players: 12 games


def _finished_on_server(db: Path) -> list[tuple[str, int]]:
    with sqlite3.connect(db, timeout=30) as conn:
        rows = conn.execute(
            "SELECT tournament, game_index FROM matches"
            " WHERE tournament IS NOT NULL AND status='finished'"
        ).fetchall()
    return [(t, i) for t, i in rows]


def _director(port: int, db: Path, *extra: str) -> subprocess.Popen[bytes]:
    address = ["--server", f"127.0.0.1:{port}", "--db", str(db)]
    options = ["--no-progress", "--reconnect-grace", "1"]
    return subprocess.Popen(
        [*ARENA, "tournament", *extra, *address, *options],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _run_and_kill(tmp_path: Path, victim: str, seed: int) -> None:
    rng = random.Random(seed)
    server_db, director_db = tmp_path / "server.sqlite", tmp_path / "director.sqlite"
    log = tmp_path / "serve.log"
    server = start_server(server_db, log=log, extra=["--reconnect-grace", "1"])
    director = _director(
        server.port,
        director_db,
        "tictactoe",
        "--player", "random", "--player", "random",
        "--games-per-pair", str(GAMES_PER_PAIR), "--move-time", "0.5", "--concurrency", "2",
        "--seed", str(seed),
    )  # fmt: skip
    try:
        kill_after = rng.randint(1, GAMES_PER_PAIR - 2)
        deadline = time.monotonic() + 60
        while len(_finished_on_server(server_db)) < kill_after:
            assert director.poll() is None, director.stdout.read() if director.stdout else ""
            assert time.monotonic() < deadline, "the tournament made no progress"
            time.sleep(rng.uniform(0.0, 0.05))
        if victim in ("director", "both"):
            os.killpg(director.pid, signal.SIGKILL)  # the director and its players
        if victim in ("server", "both"):
            server.process.send_signal(signal.SIGKILL)
            server.process.wait()
        director.wait(timeout=60)  # a director whose server died stops by itself
    finally:
        if director.poll() is None:
            os.killpg(director.pid, signal.SIGKILL)
            director.wait()
        subprocess.run(["pkill", "-9", "-g", str(director.pid)], check=False)
    if not server.alive():
        server = start_server(server_db, log=log, extra=["--reconnect-grace", "1"])
    try:
        with sqlite3.connect(director_db) as conn:
            tournament = conn.execute("SELECT id FROM tournaments").fetchone()[0]
        resumed = _director(server.port, director_db, "--resume", tournament)
        output, _ = resumed.communicate(timeout=180)
        assert resumed.returncode == 0, output.decode(errors="replace")
    finally:
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
    with sqlite3.connect(director_db) as conn:
        indices = sorted(r[0] for r in conn.execute("SELECT idx FROM tournament_games"))
    assert indices == list(range(GAMES_PER_PAIR))
    finished = [i for t, i in _finished_on_server(server_db) if t == tournament]
    assert len(finished) == len(set(finished)), "a game was played to its end twice"
    assert set(finished) <= set(range(GAMES_PER_PAIR))
    assert integrity(server_db) == "ok" and integrity(director_db) == "ok"


def test_director_killed_then_resumed_plays_no_game_twice(tmp_path: Path) -> None:
    _run_and_kill(tmp_path, "director", seed=1)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(7))
@pytest.mark.parametrize("victim", ["director", "server", "both"])
def test_kill_nine_at_random_points_then_resume(tmp_path: Path, victim: str, seed: int) -> None:
    _run_and_kill(tmp_path, victim, seed)
