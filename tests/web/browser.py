"""How the tests (tests/web/conftest.py's `chromium`) and scripts/bench_web.py start their headless
Chromium: Debian's own (never downloaded), driven by Playwright's async API, with one set of flags."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHROMIUM = Path("/usr/bin/chromium")
INSTALL = "Chromium is missing: install Debian's package (apt-get install -y chromium)"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
"""Headless, as root in a container (no sandbox), and nothing that calls out."""


async def launch(playwright: Any) -> Any:
    """A headless Chromium (a Playwright `Browser`) from `playwright` (``async_playwright()``'s);
    a `RuntimeError` saying how to install it where it is missing."""
    if not CHROMIUM.exists():
        raise RuntimeError(INSTALL)
    return await playwright.chromium.launch(
        executable_path=str(CHROMIUM), args=list(FLAGS), headless=True
    )
