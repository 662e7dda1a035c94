"""`arena tournament` end to end: real server, real player processes, real sockets."""

from __future__ import annotations

import collections
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from arena_cli.main import main

PLAYERS = ["random", "greedy", "minimax:depth=3"]


def run_tournament(tmp_path: Path, *extra: str) -> dict[str, Any]:
    out = tmp_path / "results.json"
    code = main(
        [
            "tournament", "tictactoe",
            *[arg for spec in PLAYERS for arg in ("--player", spec)],
            "--games-per-pair", "2", "--move-time", "0.5", "--concurrency", "2",
            "--db", str(tmp_path / "arena.sqlite"), "--out", str(out), "--no-progress",
            *extra,
        ]
    )  # fmt: skip
    assert code == 0
    document: dict[str, Any] = json.loads(out.read_text())
    return document


def check_consistency(document: dict[str, Any], names: list[str], per_pair: int) -> None:
    games = document["games"]
    pairs = len(names) * (len(names) - 1) // 2
    assert len(games) == pairs * per_pair
    assert sorted(g["index"] for g in games) == list(range(len(games)))
    # each pair plays per_pair games, each player half of them in seat 0
    by_pair: dict[frozenset[str], list[list[str]]] = collections.defaultdict(list)
    for game in games:
        by_pair[frozenset(game["seats"])].append(game["seats"])
        assert sum(game["scores"]) == pytest.approx(1.0)
    assert len(by_pair) == pairs
    for seatings in by_pair.values():
        assert len(seatings) == per_pair
        first = collections.Counter(s[0] for s in seatings)
        assert sorted(first.values()) == [per_pair // 2, per_pair // 2]
    standings = document["standings"]
    assert sorted(s["name"] for s in standings) == sorted(names)
    assert sum(s["points"] for s in standings) == pytest.approx(len(games))
    for row in standings:
        assert (
            row["wins"] + row["draws"] + row["losses"]
            == row["games"]
            == (len(names) - 1) * per_pair
        )
    assert sum(row["elo"] for row in standings) == pytest.approx(0.0, abs=1e-6)
    for row, cols in document["crosstable"].items():
        for col, cell in cols.items():
            assert cell["games"] == per_pair
            assert cell["points"] + document["crosstable"][col][row]["points"] == per_pair


def test_small_tournament_standings_add_up(tmp_path: Path) -> None:
    document = run_tournament(tmp_path)
    check_consistency(document, PLAYERS, 2)
    # every game is also an ordinary match record in the database
    db = sqlite3.connect(tmp_path / "arena.sqlite")
    count = db.execute(
        "SELECT COUNT(*) FROM matches WHERE tournament=? AND status='finished'",
        (document["tournament"],),
    ).fetchone()[0]
    assert count == len(document["games"])
    # minimax at depth 3 never loses to random at tic-tac-toe... at least it scores
    best = document["standings"][0]
    assert best["name"] in {"minimax:depth=3", "greedy"}


def count_results(db: Path) -> int:
    try:
        with sqlite3.connect(db) as conn:
            return int(conn.execute("SELECT COUNT(*) FROM tournament_games").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGKILL], ids=["ctrl-c", "kill"])
def test_interrupted_tournament_resumes_without_losing_or_repeating_games(
    tmp_path: Path, how: signal.Signals
) -> None:
    db = tmp_path / "arena.sqlite"
    command = [
        sys.executable, "-m", "arena_cli.main", "tournament", "tictactoe",
        *[arg for spec in PLAYERS for arg in ("--player", spec)],
        "--games-per-pair", "8", "--move-time", "0.5", "--db", str(db), "--no-progress",
    ]  # fmt: skip
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 60
        while count_results(db) < 4:
            assert process.poll() is None, process.stdout.read() if process.stdout else ""
            assert time.monotonic() < deadline, "the tournament made no progress"
            time.sleep(0.05)
        if how == signal.SIGKILL:
            os.killpg(process.pid, signal.SIGKILL)  # the tournament and its players, at once
        else:
            process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    done_before = count_results(db)
    assert 4 <= done_before < 24
    with sqlite3.connect(db) as conn:
        tournament_id = conn.execute("SELECT id FROM tournaments").fetchone()[0]
    out = tmp_path / "resumed.json"
    code = main(
        [
            "tournament",
            "--resume",
            tournament_id,
            "--db",
            str(db),
            "--out",
            str(out),
            "--no-progress",
        ]
    )
    assert code == 0
    document = json.loads(out.read_text())
    check_consistency(document, PLAYERS, 8)
    with sqlite3.connect(db) as conn:
        indices = [r[0] for r in conn.execute("SELECT idx FROM tournament_games")]
    assert sorted(indices) == list(range(24))


def test_crashing_player_is_restarted_then_withdrawn(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    code = main(
        [
            "tournament", "tictactoe", "--player", "random", "--player", "faulty:crash_after=1",
            "--player", "greedy", "--games-per-pair", "4", "--move-time", "0.5",
            "--reconnect-grace", "0.3", "--db", str(tmp_path / "arena.sqlite"),
            "--out", str(out), "--no-progress",
        ]
    )  # fmt: skip
    assert code == 0
    document = json.loads(out.read_text())
    games = document["games"]
    assert len(games) == 12
    faulty = [g for g in games if "faulty:crash_after=1" in g["seats"]]
    terminations = collections.Counter(g["termination"] for g in faulty)
    # it crashed (and was restarted) until withdrawn; its remaining games are forfeits
    assert terminations["withdrawn"] >= 1
    assert terminations["disconnect"] + terminations["withdrawn"] + terminations[
        "line"
    ] + terminations["board_full"] == len(faulty)
    for game in faulty:
        if game["termination"] in {"withdrawn", "disconnect"}:
            seat = game["seats"].index("faulty:crash_after=1")
            assert game["scores"][seat] == 0.0
    # the other pair played all its games normally
    others = [g for g in games if "faulty:crash_after=1" not in g["seats"]]
    assert len(others) == 4
    assert all(g["termination"] in {"line", "board_full"} for g in others)


def game_moves(db: Path) -> dict[int, list[str]]:
    """The notation of every tournament game's moves, by schedule index."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT m.tags, mv.notation FROM matches m JOIN moves mv ON mv.match_id = m.id"
            " WHERE m.tournament IS NOT NULL ORDER BY m.id, mv.ply"
        ).fetchall()
    games: dict[int, list[str]] = collections.defaultdict(list)
    for extra, notation in rows:
        games[json.loads(extra)["index"]].append(notation)
    return dict(games)


def test_same_seed_replays_the_same_tournament(tmp_path: Path) -> None:
    players = ["random", "mcts:time=none,iterations=60"]
    for run in ("a", "b"):
        code = main(
            [
                "tournament", "tictactoe", *[x for p in players for x in ("--player", p)],
                "--games-per-pair", "4", "--seed", "7", "--move-time", "2",
                "--db", str(tmp_path / f"{run}.sqlite"), "--no-progress",
            ]
        )  # fmt: skip
        assert code == 0
    first, second = game_moves(tmp_path / "a.sqlite"), game_moves(tmp_path / "b.sqlite")
    assert sorted(first) == [0, 1, 2, 3]
    assert first == second
    # and the per-game seeds differ, so the games are not all the same game
    assert len({tuple(moves) for moves in first.values()}) > 1


@pytest.mark.parametrize(
    ("late_at", "withdrawn"),
    [(1, False), (0, True)],
    ids=["time-loss-after-moving-is-a-loss", "never-moving-is-a-failure"],
)
def test_a_time_loss_is_a_loss_over_the_board_a_player_that_never_moves_is_withdrawn(
    tmp_path: Path, late_at: int, withdrawn: bool
) -> None:
    """A slow engine loses its games on time and keeps its seat; a stalled one is withdrawn."""
    faulty = f"faulty:late_at={late_at}"
    out = tmp_path / "results.json"
    code = main(
        [
            "tournament", "tictactoe", "--player", "random", "--player", faulty,
            "--games-per-pair", "4", "--move-time", "0.3", "--max-failures", "2",
            "--db", str(tmp_path / "arena.sqlite"), "--out", str(out), "--no-progress",
        ]
    )  # fmt: skip
    assert code == 0
    games = json.loads(out.read_text())["games"]
    assert len(games) == 4
    terminations = [g["termination"] for g in games]
    for game in games:
        assert game["scores"][game["seats"].index(faulty)] == 0.0
    if withdrawn:  # two timeouts before its first move, then withdrawn: the rest unplayed
        assert terminations == ["timeout", "timeout", "withdrawn", "withdrawn"]
    else:  # every game played, each lost on time at its second move
        assert terminations == ["timeout"] * 4
