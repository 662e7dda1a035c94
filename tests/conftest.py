"""Shared test setup."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import structlog


@pytest.fixture(autouse=True)
def _fresh_structlog() -> Iterator[None]:
    """Tests that run CLI commands configure logging; never let that leak into the next test."""
    yield
    structlog.reset_defaults()
