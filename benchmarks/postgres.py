"""The PostgreSQL a benchmark runs on: the URL it was given, or a throwaway cluster.

Why its own room: `benchmarks.server --postgres`, `benchmarks.nodes` and
`benchmarks.ladder` each need a fresh database per measurement, either in a
server the user names (``--db URL``: that database every time) or in a
cluster started for the run (`store.postgres.cluster`: a new database each
time, the cluster stopped at the end). Without PostgreSQL's programs the
benchmark exits with one line saying so (status 2).
"""

from __future__ import annotations

import argparse


class Databases:
    """Database URLs for one benchmark run (`url`, or a throwaway cluster's new ones)."""

    def __init__(self, parser: argparse.ArgumentParser, prefix: str, url: str | None) -> None:
        self.url = url
        self.cluster = None
        if url is None:
            from store.postgres import cluster as pgcluster

            reason = pgcluster.available()
            if reason is not None:
                parser.exit(2, f"{prefix}: {reason}\n")
            self.cluster = pgcluster.PostgresServer()
            self.cluster.start()

    def new(self) -> str:
        """A database for the next measurement."""
        if self.cluster is None:
            assert self.url is not None
            return self.url
        return self.cluster.new_database()

    def stop(self) -> None:
        """Stop the throwaway cluster, if one was started."""
        if self.cluster is not None:
            self.cluster.stop()
            self.cluster = None
