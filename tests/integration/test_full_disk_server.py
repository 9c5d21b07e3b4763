"""The real `sushigo-server` on SQLite, its disk filling up mid-game (a small tmpfs under its
database, tests/smalldisk.py), as its players and its operator see it.

While the disk is full: the games in progress go on (their turns, a game's end, a player's resume
after a dropped connection), the server says so once in its log and on /readyz (503, saying why)
and in its metrics, and a new table is refused with the reason. Once there is room again it
recovers by itself: /readyz says ready, a new table is made, and every game played meanwhile is in
the database as its players verified it, the database intact.

The file system turning read-only mid-game (as the kernel makes one after errors on its disk) is
the same while it lasts, but lasts until an operator acts: a stop then says what could not be
saved, and after the file system is checked and mounted again the table resumes at its last saved
turn."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from processes import ServerProcess, http_get
from server_helpers import card_settings
from smalldisk import SmallDisk
from socket_helpers import abort, dropped, finish, refusal, turns, two_at_a_game
from sqlite_files import assert_intact

from sushigo.client.connection import Client
from sushigo.protocol import ErrorCode, QuickMatch, verify_record, verify_signed_record
from sushigo.server.storage.sqlite.storage import SqliteStorage

FULL = "the database's disk is full"


@contextlib.contextmanager
def waiting_out() -> Iterator[asyncio.Event]:
    """An event set when the client library logs that it asks for a quick match again."""
    asked = asyncio.Event()

    class Heard(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if record.getMessage().startswith("quick match: ") and FULL in record.getMessage():
                asked.set()

    client_log, heard = logging.getLogger("sushigo.client"), Heard()
    client_log.addHandler(heard)
    try:
        yield asked
    finally:
        client_log.removeHandler(heard)


async def readiness(port: int, want: int, timeout: float = 20.0) -> str:
    """/readyz's answer once its status is `want` (asked again until it is)."""
    deadline = time.monotonic() + timeout
    while True:
        status, text = await http_get("127.0.0.1", port, "/readyz")
        if status == want:
            return text
        assert time.monotonic() < deadline, f"/readyz still says {status} {text!r}"
        await asyncio.sleep(0.05)


@pytest.mark.as_root
async def test_the_disk_fills_mid_game_and_the_server_recovers_by_itself(tmp_path: Path) -> None:
    with SmallDisk(tmp_path / "disk", 4 * 1024 * 1024) as disk:
        db = disk.path / "server.db"
        server = ServerProcess(db, extra=("--metrics", "127.0.0.1:0"))
        await server.start()
        try:
            port, metrics = server.port, server.metrics_port
            ending = await two_at_a_game(port, ("a0", "a1"))
            await turns(ending, 3)
            going = await two_at_a_game(port, ("b0", "b1"))
            await turns(going, 2)
            assert await readiness(metrics, 200) == "ready\n"

            disk.fill()
            # The games go on: the turn after the disk filled is played and answered at once.
            await turns(ending, 1)
            assert await readiness(metrics, 503) == f"not ready: {FULL}\n"
            _, text = await http_get("127.0.0.1", metrics, "/metrics")
            assert "\nsushigo_storage_failing 1.0\n" in text
            assert '\nsushigo_storage_fault{kind="disk_full"} 1.0\n' in text
            assert '\nsushigo_storage_fault{kind="unreachable"} 0.0\n' in text
            late = await Client.connect("127.0.0.1", port, name="late")
            refused = await refusal(late.create_table(card_settings(2, turn_seconds=60)))
            assert refused.code is ErrorCode.INTERNAL_ERROR
            assert f"cannot store games right now ({FULL})" in str(refused)
            # A quick match is refused with the reason; the client library waits it out (one
            # warning each time it asks again) and is seated once there is room.
            refused = await refusal(
                late.request(lambda ref: QuickMatch(ref=ref, kind="sushi-go", players=2))
            )
            assert refused.code is ErrorCode.INTERNAL_ERROR and FULL in str(refused)
            with waiting_out() as asked_again:
                queued = asyncio.create_task(late.quick_match(2, "sushi-go"))
                await asyncio.wait_for(asked_again.wait(), 20)
            assert not queued.done()
            # A player whose connection drops comes back to the game meanwhile.
            abort(going[1])
            await dropped(going[1])
            await going[1].resume()
            await turns(going, 2)
            # A game ends while the disk is full: its record waits in memory.
            ended = await finish(ending, 1)
            _, text = await http_get("127.0.0.1", metrics, "/metrics")
            assert "\nsushigo_storage_failing 1.0\n" in text
            assert await readiness(metrics, 503) == f"not ready: {FULL}\n"

            disk.free()
            assert await readiness(metrics, 200) == "ready\n"
            joined = await asyncio.wait_for(queued, 30)
            assert joined.table.settings.kind == "sushi-go" and joined.table.settings.players == 2
            await late.leave()
            await late.create_table(card_settings(2, turn_seconds=60))
            finished = await finish(going, 3)
            for c in [*ending, *going, late]:
                await c.close()
            assert await server.terminate() == 0
        finally:
            await server.stop()

        log = server.log.decode()
        assert log.count("cannot save to") == 1, log
        assert f"cannot save to {db} ({FULL}): database or disk is full" in log
        assert log.count(f"saving to {db} works again after ") == 1, log
        assert "Traceback" not in log and "internal error" not in log, log

        stored = SqliteStorage(db, read_only=True)
        try:
            games = {g.table_id: g.game_id for g in stored.list_records()}
            assert len(games) == 2
            for players, played in ((ending, ended), (going, finished)):
                signed = played[0].ended.record
                record = verify_signed_record(signed, players[0].server_key)
                assert verify_record(record).ok
                kept = stored.get_record(games[record.table_id])
                assert kept is not None and kept.record == signed.record
                for c, p in zip(players, played, strict=True):
                    assert not p.errors
                    assert c.fairness.final == "verified", c.fairness.failures
        finally:
            stored.close()
        assert_intact(db)


@pytest.mark.skipif(os.geteuid() != 0, reason="a loop device (an ext4 file system) needs root")
async def test_the_file_system_turns_read_only_mid_game(tmp_path: Path) -> None:
    # ext4 on a loop device, made read-only by the kernel as after an error on the disk (its
    # trigger_fs_error, with errors=remount-ro): every write then fails (EROFS). It stays so until
    # an operator stops the server, checks the file system and mounts it again.
    image, disk = tmp_path / "disk.img", tmp_path / "disk"
    disk.mkdir()
    with image.open("wb") as out:
        out.truncate(16 * 1024 * 1024)
    run("mkfs.ext4", "-q", "-F", str(image))

    def mount() -> Path:
        run("mount", "-o", "loop,errors=remount-ro", str(image), str(disk))
        device = run("findmnt", "-n", "-o", "SOURCE", str(disk)).strip()
        return Path("/sys/fs/ext4") / Path(device).name / "trigger_fs_error"

    trigger = mount()
    try:
        if not trigger.exists():
            pytest.skip(f"this kernel has no {trigger}")
        server = ServerProcess(disk / "server.db", extra=("--metrics", "127.0.0.1:0"))
        await server.start()
        try:
            players = await two_at_a_game(server.port, ("a0", "a1"))
            await turns(players, 3)
            # The kernel writes the commits out first. (What it has not written when a file
            # system aborts is lost, as in a power cut: SQLite's synchronous=NORMAL, in
            # docs/ARCHITECTURE.md, "What is durable when".)
            os.sync()
            trigger.write_text("a test of the server's database\n")
            await turns(players, 2)  # the game goes on
            read_only = "the database is read-only"
            assert await readiness(server.metrics_port, 503) == f"not ready: {read_only}\n"
            late = await Client.connect("127.0.0.1", server.port, name="late")
            refused = await refusal(late.create_table(card_settings(2, turn_seconds=60)))
            assert f"cannot store games right now ({read_only})" in str(refused)
            for c in [*players, late]:
                await c.close()
            assert await server.terminate() == 1  # what was held cannot be saved: it says so
        finally:
            await server.stop()
        log = server.log.decode()
        assert log.count("cannot save to") == 1, log
        assert f"cannot save to {disk / 'server.db'} ({read_only}): disk I/O error" in log
        assert "closed without them (the tables they were of resume from their last" in log
        assert "Traceback" not in log, log
    finally:
        run("umount", str(disk))
    # The operator's part: check the file system, mount it again, start the server. The table
    # is back at its last saved turn (the four played before the disk turned read-only).
    run("e2fsck", "-f", "-y", str(image), ok=(0, 1))
    mount()
    try:
        stored = SqliteStorage(disk / "server.db")
        try:
            assert len(stored.load_tables()) == 1  # the table, as last saved
        finally:
            stored.close()
        server = ServerProcess(disk / "server.db")
        await server.start()
        try:
            for c in players:
                c.port = server.port
                resumed = await c.resume()
                assert (resumed.round, resumed.turn) == (1, 4)
            for c in players:
                await c.close()
            assert await server.terminate() == 0
        finally:
            await server.stop()
        assert_intact(disk / "server.db")
    finally:
        run("umount", str(disk))


def run(*command: str, ok: tuple[int, ...] = (0,)) -> str:
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode in ok, f"{' '.join(command)}: {done.stderr}"
    return done.stdout
