"""Shared test setup."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import structlog

# the engines the tests play (compiled C programs, Debian's gtp-rhino and GNU Go): fixtures
# `engines`, `rhino`, `gnugo`
from tests.engines.programs import engines as engines
from tests.engines.programs import gnugo as gnugo
from tests.engines.programs import rhino as rhino

# a real PostgreSQL started by the tests (Debian's server, `make postgres`): fixtures
# `postgres_server` (one per session) and `postgres_url` (a fresh database)
from tests.postgres import postgres_server as postgres_server
from tests.postgres import postgres_url as postgres_url


@pytest.fixture(autouse=True)
def _fresh_structlog() -> Iterator[None]:
    """Tests that run CLI commands configure logging; never let that leak into the next test."""
    yield
    structlog.reset_defaults()
