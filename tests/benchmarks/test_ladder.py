"""The ladder soak in a tiny configuration: a few bots on two nodes for a few seconds."""

from __future__ import annotations

import pytest

from benchmarks.ladder import main
from tests.postgres import postgres_server as postgres_server
from tests.postgres import postgres_url as postgres_url


def test_the_soak_runs_and_its_checks_pass(
    postgres_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(
        ["--bots", "6", "--minutes", "0.1", "--baseline-minutes", "0", "--db", postgres_url]
    )
    out = capsys.readouterr().out
    assert status == 0, out
    row = next(line for line in out.splitlines() if line.split()[:1] == ["2"])
    games = int(row.split()[1])
    assert games > 0
    assert "lost 0, duplicated 0, ratings equal, pairs repeated 0, colours unbalanced 0" in row
