"""The web client's tests: a real `sushigo-server --web` process (tests/processes.py) for each
test, and, for the tests in a browser, one headless Chromium for the whole run (`chromium`)
with a fresh context and page per test (`page`). The browser is Debian's chromium, driven by
Playwright (its async API, on the session's event loop: the test modules here run on it) and
started as browser.py says; it is never downloaded: where it is missing the browser tests fail
saying how to install it."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cluster"))  # nodes.py

from browser import CHROMIUM, INSTALL, launch
from processes import ServerProcess

DESKTOP = {"width": 1100, "height": 850}


@pytest_asyncio.fixture(loop_scope="session")
async def web_server(tmp_path: Path) -> AsyncIterator[ServerProcess]:
    """`sushigo-server --web 127.0.0.1:0` on its own database."""
    server = ServerProcess(tmp_path / "server.db", extra=("--web", "127.0.0.1:0"))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium() -> AsyncIterator[Any]:
    """One headless Chromium for the whole run (of this test process: tests/conftest.py gives
    one process every test in this folder), shared by every test in a browser here."""
    if not CHROMIUM.exists():
        pytest.fail(INSTALL)
    from playwright.async_api import async_playwright  # noqa: PLC0415  (the browser tests only)

    async with async_playwright() as playwright:
        browser = await launch(playwright)
        try:
            yield browser
        finally:
            await browser.close()


@pytest_asyncio.fixture(loop_scope="session")
async def page(chromium: Any) -> AsyncIterator[Any]:
    """A fresh page (its own storage) on a desktop's screen. An uncaught error in the page fails
    the test."""
    context = await chromium.new_context(viewport=DESKTOP, ignore_https_errors=True)
    page = await context.new_page()
    page.set_default_timeout(30_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        yield page
    finally:
        await context.close()
    assert errors == [], errors
