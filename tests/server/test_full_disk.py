"""The SQLite database's disk filling up, and its file system read-only, for real: a small tmpfs
under the database (tests/smalldisk.py; as root, or as an ordinary user in a user namespace).

The storage (write-behind, as the server runs it): a commit that meets the full disk is rolled
back whole, its writes stay held (and more are held while the disk is full), one line says so,
reads go on, the storage's thread retries with a back-off, and once there is room every held
write lands in one commit, in order, and the database checks out. At start: a database on a full
or read-only disk, or a read-only file, stops the server with one line; the key file is never
left half written."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from smalldisk import SmallDisk
from sqlite_files import assert_intact

from sushigo.server.keys import KeyFileError, load_or_create_server_key
from sushigo.server.storage.contract import Fault, PlayerResult, StorageError
from sushigo.server.storage.sqlite.storage import BACKOFF_START, SqliteStorage

SERVER = Path(sys.executable).with_name("sushigo-server")
MIB = 1024 * 1024


def wait_until(done: Callable[[], bool], timeout: float = 20.0) -> None:
    """Poll `done` (something another thread makes true) until it is, or fail after `timeout`."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "not within the time allowed"
        time.sleep(0.01)


def results() -> list[PlayerResult]:
    return [PlayerResult(None, f"p{seat}", seat, 10 * seat, 2 - seat) for seat in range(2)]


@pytest.mark.as_root
def test_a_full_disk_holds_the_writes_until_there_is_room(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="sushigo.server")
    with SmallDisk(tmp_path / "disk", 2 * MIB) as disk:
        db = disk.path / "server.db"
        storage = SqliteStorage(db, exclusive=True, write_behind=True)
        ready = threading.Event()
        storage.on_ready = ready.set
        try:
            storage.save_table("a", b"head-a")
            storage.save_table("b", b"head-b")
            storage.append_turns("a", 0, [b"a0", b"a1"])
            storage.finish_game(
                "b", "game-b", "sushi-go", b"record-b", b"sig", results(), finished_ms=1
            )
            assert storage.flush()
            assert storage.durable == storage.mark

            disk.fill()
            storage.append_turns("a", 2, [b"a2" * 2000])
            storage.save_table("c", b"head-c" * 1000)
            storage.finish_game(
                "a", "game-a", "sushi-go", b"record-a", b"sig", results(), finished_ms=2
            )
            assert not storage.flush()  # declined: the disk is full
            assert storage.fault is Fault.DISK_FULL and storage.failing
            assert storage.durable < storage.mark and storage.held == 3
            # More play while the disk is full: held too, and tried with the rest.
            storage.append_turns("c", 0, [b"c0", b"c1"])
            assert not storage.flush()
            # Reads go on, and see the database as the last good commit left it.
            assert [r.game_id for r in storage.list_records()] == ["game-b"]
            assert storage.find_token(b"\0" * 32) is None
            # The thread retries, backing off, and says nothing more.
            wait_until(lambda: storage._backoff >= 8 * BACKOFF_START)  # three tries
            assert storage.failing

            ready.clear()
            disk.free()
            assert ready.wait(10), "no call back once there was room"
            assert not storage.failing and storage.fault is None
            assert storage.durable == storage.mark and storage.held == 0
        finally:
            storage.close()

        said = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
        assert len(said) == 2, said
        assert said[0].startswith(f"cannot save to {db} (the database's disk is full): database")
        assert said[0].endswith("playing on in memory, retrying until it can")
        assert said[1].startswith(f"saving to {db} works again after ")

        again = SqliteStorage(db)
        try:
            assert again.load_tables() == [("c", b"head-c" * 1000 + b"c0c1")]
            assert [r.game_id for r in again.list_records()] == ["game-a", "game-b"]
            record = again.get_record("game-a")
            assert record is not None and record.record == b"record-a"
        finally:
            again.close()
        assert_intact(db)


@pytest.mark.as_root
def test_closing_on_a_full_disk_says_what_is_lost(tmp_path: Path) -> None:
    with SmallDisk(tmp_path / "disk", 1 * MIB) as disk:
        storage = SqliteStorage(disk.path / "server.db", exclusive=True, write_behind=True)
        storage.save_table("a", b"head")
        assert storage.flush()
        disk.fill()
        storage.append_turns("a", 0, [b"turn" * 1000])
        storage.flush()
        with pytest.raises(
            StorageError, match="could not save 1 held changes: database or disk is full"
        ) as lost:
            storage.close()
        assert "resume from their last saved turn" in str(lost.value)
        disk.free()
        again = SqliteStorage(disk.path / "server.db")
        try:
            assert again.load_tables() == [("a", b"head")]  # as the last good commit left it
        finally:
            again.close()


@pytest.mark.as_root
def test_the_key_is_never_left_half_written(tmp_path: Path) -> None:
    with SmallDisk(tmp_path / "disk", 64 * 1024) as disk:
        disk.fill()
        with pytest.raises(
            KeyFileError, match="cannot create the key file: No space left on device"
        ):
            load_or_create_server_key(disk.path / "server.key")
        assert sorted(p.name for p in disk.path.iterdir()) == ["filler"]
        disk.free()
        key = load_or_create_server_key(disk.path / "server.key")
        assert (
            load_or_create_server_key(disk.path / "server.key").private_bytes_raw()
            == key.private_bytes_raw()
        )


def start_server(db: Path, *wrapper: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*wrapper, str(SERVER), "--port", "0", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )


@pytest.mark.as_root
def test_a_full_disk_at_start_is_one_line(tmp_path: Path) -> None:
    with SmallDisk(tmp_path / "disk", 256 * 1024) as disk:
        disk.fill()
        done = start_server(disk.path / "server.db")
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"sushigo-server: error: {disk.path / 'server.db'}: cannot open the database: database or"
        " disk is full"
    ]


def made_database(folder: Path) -> Path:
    db = folder / "server.db"
    storage = SqliteStorage(db, exclusive=True)
    storage.save_table("a", b"head")
    storage.close()
    return db


@pytest.mark.as_root
def test_a_read_only_file_system_at_start_is_one_line(tmp_path: Path) -> None:
    with SmallDisk(tmp_path / "disk", 1 * MIB) as disk:
        db = made_database(disk.path)
        disk.remount(read_only=True)
        done = start_server(db)
        disk.remount(read_only=False)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"sushigo-server: error: {db}: cannot open the database file to write: Read-only file"
        " system"
    ]


@pytest.mark.as_root
def test_a_read_only_database_file_or_folder_at_start_is_one_line(tmp_path: Path) -> None:
    # Root may write whatever the modes say: the server runs as an ordinary user of a user
    # namespace of its own, where file modes bind it (uid 1, mapped onto the test's user).
    db = made_database(tmp_path)
    as_user = ("unshare", "--map-user=1", "--map-group=1")
    db.chmod(0o400)
    done = start_server(db, *as_user)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        f"sushigo-server: error: {db}: cannot open the database file to write: Permission denied"
    ]
    db.chmod(0o600)
    tmp_path.chmod(0o500)  # the file may be written, but not its log and index beside it
    try:
        done = start_server(db, *as_user)
    finally:
        tmp_path.chmod(0o700)
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        f"sushigo-server: error: {db}: cannot open the database: attempt to write a readonly"
        " database (the file, its folder or its file system is read-only)"
    ]
