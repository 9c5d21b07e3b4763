"""The SQLite backend: its file, pragmas, schema versions, locks and WAL recovery after SIGKILL (what
every backend does is in test_storage_contract.py)."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from processes import kill_when_ready

from sushigo.server.storage.contract import PlayerResult, StorageError, TokenEntry
from sushigo.server.storage.sqlite import storage as storage_module
from sushigo.server.storage.sqlite.storage import APPLICATION_ID, SCHEMA_VERSION, SqliteStorage

ROOT = Path(__file__).resolve().parents[2]
KEY_A = bytes(range(32))
KEY_B = bytes(range(1, 33))


@pytest.fixture
def db() -> Iterator[SqliteStorage]:
    with SqliteStorage(":memory:") as storage:
        yield storage


def results(*ids: str | None) -> list[PlayerResult]:
    return [
        PlayerResult(player_id=pid, name=f"p{seat}", seat=seat, score=10 * seat, place=seat + 1)
        for seat, pid in enumerate(ids)
    ]


# --- opening -----------------------------------------------------------------------------------


def test_new_file_gets_pragmas_schema_and_private_mode(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "sushigo.db"
    with SqliteStorage(path) as storage:
        assert storage.schema_version == SCHEMA_VERSION
    assert path.stat().st_mode & 0o777 == 0o600
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert raw.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    finally:
        raw.close()


def test_connection_settings(db: SqliteStorage) -> None:
    conn = db._conn
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] == 5000


def test_reopen_keeps_data(tmp_path: Path) -> None:
    path = tmp_path / "s.db"
    with SqliteStorage(path) as storage:
        storage.save_table("t1", b"state")
    with SqliteStorage(path) as storage:
        assert storage.load_tables() == [("t1", b"state")]


def test_not_a_database(tmp_path: Path) -> None:
    path = tmp_path / "junk.db"
    path.write_bytes(b"this is not sqlite at all, just some text " * 100)
    with pytest.raises(StorageError) as info:
        SqliteStorage(path)
    assert info.value.path == str(path)
    assert "not a database" in str(info.value)
    assert str(path) in str(info.value)


def test_another_programs_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE photos (id INTEGER)")
    raw.commit()
    raw.close()
    with pytest.raises(StorageError, match="not a sushigo database"):
        SqliteStorage(path)
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # not switched to WAL
    raw.close()


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.db"
    SqliteStorage(path).close()
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.commit()
    raw.close()
    with pytest.raises(StorageError, match=r"schema version \d+ is newer"):
        SqliteStorage(path)


def test_migration_runs_pending_steps_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.db"
    with SqliteStorage(path) as storage:
        storage.save_table("t", b"x")
    calls: list[int] = []

    def v2(conn: sqlite3.Connection) -> None:
        calls.append(1)
        conn.execute("CREATE TABLE future_things (id TEXT PRIMARY KEY)")

    monkeypatch.setattr(storage_module, "MIGRATIONS", [*storage_module.MIGRATIONS, v2])
    monkeypatch.setattr(storage_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with SqliteStorage(path) as storage:
        assert storage.schema_version == SCHEMA_VERSION + 1
        assert storage.load_tables() == [("t", b"x")]
        storage._conn.execute("SELECT * FROM future_things").fetchall()
    with SqliteStorage(path):
        pass
    assert calls == [1]


def test_failed_migration_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.db"
    SqliteStorage(path).close()

    def broken(conn: sqlite3.Connection) -> None:
        conn.execute("CREATE TABLE half_done (id TEXT)")
        conn.execute("THIS IS NOT SQL")

    monkeypatch.setattr(storage_module, "MIGRATIONS", [*storage_module.MIGRATIONS, broken])
    monkeypatch.setattr(storage_module, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(StorageError, match="syntax error"):
        SqliteStorage(path)
    monkeypatch.undo()
    with SqliteStorage(path) as storage:
        assert storage.schema_version == SCHEMA_VERSION
        names = storage._conn.execute("SELECT name FROM sqlite_master").fetchall()
        assert ("half_done",) not in names


def test_unwritable_path(tmp_path: Path) -> None:
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    with pytest.raises(StorageError, match="cannot create directory") as info:
        SqliteStorage(blocker / "sub" / "s.db")
    assert str(blocker) in str(info.value)


def test_directory_instead_of_file(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="is a directory"):
        SqliteStorage(tmp_path)


def test_locked_database(tmp_path: Path) -> None:
    path = tmp_path / "locked.db"
    SqliteStorage(path).close()
    raw = sqlite3.connect(path, isolation_level=None)
    raw.execute("BEGIN EXCLUSIVE")  # some other writer holding the write lock
    try:
        with pytest.raises(StorageError, match="locked"):
            SqliteStorage(path, busy_timeout_ms=20)
    finally:
        raw.execute("ROLLBACK")
        raw.close()


def test_exclusive_mode_keeps_a_second_server_out_and_lets_readers_in(tmp_path: Path) -> None:
    path = tmp_path / "one.db"
    with SqliteStorage(path, exclusive=True, write_behind=True) as first:
        first.save_table("t", b"1")
        first.flush(wait=True)
        with pytest.raises(StorageError, match=r"another sushigo server .*one\.db\.lock"):
            SqliteStorage(path, exclusive=True, busy_timeout_ms=20)
        with SqliteStorage(path, read_only=True) as reader:
            assert reader.load_tables() == [("t", b"1")]
            first.save_table("t", b"2")  # written while the reader is open
            first.flush(wait=True)
            assert reader.load_tables() == [("t", b"2")]
            with pytest.raises(StorageError):
                reader.save_table("t", b"3")  # it cannot write
    with SqliteStorage(path, exclusive=True) as again:  # the lock went with the first
        assert again.load_tables() == [("t", b"2")]


def test_a_reader_needs_a_sushigo_database_of_this_version(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="cannot open the database"):
        SqliteStorage(tmp_path / "missing.db", read_only=True)
    assert not (tmp_path / "missing.db").exists()
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE x (y)").connection.close()
    with pytest.raises(StorageError, match="not a sushigo database"):
        SqliteStorage(other, read_only=True)
    old = tmp_path / "old.db"
    SqliteStorage(old).close()
    raw = sqlite3.connect(old)
    raw.execute("PRAGMA user_version = 1")
    raw.close()
    with pytest.raises(StorageError, match="run sushigo-server on it once"):
        SqliteStorage(old, read_only=True)


def test_errors_after_close_are_storage_errors(tmp_path: Path) -> None:
    storage = SqliteStorage(tmp_path / "c.db")
    storage.close()
    storage.close()  # idempotent
    with pytest.raises(StorageError):
        storage.save_table("t", b"x")


# --- tables in progress ------------------------------------------------------------------------


# --- finished games ----------------------------------------------------------------------------


def test_usable_from_a_worker_thread(db: SqliteStorage) -> None:
    # The asyncio server may call storage through asyncio.to_thread.
    worker = threading.Thread(target=db.save_table, args=("t", b"from a thread"))
    worker.start()
    worker.join(10)
    assert db.load_tables() == [("t", b"from a thread")]


# --- identities and ratings --------------------------------------------------------------------


# --- reconnect tokens --------------------------------------------------------------------------


def h(token: bytes) -> bytes:
    return hashlib.sha256(token).digest()


# --- crash safety ------------------------------------------------------------------------------

_CHILD = """
import sys
from sushigo.server.storage.contract import PlayerResult
from sushigo.server.storage.sqlite.storage import SqliteStorage
storage = SqliteStorage(sys.argv[1])
for n in range(50):
    storage.save_table(f"t{n}", bytes([n]) * 3000)
storage.save_token(b"k" * 32, "t7", 1, 99)
storage.finish_game("t3", "g3", "sushigo", b"record", b"signature",
                    [PlayerResult(None, "ann", 0, 40, 1), PlayerResult(None, "bob", 1, 30, 2)],
                    finished_ms=42)
storage.save_table("t0", b"last")
print("ready", flush=True)
sys.stdin.read()  # wait to be killed, holding the connection open
"""


def test_committed_data_survives_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "crash.db"

    def in_the_log_only() -> None:
        # The commits are still in the WAL, not checkpointed into the main file: recovery from
        # the log is what this test exercises.
        assert (tmp_path / "crash.db-wal").stat().st_size > 0

    kill_when_ready(_CHILD, str(path), before=in_the_log_only)
    with SqliteStorage(path) as storage:
        tables = dict(storage.load_tables())
        assert len(tables) == 49
        assert "t3" not in tables
        assert tables["t0"] == b"last"
        assert tables["t49"] == bytes([49]) * 3000
        stored = storage.get_record("g3")
        assert stored is not None
        assert (stored.record, stored.signature, len(stored.players)) == (
            b"record",
            b"signature",
            2,
        )
        assert storage.find_token(b"k" * 32) == TokenEntry("t7", 1, 99)
