"""A TLS connection is "behind" (`Conn.behind`) only while its transport holds unsent bytes, as a
plain one is: asyncio's TLS transport calls ``pause_writing`` at a high-water mark of 0 even with
nothing held, so a client that read every reply would have its next list refused ("read what was
sent first"); and the tournament command connects with TLS too."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.client.connection import Client
from sushigo.client.known_hosts import KnownHosts
from sushigo.client.tournament import main as tournament_main
from sushigo.server.hub.core import Hub
from sushigo.server.net.app import Server
from sushigo.server.net.tls import ensure_certificate, server_ssl_context
from sushigo.server.storage.sqlite.storage import SqliteStorage


@asynccontextmanager
async def tls_server(folder: Path) -> AsyncIterator[tuple[Hub, str, int]]:
    """A real server with TLS on 127.0.0.1 (its files in `folder`): the hub, host and port."""
    storage = SqliteStorage(folder / "server.db")
    hub = Hub(
        storage=storage,
        key=Ed25519PrivateKey.generate(),
        wall_ms=lambda: int(time.time() * 1000),
    )
    server = Server(hub, "127.0.0.1", 0, server_ssl_context(ensure_certificate(folder / "tls")))
    (host, port), *_ = await server.start()
    try:
        yield hub, host, port
    finally:
        await server.stop()
        storage.close()


async def test_a_reading_tls_client_is_never_refused_a_list(tmp_path: Path) -> None:
    async with tls_server(tmp_path) as (hub, host, port):
        client = await Client.connect(
            host, port, name="ann", tls=True, known_hosts=KnownHosts(tmp_path / "known_hosts")
        )
        try:
            for _ in range(4):
                # Each reply was read before the next request: nothing is held for the client.
                assert [conn.behind for conn in hub.conns.values()] == [False]
                await client.list_tables()
        finally:
            await client.close()


async def test_the_tournament_command_reaches_a_tls_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sushigo-tournament HOST:PORT --tls`, as every other command that connects has it."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # the pinned certificates
    async with tls_server(tmp_path) as (_, host, port):
        argv = [f"{host}:{port}", "--tls", "create", "cup", "--players", "2", "--games", "1"]
        assert await asyncio.to_thread(tournament_main, argv) == 0
        assert await asyncio.to_thread(tournament_main, [f"{host}:{port}", "--tls", "list"]) == 0
