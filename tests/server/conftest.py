"""Fixtures shared by the server tests; they also use the protocol tests' helpers
(tests/protocol/protocol_helpers.py)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from socket_helpers import Running, running_server

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))


@pytest.fixture
async def running() -> AsyncIterator[Running]:
    """A server in this process on loopback, with the default limits."""
    async with running_server() as r:
        yield r
