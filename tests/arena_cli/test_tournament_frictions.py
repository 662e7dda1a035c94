"""`arena tournament` as a user runs it (issue 26, items 2, 3 and 5).

The progress bar knows how many games there are; result files that cannot
be written are refused before any game when that can be known, and
otherwise fail with one line, exit 1 and the games kept; a pool another
director owns is explained, with a command that works.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import signal
import tempfile
from pathlib import Path

import pexpect
import pytest

from tests.arena_cli.cli import arena, clean_env, free_port, run, terminal

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def test_the_progress_bar_knows_its_total(tmp_path: Path) -> None:
    """3 players, 2 games a pair: 6 games, shown as n/6 from the start to the end."""
    env = clean_env(TERM="xterm")
    child = terminal(
        "tournament", "connect4", "-p", "random", "-p", "greedy", "-p", "random",
        env=env, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    try:
        child.expect(pexpect.EOF)
        shown = ANSI.sub("", child.before or "")
    finally:
        child.close()
    assert child.exitstatus == 0, shown
    assert "0/6" in shown and "6/6" in shown, shown
    assert "/?" not in shown, shown
    assert "(round-robin, finished)" in shown


def test_an_unwritable_out_is_refused_before_any_game(tmp_path: Path) -> None:
    target = "/sys/results.json"  # root may write anywhere by its permissions, not there
    if not Path("/sys").is_dir() or probe_writes("/sys"):
        pytest.skip("no /sys that refuses new files here")
    done = run("tournament", "connect4", "-p", "random", "-p", "greedy", "--out", target,
               cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"--out {target!r}: cannot create files in '/sys'" in lines[0]
    assert "game 1" not in done.stdout and "Traceback" not in done.stderr
    assert not (tmp_path / "arena.sqlite").exists()


def probe_writes(directory: str) -> bool:
    try:
        with tempfile.TemporaryFile(dir=directory):
            return True
    except OSError:
        return False


def test_an_out_that_fails_after_the_games_is_one_line_and_the_games_are_kept(
    tmp_path: Path,
) -> None:
    """The directory of one --out file vanishes while a remote player is awaited."""
    gone, kept = tmp_path / "gone", tmp_path / "kept.csv"
    gone.mkdir()
    out = str(gone / "results.json")
    with arena(
        "tournament", "connect4", "-p", "random", "--remote", "bob", "--db", "t.sqlite",
        "--out", out, "--out", str(kept), "--no-progress", cwd=tmp_path,
    ) as director:  # fmt: skip
        director.wait_for("waiting for remote player bob")
        director.wait_for("--games 0")  # the whole invitation (it may wrap)
        invite = re.search(
            r"--port\s+(\d+)\s+--name\s+'bob'\s+--pool\s+(\S+)\s+--secret\s+(\S+)",
            director.stdout,
        )
        assert invite, director.stdout
        port, pool, secret = invite.groups()
        shutil.rmtree(gone)
        with arena(
            "play", "connect4", "greedy", "--port", port, "--name", "bob", "--pool", pool,
            "--secret", secret, "--games", "0",
        ):  # fmt: skip
            code = director.finish(timeout=120)
    assert code == 1, director.stderr
    errors = director.stderr.strip().splitlines()
    assert (
        errors[0] == f"arena tournament: --out {out!r}: cannot write it: No such file or directory"
    )
    assert "the 2 games are stored in t.sqlite; write the results again with: " in errors[1]
    assert "Traceback" not in director.stderr
    assert "Tournament t-" in director.stdout and f"results written to {kept}" in director.stdout
    assert kept.read_text().startswith("rank,name,games")  # the other file is written
    assert not gone.exists()
    # the printed command writes them, once the directory is back
    gone.mkdir()
    again = run(*shlex.split(errors[1].split("with: ", 1)[1])[1:], cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    assert len(json.loads((gone / "results.json").read_text())["games"]) == 2


def test_a_pool_owned_by_another_database_is_explained_with_a_command_that_works(
    tmp_path: Path,
) -> None:
    port = str(free_port())
    server_flag = f"127.0.0.1:{port}"
    same = ["tournament", "connect4", "-p", "random", "-p", "greedy", "--server", server_flag]
    with arena("serve", "--port", port, "--no-db", cwd=tmp_path) as server:
        server.wait_for("listening")
        first = run(*same, "--db", "t1.sqlite", cwd=tmp_path)
        assert first.returncode == 0, first.stderr
        again = run(*same, "--db", "t3.sqlite", cwd=tmp_path)
        assert again.returncode == 2, again.stderr
        explained, resume = again.stderr.strip().splitlines()
        pool = re.search(r"pool '(t-\w+)' on " + re.escape(server_flag), explained)
        assert pool, explained
        assert "owner key" in explained and "another --db" in explained
        assert "--pool NAME" in explained and "Traceback" not in again.stderr
        assert resume.startswith(f"resume with: arena tournament --resume {pool.group(1)}")
        assert f"--db t3.sqlite --server {server_flag} --pool {pool.group(1)}-" in resume
        resumed = run(*shlex.split(resume.split(": ", 1)[1])[1:], cwd=tmp_path)
        assert resumed.returncode == 0, resumed.stderr
        assert "(round-robin, finished)" in resumed.stdout
        assert server.stop(signal.SIGINT)[0] == 130


def test_the_note_on_too_few_player_processes_counts_the_remote_players(tmp_path: Path) -> None:
    """Two local and two remote players allow two games at once: no note, neither at the
    start nor on a resume (which gives no --remote); three games at once would need more."""
    start = ["tournament", "connect4", "-p", "random", "-p", "greedy", "--remote", "bob",
             "--remote", "carol", "--concurrency", "2", "--db", "t.sqlite", "--no-progress"]  # fmt: skip
    with arena(*start, cwd=tmp_path) as first:
        first.wait_for("waiting for remote player carol")
        code, _ = first.stop(signal.SIGINT)
    assert code != 0 and "allow fewer" not in first.stdout + first.stderr, first.stdout
    found = re.search(r"--resume (t-\w+)", first.stdout + first.stderr)
    assert found, first.stdout + first.stderr
    for concurrency, noted in (("2", False), ("3", True)):
        resume = ["tournament", "--resume", found.group(1), "--db", "t.sqlite", "--no-progress",
                  "--concurrency", concurrency]  # fmt: skip
        with arena(*resume, cwd=tmp_path) as again:
            again.wait_for("waiting for remote player carol")
            again.stop(signal.SIGINT)
        said = again.stdout + again.stderr
        assert ("processes allow fewer than" in said) == noted, said
        assert not noted or "2 local player processes allow fewer than 3 games" in said
