"""Fixtures shared by the server tests."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from server_helpers import Running, running_server


@pytest.fixture
async def running() -> AsyncIterator[Running]:
    """A server in this process on loopback, with the default limits."""
    async with running_server() as r:
        yield r
