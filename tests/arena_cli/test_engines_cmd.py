"""External engines as a user meets them: `arena engines check`, `arena play --vs`, `arena tournament`.

Real processes all the way: the `arena` command, its embedded server or its
player subprocesses, and the engines (Debian's gtp-rhino, the tests' C engines).
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from pathlib import Path

import pexpect

from tests.arena_cli.cli import ROOT, run
from tests.arena_cli.test_human_pty import before, play_first_legal_moves, spawn

RHINO = "engine:cmd=gtp-rhino,args=-l 1,protocol=gtp"
# the README's examples and `arena engines --help`'s, run as written
MAKE_ENGINES = "make engines"
CHECK_RHINO = "arena engines check 'engine:cmd=gtp-rhino,args=-l 3,protocol=gtp' --game reversi"
HUMAN_RHINO = "arena play reversi human --vs 'engine:cmd=gtp-rhino,args=-l 3,protocol=gtp'"
TOURNAMENT_RHINO = (
    "arena tournament reversi -p mcts:time=0.1"
    " -p 'engine:cmd=gtp-rhino,args=-l 3,protocol=gtp' --games-per-pair 2"
)
CHECK_GNUGO = (
    "arena engines check 'engine:cmd=gnugo,args=--mode gtp --level 1,protocol=gtp' --game go"
)
CHECK_ENTRY = "arena engines check engine:rhino --game reversi --engines engines.toml"
CHECK_MINE = "arena engines check 'engine:cmd=./my_engine' --game tictactoe --move-time 0.2"
LIST = "arena engines list --engines engines.toml"
# the README's synopses (the commands table): run filled in
CHECK_SYNOPSIS, LIST_SYNOPSIS = "arena engines check SPEC --game GAME", "arena engines list"
SCENARIOS = {
    CHECK_SYNOPSIS: "test_engines_check_passes_a_real_gtp_program",
    LIST_SYNOPSIS: "test_the_help_examples_run_as_written",
    MAKE_ENGINES: "test_make_engines_says_what_it_found",
    CHECK_RHINO: "test_engines_check_passes_a_real_gtp_program",
    CHECK_GNUGO: "test_engines_check_passes_gnu_go_at_go",
    HUMAN_RHINO: "test_a_person_plays_reversi_against_gtp_rhino",
    TOURNAMENT_RHINO: "test_the_readme_tournament_against_gtp_rhino",
    **dict.fromkeys((CHECK_ENTRY, CHECK_MINE, LIST), "test_the_help_examples_run_as_written"),
}


def args(example: str) -> list[str]:
    return shlex.split(example)[1:]


def test_make_engines_says_what_it_found(rhino: str, gnugo: str) -> None:
    done = subprocess.run(
        ["make", "-s", "engines"], cwd=ROOT, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"gtp-rhino: {rhino}; gnugo: {gnugo}; cc: {shutil.which('cc')}"


def test_engines_check_passes_a_real_gtp_program(rhino: str) -> None:
    done = run(*args(CHECK_RHINO))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"ok    start: {rhino} (pid ")
    assert "name 'GTP GRhino', version '0.16.1'" in lines[0]
    assert any(line.startswith("ok    game 1: as Black against random: ") for line in lines)
    assert any(line.startswith("ok    game 2: as White against random: ") for line in lines)
    assert lines[-2].startswith("ok    quit: ended in ") and lines[-2].endswith("; nothing left")
    assert lines[-1] == "passed"


def test_engines_check_passes_gnu_go_at_go(gnugo: str) -> None:
    done = run(*args(CHECK_GNUGO), timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"ok    start: {gnugo} (pid ")
    assert "name 'GNU Go', version '3.8'" in lines[0]
    for number, seat in ((1, "Black"), (2, "White")):
        ended = [line for line in lines if line.startswith(f"ok    game {number}: as {seat} ")]
        assert len(ended) == 1 and "(score)" in ended[0], lines
    assert any(line.endswith(": pass in " + line.split(" in ")[-1]) for line in lines)
    assert lines[-2].startswith("ok    quit: ") and lines[-2].endswith("; nothing left")
    assert lines[-1] == "passed"


def test_engines_check_fails_an_illegal_move_with_its_step(engines: dict[str, str]) -> None:
    spec = f"engine:cmd={engines['misbehave']},args=illegal-at 2"
    done = run("engines", "check", spec, "--game", "tictactoe")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[-3].startswith(
        "FAIL  game 1 ply 3: engine misbehave: engine played an illegal move"
    )
    assert lines[-2].startswith("ok    quit: ")  # ended all the same, nothing left
    assert lines[-1] == "failed"


def test_engines_check_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    for args, message in [
        (("engine:cmd=no-such-program-x", "--game", "reversi"), "was not found on PATH"),
        (
            ("engine:cmd=/bin/true,protocol=uci", "--game", "reversi"),
            "must be one of text, gtp, gomocup",
        ),
        (("random", "--game", "reversi"), "'random' is not an engine spec"),
        (("engine:cmd=/bin/true", "--game", "chess"), "unknown game 'chess'"),
        (
            ("engine:x", "--game", "reversi", "--engines", str(tmp_path / "no.toml")),
            "--engines: engines file",
        ),
        (
            ("engine:cmd=/bin/true,protocol=gtp", "--game", "connect4"),
            "protocol gtp cannot play connect4",
        ),
    ]:
        done = run("engines", "check", *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
        assert done.stderr.startswith("arena engines: ")


def test_a_game_the_protocol_cannot_play_is_refused_before_any_match() -> None:
    done = run("play", "connect4", "random", "--vs", "engine:cmd=/bin/true,protocol=gomocup")
    assert done.returncode == 2
    assert done.stderr.startswith("arena play: protocol gomocup cannot play connect4")
    assert done.stderr.count("\n") == 1


def test_engines_list_shows_the_entries_of_the_file(tmp_path: Path, rhino: str) -> None:
    engines = tmp_path / "engines.toml"
    engines.write_text(
        '[engines.rhino]\ncmd = "gtp-rhino"\nargs = ["-l", "5"]\nprotocol = "gtp"\n'
        '[engines.broken]\ncmd = "./nowhere"\n'
    )
    done = run("engines", "list", "--engines", str(engines))
    assert done.returncode == 2  # one entry cannot be used
    assert done.stdout.splitlines() == [
        f"{engines}: 2 engines",
        f"  engine:rhino  gtp: {rhino} -l 5",
        f"  engine:broken  unusable: engine cmd './nowhere': no such file ({tmp_path / 'nowhere'})",
    ]


def test_a_person_plays_reversi_against_gtp_rhino(rhino: str) -> None:
    child = spawn(*args(HUMAN_RHINO))
    try:
        child.expect("=== new match of reversi")
        verdict, moves = play_first_legal_moves(child)
        assert moves >= 5
        assert verdict.split(" (")[0] in ("you win", "you lose", "draw")
        child.expect(r"played 1 match: \d W, \d D, \d L")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0, before(child)


def test_a_tournament_with_gtp_rhino_at_two_levels(tmp_path: Path, rhino: str) -> None:
    engines = tmp_path / "engines.toml"
    engines.write_text(
        '[engines.rhino2]\ncmd = "gtp-rhino"\nargs = ["-l", "2"]\nprotocol = "gtp"\n'
    )
    out = tmp_path / "results.json"
    done = run(
        "tournament", "reversi",
        "-p", "mcts:time=0.05", "-p", f"rhino1={RHINO}", "-p", "engine:rhino2",
        "--engines", str(engines), "--games-per-pair", "2", "--move-time", "0.3",
        "--db", str(tmp_path / "t.sqlite"), "--out", str(out), "--no-progress",
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    results = json.loads(out.read_text())
    assert "rhino1" in done.stdout and "engine:rhino2" in done.stdout
    assert len(results["games"]) == 6, results.keys()


def test_the_readme_tournament_against_gtp_rhino(tmp_path: Path, rhino: str) -> None:
    done = run(*args(TOURNAMENT_RHINO), cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 games" in done.stdout and "engine:cmd=gtp-rhino" in done.stdout
    assert (tmp_path / "arena.sqlite").exists()


def test_the_help_examples_run_as_written(
    tmp_path: Path, engines: dict[str, str], rhino: str
) -> None:
    shutil.copy(engines["text_engine"], tmp_path / "my_engine")
    (tmp_path / "engines.toml").write_text(
        '[engines.rhino]\ncmd = "gtp-rhino"\nargs = ["-l", "3"]\nprotocol = "gtp"\n'
    )
    for example in (CHECK_ENTRY, CHECK_MINE):
        done = run(*args(example), cwd=tmp_path)
        assert done.returncode == 0, (example, done.stdout, done.stderr)
        assert done.stdout.splitlines()[-1] == "passed"
    for example in (LIST, LIST_SYNOPSIS):  # ./engines.toml by default
        done = run(*args(example), cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[1] == f"  engine:rhino  gtp: {rhino} -l 3"


def test_the_web_app_refuses_an_engine_it_could_not_launch(tmp_path: Path) -> None:
    done = run(
        "serve", "--port", "0", "--web", "0", "--db", str(tmp_path / "a.sqlite"),
        "--engine", "rhino=engine:cmd=no-such-program-x,protocol=gtp",
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("arena serve: --engine rhino: agent 'engine': engine cmd")
    assert done.stderr.count("\n") == 1


def test_a_tournament_withdraws_an_engine_that_keeps_failing_to_start(
    tmp_path: Path, engines: dict[str, str]
) -> None:
    broken = f"broken=engine:cmd={engines['misbehave']},args=exit-now"
    done = run(
        "tournament", "tictactoe", "-p", "random", "-p", broken, "-p", "greedy",
        "--games-per-pair", "2", "--max-failures", "2", "--db", str(tmp_path / "t.sqlite"),
        "--no-progress", timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "withdrawn: broken: its process died 2 times in a row" in text
    assert "engine misbehave: engine exited (code 3) (during its handshake)" in text
    assert "random vs greedy" in text or "greedy vs random" in text  # the others played on
