"""A TLS connection is "behind" (`Conn.behind`) only while its transport holds unsent bytes, as a
plain one is: asyncio's TLS transport calls ``pause_writing`` at a high-water mark of 0 even with
nothing held, so a client that read every reply would have its next list refused ("read what was
sent first"); and the tournament command connects with TLS too."""

from __future__ import annotations

import asyncio
import time
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


async def test_a_reading_tls_client_is_never_refused_a_list(tmp_path: Path) -> None:
    storage = SqliteStorage(tmp_path / "server.db")
    hub = Hub(
        storage=storage,
        key=Ed25519PrivateKey.generate(),
        wall_ms=lambda: int(time.time() * 1000),
    )
    context = server_ssl_context(ensure_certificate(tmp_path / "tls"))
    server = Server(hub, "127.0.0.1", 0, context)
    (host, port), *_ = await server.start()
    try:
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
    finally:
        await server.stop()
        storage.close()


async def test_the_tournament_command_reaches_a_tls_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sushigo-tournament HOST:PORT --tls`, as every other command that connects has it."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # the pinned certificates
    storage = SqliteStorage(tmp_path / "server.db")
    hub = Hub(
        storage=storage,
        key=Ed25519PrivateKey.generate(),
        wall_ms=lambda: int(time.time() * 1000),
    )
    server = Server(hub, "127.0.0.1", 0, server_ssl_context(ensure_certificate(tmp_path / "tls")))
    (host, port), *_ = await server.start()
    try:
        argv = [f"{host}:{port}", "--tls", "create", "cup", "--players", "2", "--games", "1"]
        assert await asyncio.to_thread(tournament_main, argv) == 0
        assert await asyncio.to_thread(tournament_main, [f"{host}:{port}", "--tls", "list"]) == 0
    finally:
        await server.stop()
        storage.close()
