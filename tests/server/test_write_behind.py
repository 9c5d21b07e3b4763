"""Write-behind storage: held writes keep their order, reads see them, a failed commit keeps them,
checkpoints run in a thread; and the server never sends a frame while a write is held, so a
turn is in the database before anyone hears its result (also across SIGKILL)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from server_helpers import hub_on
from socket_helpers import play
from sqlite_files import heads

import sushigo.server.net.app as app_module
import sushigo.server.storage.sqlite.storage as storage_module
from sushigo.client.connection import Client
from sushigo.protocol import TableSettings, TurnStart
from sushigo.server.hub.core import Hub
from sushigo.server.net.app import Server
from sushigo.server.storage.contract import StorageError, TokenEntry
from sushigo.server.storage.database import open_storage
from sushigo.server.storage.sqlite.storage import SqliteStorage

ROOT = Path(__file__).resolve().parents[2]


def test_statements_in_a_row_go_together_and_keep_their_order(tmp_path: Path) -> None:
    """Held statements of the same text in a row are written in one go (the turns of many
    tables): the writes between them still come in between."""
    path = tmp_path / "wb.db"
    with SqliteStorage(path, write_behind=True) as storage:
        for table in ("a", "b"):
            storage.save_table(table, table.encode(), [b"0"])
        assert storage.flush()
        traced: list[str] = []
        storage._conn.set_trace_callback(traced.append)
        storage.append_turns("a", 1, [b"1"])
        storage.append_turns("b", 1, [b"1"])
        storage.save_token(b"k" * 32, "a", 0, 50)
        storage.append_turns("a", 2, [b"2"])
        storage.delete_token(b"k" * 32)
        storage.save_token(b"k" * 32, "b", 1, 60)
        storage.append_turns("b", 2, [b"2"])
        storage.save_token(b"j" * 32, "a", 0, 70)
        storage.delete_table("b")  # its token goes with it, after it was saved
        assert storage.flush()
        storage._conn.set_trace_callback(None)
        done = [" ".join(t.replace("OR REPLACE ", "").split()[:3]) for t in traced]
        turn, token, untoken = "INSERT INTO table_turns", "INSERT INTO tokens", "DELETE FROM tokens"
        assert done == [
            "BEGIN IMMEDIATE",
            turn,
            turn,
            token,
            turn,
            untoken,
            token,
            turn,
            token,
            "DELETE FROM tables_in_progress",
            untoken,
            "COMMIT",
        ]
        assert storage.load_tables() == [("a", b"a012")]
        assert storage.find_token(b"k" * 32) is None
        assert storage.find_token(b"j" * 32) == TokenEntry("a", 0, 70)


def test_a_failed_commit_keeps_every_write_held(tmp_path: Path) -> None:
    path = tmp_path / "wb.db"
    with SqliteStorage(path, write_behind=True) as storage:
        blocker = sqlite3.connect(path, isolation_level=None, timeout=0)
        blocker.execute("BEGIN EXCLUSIVE")  # another writer: the commit cannot get the lock
        storage.save_table("a", b"1")
        storage.save_table("b", b"2")
        storage._conn.execute("PRAGMA busy_timeout = 0")
        with pytest.raises(StorageError, match="could not save 2 held changes"):
            storage.flush(wait=True)
        assert storage.held == 2 and storage.failing
        assert not storage.flush()  # declined while failing: the storage's thread retries
        storage.save_table("a", b"3")  # newer than the held one: replaces it
        blocker.execute("ROLLBACK")
        blocker.close()
        assert storage.flush(wait=True)
        assert not storage.failing
        assert heads(path) == {"a": b"3", "b": b"2"}


def test_flush_declines_while_the_database_is_busy_and_says_when_to_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(storage_module, "CHECKPOINT_BYTES", 0)  # a checkpoint at every pass
    monkeypatch.setattr(storage_module, "CHECKPOINT_POLL_SECONDS", 0.01)
    path = tmp_path / "wb.db"
    ready = threading.Event()
    with SqliteStorage(path, exclusive=True, write_behind=True) as storage:
        storage.on_ready = ready.set
        # Stand in for a long checkpoint: another thread holds the database.
        holding, release = threading.Event(), threading.Event()

        def hold() -> None:
            with storage._lock:
                holding.set()
                release.wait(10)

        holder = threading.Thread(target=hold)
        holder.start()
        assert holding.wait(10)
        storage.save_table("t", b"1")
        assert not storage.flush()
        assert storage.held == 1
        release.set()
        holder.join()
        # The checkpoint thread's next pass calls back; then the flush goes ahead.
        assert ready.wait(10)
        assert storage.flush()
        assert storage.held == 0
    with SqliteStorage(path) as again:
        assert again.load_tables() == [("t", b"1")]


def test_the_checkpoint_thread_empties_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(storage_module, "CHECKPOINT_BYTES", 64 * 1024)
    monkeypatch.setattr(storage_module, "CHECKPOINT_POLL_SECONDS", 0.01)
    path = tmp_path / "wb.db"
    wal = Path(str(path) + "-wal")
    called = threading.Event()
    with SqliteStorage(path, exclusive=True, write_behind=True) as storage:
        storage.on_ready = called.set
        with storage._lock:  # the thread waits for this before it checkpoints
            for n in range(60):
                storage.save_table(f"t{n}", bytes([n]) * 3000)
            storage.flush()
            assert wal.stat().st_size >= 64 * 1024
            # The thread reports on a declined flush: pretend one, so that it calls back.
            with storage._held_lock:
                storage._declined = True
        assert called.wait(10)
        assert wal.stat().st_size == 0
        assert len(storage.load_tables()) == 60


# -- the server: saved before sent -----------------------------------------------------------------


@asynccontextmanager
async def write_behind_server(db: str) -> AsyncIterator[tuple[Hub, Server, int]]:
    storage = open_storage(db, exclusive=True, write_behind=True)
    hub = hub_on(storage)
    server = Server(hub, "127.0.0.1", 0, None)
    try:
        (_, port), *_ = await server.start()
        yield hub, server, port
    finally:
        await server.stop()
        storage.close()


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
async def test_no_frame_is_written_before_the_writes_made_before_it_are_durable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, backend: str
) -> None:
    """On both backends: whenever a frame goes out, every write the hub made before sending it
    is committed (on PostgreSQL the commit runs in the storage's thread while the server goes
    on, so later writes may be held meanwhile)."""
    db = str(tmp_path / "s.db") if backend == "sqlite" else request.getfixturevalue("pg_url")
    late: list[tuple[int, int]] = []
    written: list[int] = []
    original: Callable[[Any], None] = Server._release

    def checked(self: Any) -> None:
        before = list(self.waves)
        original(self)
        durable = self.hub.storage.durable
        for mark, _, wave in before[: len(before) - len(self.waves)]:
            if any(pending for _, pending, _ in wave):
                written.append(mark)
                if mark > durable:
                    late.append((mark, durable))

    monkeypatch.setattr(Server, "_release", checked)
    async with write_behind_server(db) as (hub, _, port):
        clients = [await Client.connect("127.0.0.1", port, name=f"p{i}") for i in range(3)]
        joined = await clients[0].create_table(
            TableSettings(kind="sushi-go", players=3, turn_seconds=60)
        )
        for c in clients[1:]:
            await c.join_table(joined.table.table_id)
        clients[0].start_game()
        played = await asyncio.gather(*(play(c, seed=i) for i, c in enumerate(clients)))
        for c, p in zip(clients, played, strict=True):
            assert not p.errors
            assert c.fairness.final == "verified"
            await c.close()
        assert hub.storage.mark > 30  # every turn was a write
    assert len(written) > 30 and max(written) > 30  # waves of frames, after turns saved
    assert late == []


async def test_results_wait_while_the_storage_declines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with write_behind_server(str(tmp_path / "s.db")) as (hub, server, port):
        declined = asyncio.Event()
        flush = hub.storage.flush

        def watched(*, wait: bool = False) -> bool:
            done = flush(wait=wait)
            if not done:
                declined.set()
            return done

        monkeypatch.setattr(hub.storage, "flush", watched)
        players = [await Client.connect("127.0.0.1", port, name=f"p{i}") for i in range(2)]
        joined = await players[0].create_table(
            TableSettings(kind="sushi-go", players=2, turn_seconds=60)
        )
        await players[1].join_table(joined.table.table_id)
        players[0].start_game()
        starts = [await c.wait_for(TurnStart, 10) for c in players]
        # Stand in for a checkpoint: another thread holds the database while the turn ends.
        holding, release = threading.Event(), threading.Event()

        def hold() -> None:
            with hub.storage._lock:
                holding.set()
                release.wait(10)

        holder = threading.Thread(target=hold)
        holder.start()
        assert await asyncio.to_thread(holding.wait, 10)
        for c, s in zip(players, starts, strict=True):
            c.pick(s.observation.legal_actions()[0])
        # Both picks are revealed and the turn is saved, held: its frames wait in the server.
        await asyncio.wait_for(declined.wait(), 10)
        for _ in range(20):  # the loop goes on; nothing is written while the save is held
            await asyncio.sleep(0)
        assert hub.storage.held >= 1
        assert server.waves and any(pending for _, pending, _ in server.waves[0][2])
        release.set()
        await asyncio.to_thread(holder.join)
        assert hub.storage.on_ready is not None
        hub.storage.on_ready()  # what the checkpoint thread does when it lets go
        nxt = await players[0].wait_for(TurnStart, 10)
        assert (nxt.round, nxt.turn) == (1, 2)
        assert hub.storage.held == 0
        for c in players:
            await c.close()


class _Loop:
    """What `Server` asks of its loop, recorded: the callbacks and when they would run."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, float]] = []

    def call_soon(self, callback: Callable[[], None]) -> None:
        self.calls.append(("soon", 0.0))

    def call_later(self, delay: float, callback: Callable[[], None]) -> None:
        self.calls.append(("later", round(delay, 6)))

    def call_at(self, when: float, callback: Callable[[], None]) -> None:
        pass

    def time(self) -> float:
        return 0.0


async def test_commits_are_paced_when_busy_and_immediate_when_quiet(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [100.0]
    monkeypatch.setattr(app_module, "_perf_counter", lambda: clock[0])
    commits: list[float] = []
    storage = SqliteStorage(tmp_path / "p.db", write_behind=True)
    flush = storage.flush

    def counted(*, wait: bool = False) -> bool:
        commits.append(clock[0])
        return flush(wait=wait)

    monkeypatch.setattr(storage, "flush", counted)
    hub = hub_on(storage)
    server = Server(hub, "127.0.0.1", 0, None)
    loop = _Loop()
    server.loop = loop  # type: ignore[assignment]
    try:
        server.soon()  # quiet: at the end of this pass
        assert loop.calls == [("soon", 0.0)] and not commits
        server._done_soon()
        assert commits == [100.0]
        clock[0] = 100.001
        server.soon()  # busy: the next commit waits until COMMIT_SPACING after the last
        server.soon()
        assert loop.calls[1:] == [("later", round(app_module.COMMIT_SPACING - 0.001, 6))]
        assert commits == [100.0]
        clock[0] = 100.001 + app_module.BATCH_SECONDS
        server.soon()  # the batch waited its longest: committed now
        assert commits == [100.0, clock[0]]
        server._done_soon()  # the timer, late: nothing waits any more
        assert len(commits) == 2
        clock[0] += 1.0
        server.soon()  # quiet again
        assert loop.calls[-1] == ("soon", 0.0)
    finally:
        storage.close()
