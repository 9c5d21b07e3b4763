"""The integration tests share the server tests' helpers (tests/server/*_helpers.py), the
server process of tests/processes.py, and `server`: a real server on loopback over a database file."""

import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sushigo.server.hub.core import Hub
from sushigo.server.keys import load_or_create_server_key
from sushigo.server.net.app import Server
from sushigo.server.storage.sqlite.storage import SqliteStorage

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[tuple[str, int, Path]]:
    """An in-process server on loopback: (host, port, its database file, whose key file lies
    beside it as `sushigo-server` keeps it)."""
    db = tmp_path / "server.db"
    storage = SqliteStorage(db)
    key = load_or_create_server_key(db.with_name(db.name + ".key"))
    srv = Server(
        Hub(storage=storage, key=key, wall_ms=lambda: 1_700_000_000_000), "127.0.0.1", 0, None
    )
    ((host, port),) = await srv.start()
    yield host, port, db
    await srv.stop()
    storage.close()
