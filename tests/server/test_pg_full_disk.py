"""PostgreSQL's disk filling up mid-game, for real: its data directory on a small tmpfs
(tests/smalldisk.py). PostgreSQL refuses the commits that need more room ("could not extend file
...": SQLSTATE 53100) and stays up; the server plays on, holds the writes, says the disk is full
(log, /readyz, metrics, a refused new table), and once there is room stores every turn and the
game's record as its players verified it."""

from __future__ import annotations

import asyncio
import logging
import tempfile
from pathlib import Path

import pytest
from pgcluster import PgCluster
from processes import http_get
from server_helpers import (
    card_settings,
    finish,
    refusal,
    turns,
    two_at_a_game,
    watched_server,
)
from smalldisk import SmallDisk

from sushigo.client.connection import Client
from sushigo.protocol import ErrorCode, verify_record, verify_signed_record
from sushigo.server.storage.contract import Fault
from sushigo.server.storage.postgres.storage import PgStorage

FULL = "the database's disk is full"


async def test_postgresql_s_disk_fills_mid_game_then_has_room_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # Not under pytest's folder, which a pytest starting meanwhile makes private again (mode
    # 0700): PostgreSQL's own user must reach its data directory.
    with (
        tempfile.TemporaryDirectory(prefix="sushigo-pg-") as tmp,
        SmallDisk(Path(tmp) / "disk", 64 * 1024 * 1024) as disk,
    ):
        cluster = PgCluster(disk.path / "pg")
        await asyncio.to_thread(cluster.start)
        try:
            url = await asyncio.to_thread(cluster.new_database)
            await _play_while_the_disk_fills(disk, url, caplog)
        finally:
            await asyncio.to_thread(cluster.stop)


async def _play_while_the_disk_fills(
    disk: SmallDisk, url: str, caplog: pytest.LogCaptureFixture
) -> None:
    storage = PgStorage(url, exclusive=True, write_behind=True)
    storage.backoff_max = 0.2
    caplog.set_level(logging.WARNING, logger="sushigo.server")
    async with watched_server(storage) as (port, metrics_port):
        players = await two_at_a_game(port)
        await asyncio.to_thread(storage.flush, wait=True)

        disk.fill()
        # The rows fit in the pages PostgreSQL has for a while; the first commit that needs a
        # new one fails. The game goes on meanwhile, turn after turn.
        played = 0
        while not storage.failing:
            assert played < 25, "PostgreSQL took every turn on a full disk"
            await turns(players, 1)
            played += 1
        assert storage.fault is Fault.DISK_FULL
        assert await http_get("127.0.0.1", metrics_port, "/readyz") == (503, f"not ready: {FULL}\n")
        _, text = await http_get("127.0.0.1", metrics_port, "/metrics")
        assert '\nsushigo_storage_fault{kind="disk_full"} 1.0\n' in text
        late = await Client.connect("127.0.0.1", port, name="late")
        refused = await refusal(late.create_table(card_settings(2, turn_seconds=60)))
        assert refused.code is ErrorCode.INTERNAL_ERROR
        assert FULL in str(refused)
        await turns(players, 1)  # one more with the disk full
        assert storage.failing and storage.durable < storage.mark  # held, or being tried

        disk.free()
        await asyncio.to_thread(storage.flush, wait=True)  # or wait for the next retry
        assert not storage.failing
        ended = await finish(players)
        await asyncio.to_thread(storage.flush, wait=True)
        await late.create_table(card_settings(2, turn_seconds=60))  # new tables again
        assert await http_get("127.0.0.1", metrics_port, "/readyz") == (200, "ready\n")
        for c in [*players, late]:
            await c.close()

    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 2, said
    assert said[0].startswith(f"cannot save to {storage.path} ({FULL}): could not extend file")
    assert said[1].startswith(f"saving to {storage.path} works again after ")
    for c, p in zip(players, ended, strict=True):
        assert not p.errors
        assert c.fairness.final == "verified", c.fairness.failures
    signed = ended[0].ended.record
    record = verify_signed_record(signed, players[0].server_key)
    assert verify_record(record).ok
    assert len(record.steps) == 30  # every turn, those played while the disk was full too
    with PgStorage(url) as again:
        (summary,) = again.list_records()
        stored = again.get_record(summary.game_id)
    assert stored is not None and stored.record == signed.record
