"""Helpers for the tests of a PostgreSQL that fails mid-game (stopped, or its disk full): the
server on it with write-behind and its metrics endpoint, the game finished once the database is
back, and what the players and the database then hold."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from processes import http_get
from server_helpers import card_settings, hub_on
from socket_helpers import Played, finish

from sushigo.client.connection import Client
from sushigo.protocol import FairRecord, verify_record, verify_signed_record
from sushigo.server.net.app import Server
from sushigo.server.net.metrics import MetricsServer, registry_for
from sushigo.server.storage.postgres.storage import PgStorage


@asynccontextmanager
async def watched_server(url: str) -> AsyncIterator[tuple[PgStorage, int, int]]:
    """A server on the database at `url` (with write-behind, as the server runs it, retried
    every 0.2 s at the most) and its metrics endpoint, on loopback: (the storage, the server's
    port, the metrics' port). Both are stopped, and the storage closed, at the end."""
    storage = PgStorage(url, exclusive=True, write_behind=True)
    storage.backoff_max = 0.2
    hub = hub_on(storage)
    server = Server(hub, "127.0.0.1", 0, None)
    metrics = MetricsServer(registry_for(server), server.unready)
    try:
        (_, port), *_ = await server.start()
        (_, metrics_port), *_ = await metrics.start("127.0.0.1", 0)
        yield storage, port, metrics_port
    finally:
        await metrics.stop()
        await server.stop()
        await asyncio.to_thread(storage.close)


async def finish_once_back(
    storage: PgStorage, players: list[Client], late: Client, metrics_port: int
) -> list[Played]:
    """With the database back: the game played to its end and saved, `late` (refused a table
    while the database failed) given one now, the server ready; every client closed."""
    played = await finish(players)
    await asyncio.to_thread(storage.flush, wait=True)
    await late.create_table(card_settings(2, turn_seconds=60))  # new tables again
    assert await http_get("127.0.0.1", metrics_port, "/readyz") == (200, "ready\n")
    for c in [*players, late]:
        await c.close()
    return played


def stored_and_verified(url: str, players: list[Client], played: list[Played]) -> FairRecord:
    """The game's record, checked: every player saw no error and verified every opening, the
    signed record verifies, and the database holds it as the players got it."""
    for c, p in zip(players, played, strict=True):
        assert not p.errors
        assert c.fairness.final == "verified", c.fairness.failures
    signed = played[0].ended.record
    record = verify_signed_record(signed, players[0].server_key)
    assert verify_record(record).ok
    with PgStorage(url) as again:
        (summary,) = again.list_records()
        stored = again.get_record(summary.game_id)
    assert stored is not None and stored.record == signed.record
    return record
