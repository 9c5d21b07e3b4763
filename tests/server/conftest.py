"""Fixtures shared by the server tests (a server on loopback; the storage contract's databases,
on both backends); they also use the protocol tests' helpers (tests/protocol/protocol_helpers.py)."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from socket_helpers import Running, running_server
from storage_helpers import Opener

from sushigo.server.storage.contract import Storage
from sushigo.server.storage.database import open_storage

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))


@pytest.fixture
async def running() -> AsyncIterator[Running]:
    """A server in this process on loopback, with the default limits."""
    async with running_server() as r:
        yield r


@pytest.fixture(params=["sqlite", "postgresql"])
def db_name(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """What ``--db`` would say: a file, or the URL of a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "contract.db")
    url: str = request.getfixturevalue("pg_url")
    return url


@pytest.fixture
def opener(db_name: str) -> Iterator[Opener]:
    """Opens the test's database (as often as a test likes); closes what is left open."""
    opened: list[Storage] = []

    def open_(*, write_behind: bool = False, exclusive: bool = False) -> Storage:
        storage = open_storage(db_name, write_behind=write_behind, exclusive=exclusive)
        opened.append(storage)
        return storage

    yield open_
    for storage in opened:
        storage.close()


@pytest.fixture
def db(opener: Opener) -> Storage:
    return opener()


@pytest.fixture
def wb(opener: Opener) -> Storage:
    return opener(write_behind=True)


@pytest.fixture(params=[False, True])
def storage(opener: Opener, request: pytest.FixtureRequest) -> Storage:
    """The test's database, written through at once, and again with write-behind."""
    return opener(write_behind=request.param)
