"""The SQLite backend of `storage.Storage`: one file holding tables in progress, finished games,
identities, ratings and reconnect tokens (its schema: `sqlite_schema`; finished games, identities,
ratings and tokens: `sqlite_records`; bans, mutes, the audit log and aborted games:
`sqlite_moderation`).

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

Tables in progress are saved as a head (`save_table`: the table's header, rewritten only when it
changes) followed by its turns, one row each, appended as they are played (`append_turns`): a
turn writes only its own bytes, not the whole game again. `load_tables` gives back the head and
the turns joined, in order, so a state saved whole (schema version 2 and earlier) and one saved in
parts read the same. Turn rows are only ever appended, in the order of their ids, with no index:
each whole save starts a new generation of the table's rows (the head names it, and only rows of
that generation load), and rows that no longer load (a finished game's, a replaced save's) are
deleted in batches of `PURGE_ROWS` (`purge_turns`), not one game at a time. The games played side
by side have their rows on the same pages, so a turn costs a fraction of a page of write-ahead log
where an index entry and a delete per row cost a page or two each.

Write-behind (``write_behind=True``, the server's mode). The writes of play (a table's turns at
every turn boundary, reconnect tokens, a finished game, a table's removal) are held in memory, in
order, until `flush`, which commits all of them in one transaction: the server flushes once per
pass of its event loop, before it writes any message to a socket, so a turn is still saved before
anyone hears its result, and a busy server pays one commit for many tables. Every other call
flushes the held writes first, so reads see them and the order of writes is kept. WAL checkpoints (which copy the log into the database and
fsync, a stall of tens of milliseconds on a busy disk) then run in a background thread instead of
inside whichever commit crossed SQLite's threshold; while one runs, `flush` declines at once
rather than wait (the server holds its messages meanwhile) and `on_ready` says when to try again.

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
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from .sqlite_moderation import SqliteModeration
from .sqlite_records import SqliteRecords
from .sqlite_schema import (
    APPLICATION_ID,
    CAN_LOCK,
    MIGRATIONS,
    SCHEMA_VERSION,
    check_readable,
    connect,
    lock_database,
    prepare_file,
    reason,
    scalar,
)
from .sqlite_tournaments import SqliteTournaments
from .storage import StorageError, WriteCounts, assemble_tables

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "SqliteStorage"]

DEFAULT_BUSY_TIMEOUT_MS: Final = 5_000

CHECKPOINT_BYTES: Final = 16 * 1024 * 1024
"""With write-behind: the size of the write-ahead log past which the background thread copies it
into the database. Four times SQLite's default: the last pages of turns are rewritten at every commit, and a
checkpoint copies only the newest version of each page, so copying less often copies less."""
CHECKPOINT_POLL_SECONDS: Final = 0.25
"""How often the background thread looks at the log's size."""
CACHE_KIB: Final = 64 * 1024
"""With write-behind: SQLite's page cache, in KiB (a server's working set: thousands of tables)."""

log = logging.getLogger("sushigo.server")

_Held = tuple[str, tuple[Any, ...]] | tuple[Callable[[sqlite3.Connection], None], None]
"""A held write: a statement and its parameters, or a function of the connection."""

_SAVE_TABLE: Final = (
    "INSERT INTO tables_in_progress (table_id, state, generation) VALUES (?, ?, ?) "
    "ON CONFLICT (table_id) DO UPDATE SET state = excluded.state, generation = excluded.generation"
)
_APPEND_TURN: Final = (
    "INSERT INTO table_turns (id, table_id, generation, n, value) VALUES (?, ?, ?, ?, ?)"
)
_DELETE_TURN: Final = "DELETE FROM table_turns WHERE id = ?"
PURGE_ROWS: Final = 4096
"""Turn rows no table uses any more (a finished game's, a replaced save's) wait until this many,
then go in one batch (see `Storage.purge_turns`)."""


class SqliteStorage(SqliteRecords, SqliteModeration, SqliteTournaments, WriteCounts):
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
        """Called (from the checkpoint thread) when a `flush` that declined may be tried again."""
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
        self._checkpointer: threading.Thread | None = None
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
        self._failing = False
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
            self._checkpointer = threading.Thread(
                target=self._checkpoints, name="sushigo-checkpoint", daemon=True
            )
            self._checkpointer.start()

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

    def _scan_turns(self) -> None:
        """Learn which turn rows belong to which head (`_turn_rows`), and which to purge."""
        conn = self._conn
        heads = dict(conn.execute("SELECT table_id, generation FROM tables_in_progress"))
        live: dict[str, tuple[int, list[int]]] = {t: (g, []) for t, g in heads.items()}
        top_row, top_generation = 0, max(heads.values(), default=0)
        for row, table_id, generation in conn.execute(
            "SELECT id, table_id, generation FROM table_turns ORDER BY id"
        ):
            top_row, top_generation = row, max(top_generation, generation)
            entry = live.get(table_id)
            if entry is not None and entry[0] == generation:
                entry[1].append(row)
            else:
                self._dead_rows.append(row)
        self._turn_rows = live
        self._next_row = top_row + 1
        self._next_generation = top_generation + 1

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
        """The connection for reads and single-statement (autocommit) writes."""
        with self._lock:
            if self._held:
                self._write_held()
            try:
                yield self._conn
            except sqlite3.Error as exc:
                raise StorageError(self.path, f"{what}: {reason(exc)}") from None

    def close(self) -> None:
        """Write any held changes, then close the database (idempotent). The last close also
        checkpoints the WAL."""
        self._stop.set()
        if self._checkpointer is not None:
            self._checkpointer.join()
            self._checkpointer = None
        with self._lock:
            try:
                if self._held:
                    self._write_held()
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

        While the checkpoint thread has the database this declines at once (False, nothing
        written) unless `wait`; `on_ready` is then called when it lets go. A `StorageError` keeps
        the writes held, to be tried again by the next flush.
        """
        if not self._held:
            return True
        if not wait:
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
            self._failing = False
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
                self._failing = True
                raise StorageError(
                    self.path, f"write {len(held)} held changes: {reason(exc)}"
                ) from None
            raise

    def _checkpoints(self) -> None:
        """The checkpoint thread: copy the log into the database once it has grown."""
        wal = self.path + "-wal"
        while not self._stop.wait(CHECKPOINT_POLL_SECONDS):
            try:
                size = os.stat(wal).st_size
            except OSError:
                continue
            if size < CHECKPOINT_BYTES:
                continue
            with self._lock:
                if self._stop.is_set():
                    return
                try:
                    # TRUNCATE empties the log when no reader (a sushigo-replay) is using it;
                    # with one, it must not wait for the reader (the server's commits wait for
                    # this lock): without a busy timeout it copies what it can, like PASSIVE,
                    # and the next turn does the rest.
                    self._conn.execute("PRAGMA busy_timeout = 0")
                    try:
                        self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                    finally:
                        self._conn.execute(f"PRAGMA busy_timeout = {self._busy_timeout_ms}")
                except sqlite3.Error as exc:
                    log.warning("checkpoint of %s failed: %s", self.path, reason(exc))
            with self._held_lock:
                declined, self._declined = self._declined, False
            callback = self.on_ready
            if declined and callback is not None:
                callback()

    def __enter__(self) -> SqliteStorage:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        """The database's schema version (always `SCHEMA_VERSION` once open)."""
        with self._using("read the schema version") as conn:
            return scalar(conn, "PRAGMA user_version")

    # --- tables in progress --------------------------------------------------------------------

    def save_table(self, table_id: str, state: bytes, turns: Sequence[bytes] = ()) -> None:
        """Store (insert or replace) a table's whole resumable state: its head `state`, then
        `turns` (numbered from 0), replacing any turns saved before. Called when a game's first
        save comes (or its turns were never stored); later turns go through `append_turns`.

        The save starts a new generation of the table's turns: the rows of the earlier ones no
        longer load, and go with the next purge (see `purge_turns`). With write-behind it is held
        until `flush` (only the newest whole state of a table is written, after everything held
        before it).
        """
        with self._held_lock:
            generation = self._next_generation
            self._next_generation += 1
            ids = self._new_rows(len(turns))
        rows = [
            (row, table_id, generation, n, value)
            for row, (n, value) in zip(ids, enumerate(turns), strict=True)
        ]

        def save(conn: sqlite3.Connection) -> None:
            conn.execute(_SAVE_TABLE, (table_id, state, generation))
            conn.executemany(_APPEND_TURN, rows)

        if self.write_behind:
            self._hold(table_id, (save, None))
        else:
            with self._transaction(f"save table {table_id!r}") as conn:
                save(conn)
        with self._held_lock:
            old = self._turn_rows.get(table_id)
            self._turn_rows[table_id] = (generation, ids)
            if old is not None:
                self._retire(old[1])

    def append_turns(
        self, table_id: str, first: int, turns: Sequence[bytes], state: bytes | None = None
    ) -> None:
        """Append turns numbered `first`, `first + 1`, ... to a table saved by `save_table`, and
        replace its head by `state` when given (the turns already saved stay); called at every
        turn boundary, so it writes only that turn's bytes. A turn appended again replaces the
        one of the same number.

        A single turn without a new head is one statement, which SQLite's autocommit makes a
        transaction of its own (the server's hottest write). With write-behind it is held until
        `flush`, in order with every other write.
        """
        if first < 0:
            raise ValueError(f"turns are numbered from 0, not {first}")
        with self._held_lock:
            entry = self._turn_rows.get(table_id)
            if entry is None:  # turns of no table so far: they load once a head of theirs comes
                generation = self._next_generation
                self._next_generation += 1
                entry = self._turn_rows[table_id] = (generation, [])
            generation, ids = entry
            new = self._new_rows(len(turns))
            ids += new  # before the write: a failed one leaves only ids of no row behind
        if state is None and len(turns) == 1:
            params = (new[0], table_id, generation, first, turns[0])
            if self.write_behind:
                self._hold(next(self._keys), (_APPEND_TURN, params))
                return
            with self._using(f"save table {table_id!r}") as conn:
                conn.execute(_APPEND_TURN, params)
            return
        rows = [
            (row, table_id, generation, first + i, v)
            for i, (row, v) in enumerate(zip(new, turns, strict=True))
        ]

        def append(conn: sqlite3.Connection) -> None:
            if state is not None:
                conn.execute(_SAVE_TABLE, (table_id, state, generation))
            conn.executemany(_APPEND_TURN, rows)

        if self.write_behind:
            self._hold(next(self._keys), (append, None))
            return
        with self._transaction(f"save table {table_id!r}") as conn:
            append(conn)

    def delete_table(self, table_id: str) -> None:
        """Forget a table in progress (abandoned, not finished), its turns and its reconnect
        tokens (held until `flush` with write-behind)."""

        def delete(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM tables_in_progress WHERE table_id = ?", (table_id,))
            conn.execute("DELETE FROM tokens WHERE table_id = ?", (table_id,))

        if self.write_behind:
            self._hold_writes(delete)
        else:
            with self._transaction(f"delete table {table_id!r}") as conn:
                delete(conn)
        with self._held_lock:
            entry = self._turn_rows.pop(table_id, None)
            if entry is not None:
                self._retire(entry[1])

    def _new_rows(self, count: int) -> list[int]:
        """Ids for `count` new turn rows (the caller holds `_held_lock`)."""
        first = self._next_row
        self._next_row += count
        return list(range(first, first + count))

    def _retire(self, rows: list[int]) -> None:
        """Turn rows that no longer load (the caller holds `_held_lock`): purge them once there
        are `PURGE_ROWS` of them."""
        self._dead_rows += rows
        if len(self._dead_rows) >= PURGE_ROWS:
            self._purge_held()

    def _purge_held(self) -> None:
        """Delete every retired turn row, after everything written or held so far (the caller
        holds `_held_lock`). In id order, which is the order they were written: the rows of the
        games that ran side by side share pages, which are rewritten once, or freed."""
        dead = sorted(self._dead_rows)
        self._dead_rows = []
        if not dead:
            return
        params = [(row,) for row in dead]

        def purge(conn: sqlite3.Connection) -> None:
            conn.executemany(_DELETE_TURN, params)

        self._held[next(self._keys)] = (purge, None)

    @property
    def retired_turns(self) -> int:
        """Turn rows that no longer load, waiting to be purged."""
        return len(self._dead_rows)

    def purge_turns(self) -> None:
        """Delete now the turn rows that no longer load (a finished game's, a replaced save's),
        which otherwise wait until there are `PURGE_ROWS` of them (held until `flush` with
        write-behind). They never load either way: this only frees their space."""
        with self._held_lock:
            self._purge_held()
        if not self.write_behind:
            with self._transaction("purge turns"):
                pass  # the transaction writes what is held first

    def load_tables(self) -> list[tuple[str, bytes]]:
        """Every table in progress as ``(table_id, state)``, ordered by table id: the head saved
        by `save_table` followed by the table's turns in order (up to the first missing number,
        which a correct server never leaves; it is logged). Only the turns of the head's
        generation load (of a turn appended twice, the later one): turns of no table, of an
        earlier game or of a replaced save are ignored."""
        with self._using("load tables") as conn:
            heads = conn.execute(
                "SELECT table_id, state FROM tables_in_progress ORDER BY table_id"
            ).fetchall()
            rows = conn.execute(
                "SELECT t.table_id, t.n, t.value FROM table_turns t JOIN tables_in_progress h "
                "ON h.table_id = t.table_id AND h.generation = t.generation "
                "ORDER BY t.table_id, t.n, t.id"
            ).fetchall()
        return assemble_tables(heads, rows)
