"""The engine door as a new user meets it (issue 45, items 4 to 7), through the `arena` command.

An engines file entry's `name` is the player's name wherever a name is shown
or recorded; `arena engines check` shows the engine's own explanation beside
a failed step; a bad option lists the real defaults; docs/ENGINES.md says
what the check and the adapters really do.
"""

from __future__ import annotations

import json
import re
import signal
import sqlite3
from pathlib import Path

import pytest

from tests.arena_cli.cli import ROOT, arena, clean_env, run

DOC = ROOT / "docs" / "ENGINES.md"
#: a text engine that refuses every game the only way the protocol allows: it exits
PICKY = """#!/bin/sh
while read -r command rest; do
  case $command in
    arena) echo "id name picky"; echo arenaok ;;
    isready) echo readyok ;;
    newgame) set -- $rest; echo "cannot play $1" >&2; exit 3 ;;
    quit) exit 0 ;;
  esac
done
"""


@pytest.fixture
def engines_file(tmp_path: Path, engines: dict[str, str]) -> Path:
    picky = tmp_path / "picky"
    picky.write_text(PICKY)
    picky.chmod(0o755)
    transcript = tmp_path / "transcript"  # what the engine was sent, line by line
    recorder = tmp_path / "recorded"
    recorder.write_text(f'#!/bin/sh\ntee -a "{transcript}" | "{engines["text_engine"]}"\n')
    recorder.chmod(0o755)
    path = tmp_path / "engines.toml"
    path.write_text(
        f'[engines.first]\ncmd = "{engines["text_engine"]}"\nname = "first-legal"\n\n'
        f'[engines.picky]\ncmd = "{picky}"\n\n'
        f'[engines.recorded]\ncmd = "{recorder}"\ninit = ["hello there"]\n'
    )
    return path


# --- item 4: the entry's name is the player's name ------------------------------------------


def test_a_tournament_names_the_engine_by_its_entry_name(
    tmp_path: Path, engines_file: Path
) -> None:
    out = tmp_path / "results.json"
    done = run(
        "tournament", "tictactoe", "--player", "random", "--player", "engine:first",
        "--engines", str(engines_file), "--games-per-pair", "2", "--move-time", "0.3",
        "--db", str(tmp_path / "arena.sqlite"), "--out", str(out), "--no-progress",
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "first-legal" in done.stdout and "engine:first" not in done.stdout, done.stdout
    standings = json.loads(out.read_text())["standings"]
    assert sorted(row["name"] for row in standings) == ["first-legal", "random"]


def recorded_players(db: Path) -> set[str]:
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT players FROM matches").fetchall()
    return {name for (players,) in rows for name in json.loads(players)}


@pytest.mark.parametrize("engine_plays", ["the player", "the --vs opponent"])
def test_arena_play_records_the_engine_by_its_entry_name(
    tmp_path: Path, engines_file: Path, engine_plays: str
) -> None:
    db = tmp_path / "arena.sqlite"
    player, opponent = ("engine:first", "random")
    if engine_plays != "the player":
        player, opponent = opponent, player
    done = run(
        "play", "tictactoe", player, "--vs", opponent, "--engines", str(engines_file),
        "--move-time", "0.3", "--db", str(db),
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    if engine_plays != "the player":
        assert re.search(r"(win|loss|draw) as [XO] vs first-legal,", done.stdout), done.stdout
    assert "first-legal" in recorded_players(db)
    wide = {**clean_env(), "COLUMNS": "200"}
    shown = run("matches", "--db", str(db), env=wide)
    assert "first-legal" in shown.stdout and "entry=first" not in shown.stdout, shown.stdout


def test_the_web_app_offers_the_engine_by_its_entry_name(
    tmp_path: Path, engines_file: Path
) -> None:
    with arena(
        "serve", "--port", "0", "--web", "0", "--db", str(tmp_path / "arena.sqlite"),
        "--engine", "engine:first", "--engine", "mine=engine:first", "--engines", str(engines_file),
    ) as server:  # fmt: skip
        server.wait_for('"engines": ["first-legal", "mine"]')  # a NAME= given is kept
        code, _ = server.stop(signal.SIGTERM)
    assert code == 143


# --- item 5: the engine's own words beside a FAIL ----------------------------------------------


def test_engines_check_shows_the_engines_stderr_beside_a_failure(engines_file: Path) -> None:
    done = run("engines", "check", "engine:picky", "--game", "tictactoe",
               "--engines", str(engines_file))  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    failed = next(i for i, line in enumerate(lines) if line.startswith("FAIL"))
    assert "game 1: engine picky: engine exited (code 3)" in lines[failed], done.stdout
    assert lines[failed + 1] == "      engine stderr: cannot play tictactoe", done.stdout


# --- item 6: the real defaults, and every key documented ---------------------------------------


def test_a_bad_engine_option_lists_the_real_defaults() -> None:
    done = run("play", "tictactoe", "engine:cmd=x,speed=3")
    assert done.returncode == 2
    assert done.stderr.startswith("arena play: unknown option 'speed' for agent 'engine'")
    listed = dict(re.findall(r"(\w+)=([^,)]+)", done.stderr.partition("valid options:")[2]))
    assert listed == {
        "entry": "none", "cmd": "none", "args": "none", "protocol": "text", "name": "none",
        "workdir": "none", "init": "none", "margin": "0.05", "start_timeout": "10",
        "restart": "auto",
    }  # fmt: skip
    # the doc's table gives the same keys and the same defaults
    section = DOC.read_text().partition("## The spec")[2].partition("\n## ")[0]
    table = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", section, re.M))
    assert set(table) == set(listed) - {"entry"}
    for key in ("protocol", "margin", "start_timeout", "restart"):
        assert table[key].strip() == f"`{listed[key]}`"


# --- item 7: the doc says what the check and the adapters do ----------------------------------


def test_the_check_plays_one_game_on_each_seat_as_the_doc_says(engines_file: Path) -> None:
    done = run("engines", "check", "engine:first", "--game", "tictactoe", "--move-time", "0.2",
               "--engines", str(engines_file))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    games = re.findall(r"^ok    (game \d): as ([XO]) against random", done.stdout, re.M)
    assert games == [("game 1", "X"), ("game 2", "O")], done.stdout
    text = " ".join(DOC.read_text().split())
    assert "plays two short games against `random` (one on each seat" in text


def test_the_text_adapter_sends_isready_and_unknown_commands_as_the_doc_says(
    tmp_path: Path, engines_file: Path
) -> None:
    done = run("engines", "check", "engine:recorded", "--game", "tictactoe", "--move-time",
               "0.2", "--engines", str(engines_file))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr  # it ignored "hello there"
    sent = [line.split()[0] for line in (tmp_path / "transcript").read_text().splitlines()]
    assert sent[:4] == ["arena", "hello", "isready", "newgame"]  # init, then isready
    # isready after the handshake and after every newgame, never before a go
    assert sent.count("isready") == 1 + sent.count("newgame") == 3
    for index, command in enumerate(sent):
        if command == "go":
            assert sent[index - 1] == "position"
    text = " ".join(DOC.read_text().split())
    assert "a command the engine does not know is to be ignored, without an answer" in text
    assert "after every `newgame`, not before each `go`" in text
    assert "**Flush after every line**" in text
