"""A TLS connection is "behind" (`Conn.behind`) only while its transport holds unsent bytes, as a
plain one is: asyncio's TLS transport calls ``pause_writing`` at a high-water mark of 0 even with
nothing held, so a client that read every reply would have its next list refused ("read what was
sent first")."""

from __future__ import annotations

import time
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.client.connection import Client
from sushigo.client.known_hosts import KnownHosts
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
