"""benchmarks/server.py: more matches than one address may hold by default, and its failures."""

from __future__ import annotations

import subprocess
import sys

import pytest
import trio

from benchmarks import server as bench
from tests.arena_cli.cli import ROOT
from tests.server.harness import running_server

CLIENTS = [sys.executable, "-m", "benchmarks.server", "--client-process"]


async def test_a_refused_client_stops_the_run_with_the_servers_reason() -> None:
    """The clients' process against a server that allows fewer connections than it
    opens: one line naming the limit, exit code 1, and no traceback."""
    async with running_server(max_connections_per_address=2) as server:
        done = await trio.run_process(
            [*CLIENTS, str(server.port), "2", "5", "tictactoe"],
            cwd=ROOT,
            capture_stderr=True,
            check=False,
        )
    lines = done.stderr.decode().splitlines()
    assert done.returncode == 1
    assert len(lines) == 1
    assert lines[0].startswith("benchmarks.server: the server refused client ")
    assert ": too_many_connections: more than 2 connections from 127.0.0.1 (" in lines[0]


def test_it_says_which_open_file_limit_it_needs() -> None:
    done = subprocess.run(
        [
            "bash",
            "-c",
            f"ulimit -n 100 && exec {sys.executable} -m benchmarks.server --matches 400",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "benchmarks.server: 400 matches need 864 open files per process, and this shell"
        " allows 100 (ulimit -Hn): raise it (ulimit -n 864) or run fewer matches"
    ]


@pytest.mark.slow
def test_more_matches_than_the_default_cap_allows_are_measured() -> None:
    """150 matches are 300 connections from 127.0.0.1, over the default 256."""
    rate, *_ = trio.run(bench.measure_arena, 150, 0.5, "tictactoe")
    assert rate > 0
