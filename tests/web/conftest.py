"""The browser fixtures every Chromium test module shares: one browser per module, a
fresh context per test, and no JavaScript error left unnoticed."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.web.browser import chromium_path

#: how long a page action or wait may take, ms
PAGE_TIMEOUT = 60_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    playwright_api = pytest.importorskip("playwright.sync_api")
    executable = chromium_path()
    with playwright_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(PAGE_TIMEOUT)
    yield page
    context.close()
    assert not errors, f"JavaScript errors: {errors}"
