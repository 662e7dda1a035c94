"""`benchmarks.postgres.Databases`: the URL given, or a throwaway cluster's new databases."""

from __future__ import annotations

import argparse

import psycopg
import pytest

from benchmarks.postgres import Databases
from store.postgres import cluster as pgcluster
from tests.postgres import _missing


def test_a_given_url_is_every_measurements_database() -> None:
    databases = Databases(argparse.ArgumentParser(), "bench", "postgresql://h/db")
    assert databases.cluster is None
    assert databases.new() == databases.new() == "postgresql://h/db"
    databases.stop()


def test_without_postgresql_the_benchmark_exits_with_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(pgcluster, "available", lambda: "initdb not found")
    with pytest.raises(SystemExit) as exit_:
        Databases(argparse.ArgumentParser(), "benchmarks.nodes", None)
    assert exit_.value.code == 2
    assert capsys.readouterr().err == "benchmarks.nodes: initdb not found\n"


def test_a_throwaway_cluster_gives_a_fresh_database_each_time_and_stops() -> None:
    if (reason := pgcluster.available()) is not None:
        _missing(reason)
    databases = Databases(argparse.ArgumentParser(), "bench", None)
    try:
        first, second = databases.new(), databases.new()
        assert first != second
        for url in (first, second):
            with psycopg.connect(url) as conn:
                assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        databases.stop()
    assert databases.cluster is None
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(first, connect_timeout=2)
