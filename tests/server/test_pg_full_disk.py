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
from pg_fault_helpers import finish_once_back, stored_and_verified, watched_server
from pgcluster import running_cluster
from processes import http_get
from server_helpers import card_settings
from smalldisk import SmallDisk
from socket_helpers import refusal, turns, two_at_a_game

from sushigo.client.connection import Client
from sushigo.protocol import ErrorCode
from sushigo.server.storage.contract import Fault

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
        async with running_cluster(disk.path / "pg") as (_, url):
            await _play_while_the_disk_fills(disk, url, caplog)


async def _play_while_the_disk_fills(
    disk: SmallDisk, url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="sushigo.server")
    async with watched_server(url) as (storage, port, metrics_port):
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
        ended = await finish_once_back(storage, players, late, metrics_port)

    said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(said) == 2, said
    assert said[0].startswith(f"cannot save to {storage.path} ({FULL}): could not extend file")
    assert said[1].startswith(f"saving to {storage.path} works again after ")
    record = stored_and_verified(url, players, ended)
    assert len(record.steps) == 30  # every turn, those played while the disk was full too
