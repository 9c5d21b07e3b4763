"""The web client's tests: a real `sushigo-server --web` process (tests/processes.py) for each
test, and, for the tests in a browser, one headless Chromium for the whole run (`browser`) with
a fresh page per test (`page`). The browser is Debian's chromium, driven by Playwright; it is
never downloaded."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cluster"))  # nodes.py

from processes import ServerProcess


@pytest.fixture
async def web_server(tmp_path: Path) -> AsyncIterator[ServerProcess]:
    """`sushigo-server --web 127.0.0.1:0` on its own database."""
    server = ServerProcess(tmp_path / "server.db", extra=("--web", "127.0.0.1:0"))
    await server.start()
    try:
        yield server
    finally:
        await server.stop()
