"""The `arena tournament` examples (its --help and the README), run as written.

Each runs in a tmp dir with its own arena.sqlite. The 30-game round-robins
(minutes of play) are stopped by Ctrl-C after their first game: exit 130 and
the resume command; `arena tournament --resume ID` (ID: the stopped one) then
plays on and is stopped the same way. The gauntlet's book.txt is written
first: two connect-four openings (and a comment). The SPRT and the gauntlet
run to their end.
"""

from __future__ import annotations

import re
import signal
from pathlib import Path

import pytest

from tests.arena_cli.cli import Arena, clean_env, run
from tests.arena_cli.examples import argv

ROUND_ROBIN = (
    "arena tournament connect4 -p mcts:time=0.5 -p mcts:time=0.5,c=2.0 -p random"
    " --games-per-pair 10"
)
QUICK_START = (
    "arena tournament connect4 --player mcts:time=0.5 --player mcts:time=0.5,c=2.0"
    " --player random --games-per-pair 10 --concurrency 2 --instances 2 --out results.json"
)
SPRT = (
    "arena tournament tictactoe -o width=4 -o height=4 -o k=3 -p mcts:time=0.05 -p random"
    " --sprt elo0=0,elo1=100 --random-openings 2 --max-pairs 200"
)
GAUNTLET = (
    "arena tournament connect4 --gauntlet -p mcts:time=0.2 -p random -p greedy --openings book.txt"
)
RESUME = "arena tournament --resume ID"

SCENARIOS = {
    ROUND_ROBIN: "test_round_robin_stops_and_resumes",
    QUICK_START: "test_round_robin_stops_and_resumes",
    RESUME: "test_round_robin_stops_and_resumes",
    SPRT: "test_sprt_decides",
    GAUNTLET: "test_gauntlet_from_an_opening_book",
}
STOPPED = re.compile(
    r"stopped by SIGINT: (\d+) games stored; resume with: arena tournament --resume (t-\w+)"
)


def stopped_after_a_game(tournament: Arena) -> tuple[int, str]:
    """Ctrl-C once a game is over: exit 130 and a resume line; (games stored, the id)."""
    try:
        tournament.wait_for("/30 (#", timeout=120)  # "game 1/30 (#2): ..."
    finally:
        code, took = tournament.stop(signal.SIGINT)
    assert code == 130 and took < 2.5, tournament.stderr
    found = STOPPED.search(tournament.stdout + tournament.stderr)
    assert found, tournament.stdout + tournament.stderr
    return int(found.group(1)), found.group(2)


@pytest.mark.slow
@pytest.mark.parametrize("example", [ROUND_ROBIN, QUICK_START], ids=["help", "readme"])
def test_round_robin_stops_and_resumes(tmp_path: Path, example: str) -> None:
    env = clean_env()
    first = Arena(*argv(example), cwd=tmp_path, env=env)
    first.wait_for("starting")
    assert "round-robin, 10 games per pair" in first.stdout
    done, tournament = stopped_after_a_game(first)
    assert 1 <= done < 30
    resumed = Arena(*argv(RESUME, ID=tournament), cwd=tmp_path, env=env)
    more, same = stopped_after_a_game(resumed)
    assert same == tournament and done < more < 30
    listed = run("tournament", "--list", cwd=tmp_path, env=env)
    assert listed.returncode == 0 and tournament in listed.stdout
    assert re.search(rf"{tournament}.*stopped.*\b{more}/30\b", listed.stdout, re.S), listed.stdout
    if "--out" in example:  # written at the end only
        assert not (tmp_path / "results.json").exists()


@pytest.mark.slow
def test_sprt_decides(tmp_path: Path) -> None:
    done = run(*argv(SPRT), cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "SPRT elo0=0,elo1=100,alpha=0.05,beta=0.05, at most 200 pairs" in done.stdout
    assert "random openings of 2 plies" in done.stdout
    assert re.search(r"SPRT: games \d+ \(\d+ pairs\).* LLR [\d.-]+ \(-2\.94, 2\.94\)", done.stdout)
    assert "SPRT verdict: H1 accepted" in done.stdout  # MCTS is far above random here


@pytest.mark.slow
def test_gauntlet_from_an_opening_book(tmp_path: Path) -> None:
    (tmp_path / "book.txt").write_text("4 4\n# a comment\n3 5\n")
    done = run(*argv(GAUNTLET), cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "gauntlet of mcts:time=0.2, 2 games per pair" in done.stdout
    assert "openings from book.txt (sequential)" in done.stdout
    games = re.findall(r"game \d/4 \(#\d\): (\S+) vs (\S+): ", done.stdout)
    assert len(games) == 4 and all("mcts:time=0.2" in pair for pair in games)
    assert "(gauntlet, finished)" in done.stdout
