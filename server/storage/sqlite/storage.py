"""The SQLite backend of `storage.Storage`: one file holding tables in progress, finished games,
identities, ratings and reconnect tokens (its schema: `sqlite_schema`; tables in progress, a head
and its turn rows: `sqlite_tables`; finished games, identities, ratings and tokens:
`sqlite_records`; bans, mutes, the audit log and aborted games: `sqlite_moderation`).

Durability model. The database runs in WAL mode with ``synchronous=NORMAL``: a commit appends to
the write-ahead log and returns without an fsync, so a committed transaction survives the server
process being killed (SIGKILL, OOM killer, a crash), because the bytes are already in the OS page
cache. Only a power cut or kernel crash can lose the last few commits; that is the trade SQLite
documents for this mode and it is what lets a table be saved at every turn boundary cheaply.
Every multi-row change (a finished game, a token rotation, a rating update) is one transaction,
so a crash leaves either all of it or none of it.

The class is synchronous and guards its connection with a lock, so the asyncio server may call
it directly or from a worker thread (`asyncio.to_thread`). Nothing here reads the clock: times
are passed in as integer milliseconds.

Write-behind (``write_behind=True``, the server's mode). The writes of play (a table's turns at
every turn boundary, reconnect tokens, a finished game, a table's removal) are held in memory, in
order, until `flush`, which commits all of them in one transaction: the server flushes once per
pass of its event loop, before it writes any message to a socket, so a turn is still saved before
anyone hears its result, and a busy server pays one commit for many tables. Every other call
flushes the held writes first, so reads see them and the order of writes is kept. WAL
checkpoints (which copy the log into the database and fsync, a stall of tens of milliseconds on a
busy disk) then run in the storage's thread instead of inside whichever commit crossed SQLite's
threshold; while one runs, `flush` declines at once rather than wait (the server holds its
messages meanwhile) and `on_ready` says when to try again.

A commit that fails (the disk full, the file system made read-only: `Storage.fault`) is rolled
back by SQLite whole, so the database stays as the last good commit left it; its writes stay held,
one line is logged, and the thread tries them again after a back-off (doubling from
`BACKOFF_START` to `BACKOFF_MAX`) until one succeeds, then says how long it took and calls
`on_ready`. Meanwhile `flush` declines and reads see the database as it is. A full disk also stops
the checkpoints (the database file cannot grow), and the log cannot grow either, so nothing is
written until there is room: then the next retry commits everything held, in order.

One server, any number of readers: a server (``exclusive``) holds a lock file beside the
database (`sqlite_schema.lock_database`), SQLite runs in its normal locking mode, and readers
(``read_only``: `sushigo-replay`) never take its write lock nor hold up a checkpoint.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any, Final

from sushigo.server.storage.contract import Closing, StorageError, WriteCounts

from .moderation import SqliteModeration
from .records import SqliteRecords
from .schema import (
    APPLICATION_ID,
    CAN_LOCK,
    MIGRATIONS,
    SCHEMA_VERSION,
    check_readable,
    connect,
    fault_of,
    lock_database,
    prepare_file,
    reason,
    scalar,
)
from .tables import SqliteTables
from .tournaments import SqliteTournaments

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "SqliteStorage"]

DEFAULT_BUSY_TIMEOUT_MS: Final = 5_000

CHECKPOINT_BYTES: Final = 16 * 1024 * 1024
"""With write-behind: the size of the write-ahead log past which the background thread copies it
into the database. Four times SQLite's default: the last pages of turns are rewritten at every commit, and a
checkpoint copies only the newest version of each page, so copying less often copies less."""
CHECKPOINT_POLL_SECONDS: Final = 0.25
"""How often the background thread looks at the log's size."""
BACKOFF_START: Final = 0.05
"""Seconds before the first retry of held writes that could not be committed."""
BACKOFF_MAX: Final = 2.0
"""The longest wait between two retries (space back on the disk: the games are saved within
this)."""
CACHE_KIB: Final = 64 * 1024
"""With write-behind: SQLite's page cache, in KiB (a server's working set: thousands of tables)."""

log = logging.getLogger("sushigo.server")

_Held = tuple[str, tuple[Any, ...]] | tuple[Callable[[sqlite3.Connection], None], None]
"""A held write: a statement and its parameters, or a function of the connection."""


class SqliteStorage(
    SqliteTables, SqliteRecords, SqliteModeration, SqliteTournaments, WriteCounts, Closing
):
    """The server's SQLite database. Open once per process; close (or use ``with``) at exit.

    ``SqliteStorage(":memory:")`` gives a private in-memory database for tests. With
    ``exclusive=True`` the database's lock file stays locked while open, so a second server
    started on the same database fails at once with a clear `StorageError` instead of both
    resuming the same tables (readers are still let in). ``read_only=True`` only reads: it never
    migrates or writes, so it may read a database a server is using (the database must exist
    and be of this code's schema version). ``write_behind=True`` holds the hot writes until
    `flush` and checkpoints in a background thread (see the module docstring).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        exclusive: bool = False,
        write_behind: bool = False,
        read_only: bool = False,
    ) -> None:
        if read_only and (exclusive or write_behind):
            raise ValueError("a read-only database is neither exclusive nor written behind")
        self.path = os.fspath(path)
        """The path as given."""
        self.write_behind = write_behind
        """Hot writes wait for `flush` (see the module docstring)."""
        self.on_ready: Callable[[], None] | None = None
        """Called (from the storage's thread) when a `flush` that declined may be tried again,
        or when held writes that could not be saved are (`failing` ended)."""
        self._lock = threading.RLock()
        self._held: dict[object, _Held] = {}
        """Write-behind: the held writes in order, each a statement and its parameters or a
        function of the connection (several statements). A table's whole state (`save_table`)
        is keyed by its id (a newer one replaces the held one and moves to the end: it holds
        everything the writes before it did for that table); every other write, appended turns
        included, has a key of its own."""
        self._held_lock = threading.Lock()
        """Guards `_held` and `_declined` (never held while SQLite works)."""
        self._keys = itertools.count()
        self._declined = False
        """A `flush` declined while the checkpoint thread had the database."""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        """Write-behind, on a file: checkpoints, and retries while `failing` (`_background`)."""
        self._retry_at = 0.0
        """While `failing`: when the thread tries the held writes again (`time.monotonic`)."""
        self._backoff = BACKOFF_START
        self._down_since = 0.0
        self._stuck = False
        """The last checkpoint failed (said once)."""
        self._turn_rows: dict[str, tuple[int, list[int]]] = {}
        """Per table with a head: the generation of its last whole save and the ids of its turn
        rows of that generation (the rows that load). Kept by the calls, as they are made."""
        self._dead_rows: list[int] = []
        """Ids of turn rows nothing loads any more, waiting for `purge_turns`."""
        self._next_row = 1
        self._next_generation = 1
        self._mark = 0
        """Writes made since opening (`mark`)."""
        self._durable = 0
        """Of those, how many are committed (`durable`)."""
        self._fault = None
        self._busy_timeout_ms = int(busy_timeout_ms)
        self._lock_file: int | None = None
        """The lock file's descriptor while an ``exclusive`` storage holds it."""
        memory = self.path == ":memory:"
        if not memory and not read_only:
            prepare_file(self.path)
        if exclusive and not memory and CAN_LOCK:
            self._lock_file = lock_database(self.path)
        try:
            self._conn = connect(self.path, busy_timeout_ms, read_only=read_only)
        except StorageError:
            self._unlock()
            raise
        try:
            if read_only:
                check_readable(self._conn, self.path)
            else:
                self._configure(
                    memory=memory,
                    busy_timeout_ms=busy_timeout_ms,
                    exclusive=exclusive and not CAN_LOCK,
                )
                self._migrate()
                self._scan_turns()
        except StorageError:
            self._conn.close()
            self._unlock()
            raise
        except sqlite3.Error as exc:
            self._conn.close()
            self._unlock()
            raise StorageError(self.path, f"cannot open the database: {reason(exc)}") from None
        if write_behind and not memory:
            # Commits never checkpoint; the thread does, off the event loop. A page cache that
            # holds every table in play: rewriting a state whose pages must be read back first
            # costs a third more (SQLite's default cache is 2 MB).
            self._conn.execute("PRAGMA wal_autocheckpoint = 0")
            self._conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
            self._thread = threading.Thread(
                target=self._background, name="sushigo-sqlite", daemon=True
            )
            self._thread.start()

    def _configure(self, *, memory: bool, busy_timeout_ms: int, exclusive: bool) -> None:
        conn = self._conn
        conn.execute(f"PRAGMA busy_timeout = {int(busy_timeout_ms)}")
        if exclusive:
            # Must precede the switch to WAL: in exclusive mode SQLite keeps the WAL index in
            # heap memory and holds the file lock from the first transaction until close.
            conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        # The first real reads: a file that is not a database fails here. Another program's
        # database is refused before anything (even the journal mode) is changed in it.
        app_id = scalar(conn, "PRAGMA application_id")
        version = scalar(conn, "PRAGMA user_version")
        tables = scalar(conn, "SELECT count(*) FROM sqlite_master")
        if app_id != APPLICATION_ID and (app_id != 0 or version != 0 or tables != 0):
            raise StorageError(self.path, "not a sushigo database (another program's file)")
        self._check_version(version)
        mode = str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
        if not memory and mode != "wal":
            raise StorageError(self.path, f"cannot use WAL journaling (got {mode!r})")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        # Sorts and statement journals in memory, not in files in the temporary directory
        # (usually another file system than the database's): the server's queries are small, and
        # a full /tmp must not fail a read or a commit when the database's own disk has room.
        conn.execute("PRAGMA temp_store = MEMORY")

    def _unlock(self) -> None:
        """Let go of the lock file (another server may open the database now)."""
        fd, self._lock_file = self._lock_file, None
        if fd is not None:
            os.close(fd)  # closing the descriptor releases its flock

    def _migrate(self) -> None:
        conn = self._conn
        # IMMEDIATE takes the write lock before reading the version, so two processes opening a
        # new file at once cannot both run the same migration.
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Read again under the lock: another process may have migrated meanwhile.
            version = scalar(conn, "PRAGMA user_version")
            self._check_version(version)
            for step in MIGRATIONS[version:]:
                step(conn)
            if version != SCHEMA_VERSION:
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _check_version(self, version: int) -> None:
        if version > SCHEMA_VERSION:
            raise StorageError(
                self.path,
                f"database schema version {version} is newer than this program supports "
                f"({SCHEMA_VERSION}); upgrade sushigo",
            )

    # --- plumbing ------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _transaction(self, what: str) -> Iterator[sqlite3.Connection]:
        """One write transaction; sqlite errors become a `StorageError` saying what failed."""
        with self._lock:
            if self._held:
                self._write_held()
            conn = self._conn
            try:
                conn.execute("BEGIN IMMEDIATE")
                yield conn
                conn.execute("COMMIT")
            except BaseException as exc:
                # Best effort: on a closed or broken connection there is nothing to roll back,
                # and the original error is the one worth reporting.
                with contextlib.suppress(sqlite3.Error):
                    if conn.in_transaction:
                        conn.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise StorageError(self.path, f"{what}: {reason(exc)}") from None
                raise

    @contextlib.contextmanager
    def _using(self, what: str) -> Iterator[sqlite3.Connection]:
        """The connection for reads and single-statement (autocommit) writes, after the held
        writes (so a read sees them). While those cannot be saved (`failing`), a read sees the
        database as it is: a player's list of games is better without the last few than not
        shown at all."""
        with self._lock:
            if self._held and self._fault is None:
                with contextlib.suppress(StorageError):  # failing now: said once, retried
                    self._write_held()
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise StorageError(self.path, f"{what}: {reason(exc)}") from None

    def close(self) -> None:
        """Write any held changes, then close the database (idempotent). The last close also
        checkpoints the WAL."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        with self._lock:
            try:
                if self._held:
                    self._write_held()
            except StorageError as exc:
                raise StorageError(
                    self.path,
                    f"{exc.reason}; closed without them (the tables they were of resume from"
                    " their last saved turn)",
                ) from None
            finally:
                self._conn.close()
                self._unlock()

    # --- write-behind ----------------------------------------------------------------------------

    def _hold(self, key: object, write: _Held) -> None:
        """Hold `write` under `key`, replacing (and moving to the end) a write held under it."""
        with self._held_lock:
            held = self._held
            if key in held:
                del held[key]
            held[key] = write
            self._mark += 1

    def _hold_writes(self, writes: Callable[[sqlite3.Connection], None]) -> None:
        self._hold(next(self._keys), (writes, None))

    def flush(self, *, wait: bool = False) -> bool:
        """Commit every held write in one transaction. True when nothing is held any more.

        While the storage's thread has the database this declines at once (False, nothing
        written) unless `wait`; `on_ready` is then called when it lets go. A commit that fails
        keeps the writes held and makes the storage `failing`: the thread then tries them again
        after a back-off, and calls `on_ready` when they are saved; meanwhile this declines too.
        With `wait` it tries at once, and a failure is a `StorageError`.
        """
        if not self._held:
            return True
        if not wait:
            if self._fault is not None and self._thread is not None:
                return False  # the thread tries again
            with self._held_lock:
                self._declined = True
            if not self._lock.acquire(blocking=False):
                return False
        else:
            self._lock.acquire()
        try:
            with self._held_lock:
                self._declined = False
            self._write_held()
        except StorageError:
            if wait:
                raise
            return False  # said in the log, and tried again by the thread
        finally:
            self._lock.release()
        return True

    def _write_held(self) -> None:
        """Commit the held writes (the caller holds `_lock`); on failure they stay held."""
        with self._held_lock:
            held, self._held = self._held, {}
            upto = self._mark
        if not held:
            self._durable = upto
            self._fault = None
            return
        conn = self._conn
        try:
            first, params = next(iter(held.values()))
            if len(held) == 1 and isinstance(first, str):
                conn.execute(first, params or ())  # one statement commits by itself, cheaper
            else:
                conn.execute("BEGIN IMMEDIATE")
                # Statements in a row with the same text (the turns of many tables) go in one
                # executemany: the statement is looked up and prepared once for all of them.
                run: list[tuple[Any, ...]] = []
                statement = ""
                for write, params in held.values():
                    if isinstance(write, str):
                        if write != statement and run:
                            conn.executemany(statement, run)
                            run = []
                        statement = write
                        run.append(params or ())
                        continue
                    if run:
                        conn.executemany(statement, run)
                        run = []
                    write(conn)
                if run:
                    conn.executemany(statement, run)
                conn.execute("COMMIT")
            self._durable = upto
            if self._fault is not None:
                self._fault = None
                log.warning(
                    "saving to %s works again after %.1f s; every held change is stored",
                    self.path,
                    time.monotonic() - self._down_since,
                )
        except BaseException as exc:
            with contextlib.suppress(sqlite3.Error):
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
            with self._held_lock:
                # Held again, before anything held meanwhile (which, for a table, is newer).
                newer, self._held = self._held, held
                for key, again in newer.items():
                    self._held.pop(key, None)
                    self._held[key] = again
            if isinstance(exc, sqlite3.Error):
                self._failed(exc)
                raise StorageError(
                    self.path, f"could not save {len(held)} held changes: {reason(exc)}"
                ) from None
            raise

    def _failed(self, exc: sqlite3.Error) -> None:
        """Held writes could not be committed: say why (once as it begins, and again if what
        is wrong changes), and when to try again."""
        now = time.monotonic()
        was, self._fault = self._fault, fault_of(exc, self.path)
        if was is None:
            self._down_since = now
            self._backoff = BACKOFF_START
        self._retry_at = now + self._backoff
        self._backoff = min(2 * self._backoff, BACKOFF_MAX)
        if self._fault is not was:
            log.warning(
                "cannot save to %s (%s): %s; playing on in memory, retrying until it can",
                *(self.path, self._fault, reason(exc)),
            )

    def _background(self) -> None:
        """The storage's thread: copy the log into the database once it has grown, and while
        `failing`, try the held writes again after each back-off."""
        wal = self.path + "-wal"
        while not self._stop.wait(self._pause()):
            if self._fault is not None and time.monotonic() >= self._retry_at:
                self._retry()
            try:
                size = os.stat(wal).st_size
            except OSError:
                continue
            if size >= CHECKPOINT_BYTES and not self._checkpoint():
                return
            with self._held_lock:
                declined, self._declined = self._declined, False
            callback = self.on_ready
            if declined and callback is not None:
                callback()

    def _pause(self) -> float:
        """How long the thread sleeps: until its next look at the log, or its next retry."""
        if self._fault is None:
            return CHECKPOINT_POLL_SECONDS
        return max(0.0, min(CHECKPOINT_POLL_SECONDS, self._retry_at - time.monotonic()))

    def _retry(self) -> None:
        """Commit the held writes that failed before (`_failed` logs a failure and sets the
        next try); `on_ready` once they are saved."""
        with self._lock:
            if self._stop.is_set() or self._fault is None:
                return
            try:
                self._write_held()
            except StorageError:
                return
        callback = self.on_ready
        if callback is not None:
            callback()

    def _checkpoint(self) -> bool:
        """Copy the log into the database (False: the storage is closing). A failure is said
        once, until one succeeds: with the disk full every try fails, four times a second."""
        with self._lock:
            if self._stop.is_set():
                return False
            try:
                # TRUNCATE empties the log when no reader (a sushigo-replay) is using it; with
                # one, it must not wait for the reader (the server's commits wait for this
                # lock): without a busy timeout it copies what it can, like PASSIVE, and the
                # next turn does the rest.
                self._conn.execute("PRAGMA busy_timeout = 0")
                try:
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                finally:
                    self._conn.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")
            except sqlite3.Error as exc:
                if not self._stuck:
                    log.warning("checkpoint of %s failed: %s", self.path, reason(exc))
                self._stuck = True
            else:
                self._stuck = False
        return True

    @property
    def schema_version(self) -> int:
        """The database's schema version (always `SCHEMA_VERSION` once open)."""
        with self._using("read the schema version") as conn:
            return scalar(conn, "PRAGMA user_version")
