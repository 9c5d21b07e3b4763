"""What lasts: one SQLite file holding tables in progress, finished games, identities, ratings
and reconnect tokens.

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

Schema versions live in ``PRAGMA user_version``; `_MIGRATIONS[i]` upgrades version ``i`` to
``i + 1``, and all pending steps run in one transaction at open. A database from a newer version
is refused rather than guessed at.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, NamedTuple

from sushigo.protocol.identity import player_id_for_key

__all__ = [
    "APPLICATION_ID",
    "CARD_GAME",
    "OWN_LADDERS",
    "SCHEMA_VERSION",
    "Identity",
    "LeaderboardEntry",
    "PlayerResult",
    "RecordSummary",
    "Storage",
    "StorageError",
    "StoredRecord",
    "TokenEntry",
]

APPLICATION_ID: Final = 0x5355_5348
"""``PRAGMA application_id`` of a sushigo database ("SUSH"), so `--db` pointed at some other
program's SQLite file is refused instead of being written into."""

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
_SAVE_TOKEN: Final = (
    "INSERT OR REPLACE INTO tokens (token_hash, table_id, seat, expires_ms) VALUES (?, ?, ?, ?)"
)
_DELETE_TOKEN: Final = "DELETE FROM tokens WHERE token_hash = ?"


class StorageError(Exception):
    """The database cannot be opened or used. ``str()`` is one line: the path and the reason."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        """The database path as given (``":memory:"`` for an in-memory database)."""
        self.reason = reason
        """What went wrong, for a person."""


@dataclass(frozen=True, slots=True)
class PlayerResult:
    """One seat's outcome in a finished game."""

    player_id: str | None
    """The identified player's id (``"k:..."``), or None for a guest or a server bot."""
    name: str
    """The name shown at the table."""
    seat: int
    """The seat, from 0."""
    score: int
    """Final score."""
    place: int
    """Final place, 1 for the winner; tied seats share a place."""


@dataclass(frozen=True, slots=True)
class RecordSummary:
    """A finished game without its record bytes (what a listing shows)."""

    game_id: str
    """The game's id."""
    table_id: str
    """The table it was played at."""
    kind: str
    """The game kind: ``"sushi-go"`` or ``"sushi-roll"``."""
    finished_ms: int
    """When it ended, Unix milliseconds (the server's clock, passed in)."""
    players: tuple[PlayerResult, ...]
    """One result per seat, in seat order."""


@dataclass(frozen=True, slots=True)
class StoredRecord(RecordSummary):
    """A finished game with its signed record."""

    record: bytes
    """The encoded game record, exactly as signed."""
    signature: bytes
    """The server's Ed25519 signature over `record`."""


@dataclass(frozen=True, slots=True)
class Identity:
    """A player known by an Ed25519 public key (guests are never stored)."""

    player_id: str
    """``"k:"`` and 32 hex digits, from `protocol.identity.player_id_for_key`."""
    public_key: bytes
    """The raw 32-byte Ed25519 public key."""
    name: str
    """The name last used with this key."""
    first_seen_ms: int
    """When the key first logged in, Unix milliseconds."""
    last_seen_ms: int
    """When it last logged in, Unix milliseconds."""


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    """One rated player, as the leaderboard lists them."""

    player_id: str
    """The player's id."""
    name: str
    """The player's last-used name."""
    mu: float
    """openskill mean skill."""
    sigma: float
    """openskill uncertainty."""
    games: int
    """Finished games stored for this player."""

    @property
    def ordinal(self) -> float:
        """The conservative rating ``mu - 3 * sigma`` the leaderboard is sorted by."""
        return self.mu - 3.0 * self.sigma


class TokenEntry(NamedTuple):
    """Where a reconnect token leads: ``(table_id, seat, expires_ms)``, also by name."""

    table_id: str
    """The table the token resumes."""
    seat: int
    """The seat at that table."""
    expires_ms: int
    """After this instant (Unix milliseconds) the token must be refused; the caller checks."""


# --- schema -----------------------------------------------------------------------------------

# Each migration is a list of statements run inside the open transaction (never executescript,
# which would commit half-way). Version 1 is the first release.
_V1: Final = (
    f"PRAGMA application_id = {APPLICATION_ID}",
    # A rowid table (not WITHOUT ROWID) on purpose: states are kilobytes, and SQLite stores
    # large rows far better in a rowid table; save_table measured twice as fast this way.
    """CREATE TABLE tables_in_progress (
        table_id TEXT PRIMARY KEY,
        state BLOB NOT NULL
    )""",
    """CREATE TABLE records (
        game_id TEXT PRIMARY KEY,
        table_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        finished_ms INTEGER NOT NULL,
        record BLOB NOT NULL,
        signature BLOB NOT NULL
    )""",
    "CREATE INDEX records_by_time ON records (finished_ms DESC, game_id)",
    # No foreign key from results to identities: a finished game must never be refused because
    # of a player row, and bots and guests have no identity at all.
    """CREATE TABLE results (
        game_id TEXT NOT NULL REFERENCES records (game_id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        player_id TEXT,
        name TEXT NOT NULL,
        score INTEGER NOT NULL,
        place INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    ) WITHOUT ROWID""",
    "CREATE INDEX results_by_player ON results (player_id) WHERE player_id IS NOT NULL",
    """CREATE TABLE identities (
        player_id TEXT PRIMARY KEY,
        public_key BLOB NOT NULL UNIQUE,
        name TEXT NOT NULL,
        first_seen_ms INTEGER NOT NULL,
        last_seen_ms INTEGER NOT NULL
    ) WITHOUT ROWID""",
    # Ratings do reference identities: rating a guest is a bug worth failing loudly on.
    """CREATE TABLE ratings (
        player_id TEXT PRIMARY KEY REFERENCES identities (player_id),
        mu REAL NOT NULL,
        sigma REAL NOT NULL
    ) WITHOUT ROWID""",
    # One live token per seat: saving a token for a seat revokes the previous one (UNIQUE +
    # INSERT OR REPLACE), so a seat handed to someone else cannot be resumed by its old owner.
    """CREATE TABLE tokens (
        token_hash BLOB PRIMARY KEY,
        table_id TEXT NOT NULL,
        seat INTEGER NOT NULL,
        expires_ms INTEGER NOT NULL,
        UNIQUE (table_id, seat)
    ) WITHOUT ROWID""",
)


def _statements(statements: Sequence[str]) -> Callable[[sqlite3.Connection], None]:
    def run(conn: sqlite3.Connection) -> None:
        for statement in statements:
            conn.execute(statement)

    return run


# Version 2: ratings of game kinds other than the card game (Sushi Roll has a ladder of its own;
# a dice game's results must not move a card player's rating). The card game's stay in `ratings`.
_V2: Final = (
    """CREATE TABLE game_ratings (
        kind TEXT NOT NULL,
        player_id TEXT NOT NULL REFERENCES identities (player_id),
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        PRIMARY KEY (kind, player_id)
    ) WITHOUT ROWID""",
)

CARD_GAME: Final = "sushi-go"
"""The game kind whose ratings live in the original ``ratings`` table."""
OWN_LADDERS: Final = ("sushi-roll",)
"""Game kinds rated in ``game_ratings``, apart from the card game."""

# Version 3: a table's turns appended one row each, after the head in `tables_in_progress`
# (whose `state` is then the head alone), so a turn does not rewrite the whole game. Rows saved
# whole by version 2 stay as they are and load the same (they simply have no turn rows).
# A rowid table, written in rowid order: the turns of every table in a commit go into the last
# page or two, where a table keyed by (table_id, n) would dirty (and split) a page per table;
# the index finds a table's turns to load or delete them. Measured with 64 writes per commit, a
# turn then costs 3.7 KiB of log instead of 9 (version 2) or 11 (keyed by table_id, n).
_V3: Final = (
    """CREATE TABLE table_turns (
        id INTEGER PRIMARY KEY,
        table_id TEXT NOT NULL,
        n INTEGER NOT NULL,
        value BLOB NOT NULL
    )""",
    "CREATE UNIQUE INDEX table_turns_by_table ON table_turns (table_id, n)",
)

# Version 4: a table's turns are written once and never looked up one by one. Each whole save of
# a table starts a new `generation` (numbered by the storage, kept in the head), and only the rows
# of the head's generation load. A finished game's rows, or a replaced save's, are then left for a
# batched delete (`Storage.purge_turns`) instead of being deleted at once: the rows of the games
# played side by side are interleaved, so deleting one game's rows rewrote a page per turn, and
# the index kept per turn, a page per append. Without both, a turn costs a fraction of a page of
# write-ahead log, not four. Rows of version 3 (generation 0) load with their heads as before.
_V4: Final = (
    "ALTER TABLE tables_in_progress ADD COLUMN generation INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE table_turns ADD COLUMN generation INTEGER NOT NULL DEFAULT 0",
    "DROP INDEX table_turns_by_table",
)

_MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _statements(_V1),
    _statements(_V2),
    _statements(_V3),
    _statements(_V4),
]
"""``_MIGRATIONS[i]`` upgrades a database at version ``i`` to ``i + 1``. Append, never edit."""

SCHEMA_VERSION: Final = len(_MIGRATIONS)
"""The schema version this code writes."""


def _scalar(conn: sqlite3.Connection, sql: str) -> int:
    row = conn.execute(sql).fetchone()
    return int(row[0])


def _reason(exc: sqlite3.Error) -> str:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return f"{text} (is another sushigo server using this database?)"
    return text


class Storage:
    """The server's SQLite database. Open once per process; close (or use ``with``) at exit.

    ``Storage(":memory:")`` gives a private in-memory database for tests. With
    ``exclusive=True`` the file stays locked while open, so a second server started on the same
    database fails at once with a clear `StorageError` instead of both resuming the same tables.
    ``write_behind=True`` holds the hot writes until `flush` and checkpoints in a background
    thread (see the module docstring).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout_ms: int = DEFAULT_BUSY_TIMEOUT_MS,
        exclusive: bool = False,
        write_behind: bool = False,
    ) -> None:
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
        memory = self.path == ":memory:"
        if not memory:
            _prepare_file(self.path)
        try:
            # isolation_level=None: the sqlite3 module must not open transactions behind our
            # back; every write below says BEGIN and COMMIT itself.
            self._conn = sqlite3.connect(
                self.path,
                timeout=busy_timeout_ms / 1000,
                isolation_level=None,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise StorageError(self.path, f"cannot open the database: {_reason(exc)}") from None
        try:
            self._configure(memory=memory, busy_timeout_ms=busy_timeout_ms, exclusive=exclusive)
            self._migrate()
            self._scan_turns()
        except StorageError:
            self._conn.close()
            raise
        except sqlite3.Error as exc:
            self._conn.close()
            raise StorageError(self.path, f"cannot open the database: {_reason(exc)}") from None
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
        app_id = _scalar(conn, "PRAGMA application_id")
        version = _scalar(conn, "PRAGMA user_version")
        tables = _scalar(conn, "SELECT count(*) FROM sqlite_master")
        if app_id != APPLICATION_ID and (app_id != 0 or version != 0 or tables != 0):
            raise StorageError(self.path, "not a sushigo database (another program's file)")
        self._check_version(version)
        mode = str(conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]).lower()
        if not memory and mode != "wal":
            raise StorageError(self.path, f"cannot use WAL journaling (got {mode!r})")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")

    def _migrate(self) -> None:
        conn = self._conn
        # IMMEDIATE takes the write lock before reading the version, so two processes opening a
        # new file at once cannot both run the same migration.
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Read again under the lock: another process may have migrated meanwhile.
            version = _scalar(conn, "PRAGMA user_version")
            self._check_version(version)
            for step in _MIGRATIONS[version:]:
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
                    raise StorageError(self.path, f"{what}: {_reason(exc)}") from None
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
                raise StorageError(self.path, f"{what}: {_reason(exc)}") from None

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

    # --- write-behind ----------------------------------------------------------------------------

    def _hold(self, key: object, write: _Held) -> None:
        """Hold `write` under `key`, replacing (and moving to the end) a write held under it."""
        with self._held_lock:
            held = self._held
            if key in held:
                del held[key]
            held[key] = write

    def _hold_writes(self, writes: Callable[[sqlite3.Connection], None]) -> None:
        self._hold(next(self._keys), (writes, None))

    @property
    def held(self) -> int:
        """How many writes wait for `flush`."""
        return len(self._held)

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
        if not held:
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
                raise StorageError(
                    self.path, f"write {len(held)} held changes: {_reason(exc)}"
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
                    # TRUNCATE: no other connection can be using the file (the server holds it
                    # exclusively), so this completes, and the log's size says what is left.
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
                except sqlite3.Error as exc:
                    log.warning("checkpoint of %s failed: %s", self.path, _reason(exc))
            with self._held_lock:
                declined, self._declined = self._declined, False
            callback = self.on_ready
            if declined and callback is not None:
                callback()

    def __enter__(self) -> Storage:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        """The database's schema version (always `SCHEMA_VERSION` once open)."""
        with self._using("read the schema version") as conn:
            return _scalar(conn, "PRAGMA user_version")

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
                "SELECT table_id, state, generation FROM tables_in_progress ORDER BY table_id"
            ).fetchall()
            rows = conn.execute(
                "SELECT t.table_id, t.n, t.value FROM table_turns t JOIN tables_in_progress h "
                "ON h.table_id = t.table_id AND h.generation = t.generation "
                "ORDER BY t.table_id, t.n, t.id"
            ).fetchall()
        turns: dict[str, list[bytes]] = {}
        gaps: set[str] = set()
        for table_id, n, value in rows:
            kept = turns.setdefault(table_id, [])
            if n == len(kept):
                kept.append(value)
            elif n == len(kept) - 1:  # the same turn again, written later: it replaces
                kept[n] = value
            elif table_id not in gaps:  # rows come in order: past a gap, every row is past it
                gaps.add(table_id)
                log.error(
                    "table %s: turn %d is missing; its turns from there on are ignored",
                    table_id,
                    len(kept),
                )
        return [
            (table_id, state + b"".join(turns.get(table_id, ()))) for table_id, state, _ in heads
        ]

    # --- finished games ------------------------------------------------------------------------

    def finish_game(
        self,
        table_id: str,
        game_id: str,
        kind: str,
        record: bytes,
        signature: bytes,
        players: Sequence[PlayerResult],
        *,
        finished_ms: int,
    ) -> None:
        """Store a finished game and retire its table, all in one transaction.

        Inserts the signed record and one result row per seat, and deletes the table's
        in-progress state (head and turns) and reconnect tokens. After a crash either the game is stored and the
        table gone, or the table is still there to resume: never both, never neither. A
        `game_id` already stored raises `StorageError` and changes nothing. With write-behind
        it is held until `flush` (committed with the writes around it, in order), and a game id
        already stored is logged and skipped there instead.
        """
        seats = [p.seat for p in players]
        if len(set(seats)) != len(seats):
            raise ValueError(f"duplicate seats in the results of game {game_id!r}: {seats}")
        with self._held_lock:
            entry = self._turn_rows.pop(table_id, None)

        def settle(stored: bool) -> None:
            """The table's turn rows no longer load once the game is stored; if it was not (a
            game id already stored), they still do, unless a newer save replaced them."""
            if entry is None:
                return
            with self._held_lock:
                if stored:
                    self._retire(entry[1])
                elif table_id not in self._turn_rows:
                    self._turn_rows[table_id] = entry
                else:
                    self._retire(entry[1])

        def store(conn: sqlite3.Connection) -> bool:
            exists = conn.execute("SELECT 1 FROM records WHERE game_id = ?", (game_id,))
            if exists.fetchone() is not None:
                return False
            conn.execute(
                "INSERT INTO records (game_id, table_id, kind, finished_ms, record, signature) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (game_id, table_id, kind, finished_ms, record, signature),
            )
            conn.executemany(
                "INSERT INTO results (game_id, seat, player_id, name, score, place) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [(game_id, p.seat, p.player_id, p.name, p.score, p.place) for p in players],
            )
            conn.execute("DELETE FROM tables_in_progress WHERE table_id = ?", (table_id,))
            conn.execute("DELETE FROM tokens WHERE table_id = ?", (table_id,))
            return True

        if self.write_behind:

            def held(conn: sqlite3.Connection) -> None:
                stored = store(conn)
                settle(stored)
                if not stored:
                    log.error("game %s is already stored; not storing it again", game_id)

            self._hold_writes(held)
            return
        try:
            with self._transaction(f"store game {game_id!r}") as conn:
                stored = store(conn)
        except BaseException:
            settle(False)
            raise
        settle(stored)
        if not stored:
            raise StorageError(self.path, f"game {game_id!r} is already stored")

    def get_record(self, game_id: str) -> StoredRecord | None:
        """A finished game with its record and signature, or None if unknown."""
        with self._using(f"read game {game_id!r}") as conn:
            row = conn.execute(
                "SELECT game_id, table_id, kind, finished_ms, record, signature FROM records "
                "WHERE game_id = ?",
                (game_id,),
            ).fetchone()
            if row is None:
                return None
            players = self._results(conn, [game_id])[game_id]
        game_id, table_id, kind, finished_ms, record, signature = row
        return StoredRecord(game_id, table_id, kind, finished_ms, players, record, signature)

    def list_records(
        self, limit: int = 50, offset: int = 0, player_id: str | None = None
    ) -> list[RecordSummary]:
        """Finished games, newest first; only those `player_id` played in when given."""
        if limit < 0 or offset < 0:
            raise ValueError(f"limit and offset must be >= 0, not {limit}, {offset}")
        with self._using("list games") as conn:
            if player_id is None:
                rows = conn.execute(
                    "SELECT game_id, table_id, kind, finished_ms FROM records "
                    "ORDER BY finished_ms DESC, game_id LIMIT ? OFFSET ?",
                    (limit, offset),
                ).fetchall()
            else:
                rows = conn.execute(
                    "SELECT r.game_id, r.table_id, r.kind, r.finished_ms FROM records r "
                    "WHERE r.game_id IN (SELECT game_id FROM results WHERE player_id = ?) "
                    "ORDER BY r.finished_ms DESC, r.game_id LIMIT ? OFFSET ?",
                    (player_id, limit, offset),
                ).fetchall()
            results = self._results(conn, [row[0] for row in rows])
        return [RecordSummary(g, t, k, f, results[g]) for g, t, k, f in rows]

    @staticmethod
    def _results(
        conn: sqlite3.Connection, game_ids: Sequence[str]
    ) -> dict[str, tuple[PlayerResult, ...]]:
        found: dict[str, list[PlayerResult]] = {game_id: [] for game_id in game_ids}
        if game_ids:
            marks = ", ".join("?" * len(game_ids))
            for row in conn.execute(
                "SELECT game_id, player_id, name, seat, score, place FROM results "
                f"WHERE game_id IN ({marks}) ORDER BY game_id, seat",
                list(game_ids),
            ):
                found[row[0]].append(PlayerResult(*row[1:]))
        return {game_id: tuple(results) for game_id, results in found.items()}

    # --- identities and ratings ----------------------------------------------------------------

    def upsert_identity(self, public_key: bytes, name: str, now_ms: int) -> str:
        """Record a key login (new key, or a known key's new name); returns its player id."""
        if len(public_key) != 32:
            raise ValueError(f"an Ed25519 public key is 32 bytes, not {len(public_key)}")
        player_id = player_id_for_key(public_key)
        with self._transaction(f"store identity {player_id}") as conn:
            conn.execute(
                "INSERT INTO identities (player_id, public_key, name, first_seen_ms, last_seen_ms) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (player_id) DO UPDATE SET "
                "name = excluded.name, last_seen_ms = excluded.last_seen_ms",
                (player_id, public_key, name, now_ms, now_ms),
            )
        return player_id

    def get_identity(self, player_id: str) -> Identity | None:
        """A stored identity, or None."""
        with self._using(f"read identity {player_id}") as conn:
            row = conn.execute(
                "SELECT public_key, name, first_seen_ms, last_seen_ms FROM identities "
                "WHERE player_id = ?",
                (player_id,),
            ).fetchone()
        # Column order is field order; sqlite3 returns str, int, bytes and float as declared.
        return None if row is None else Identity(player_id, *row)

    def get_rating(self, player_id: str, kind: str = CARD_GAME) -> tuple[float, float] | None:
        """The player's ``(mu, sigma)`` at game `kind`, or None if never rated at it (use the
        model's defaults). Each game kind has its own ratings."""
        with self._using(f"read rating {player_id}") as conn:
            if kind == CARD_GAME:
                row = conn.execute(
                    "SELECT mu, sigma FROM ratings WHERE player_id = ?", (player_id,)
                ).fetchone()
            else:
                row = conn.execute(
                    "SELECT mu, sigma FROM game_ratings WHERE kind = ? AND player_id = ?",
                    (kind, player_id),
                ).fetchone()
        return None if row is None else (row[0], row[1])

    def set_ratings(
        self, ratings: Mapping[str, tuple[float, float]], kind: str = CARD_GAME
    ) -> None:
        """Store new ``(mu, sigma)`` values at game `kind` for several players in one transaction.

        Every player must have a stored identity (guests are not rated): an unknown id raises
        `StorageError` and no rating changes.
        """
        for player_id, (mu, sigma) in ratings.items():
            if not (math.isfinite(mu) and math.isfinite(sigma) and sigma > 0):
                raise ValueError(f"bad rating for {player_id}: mu={mu}, sigma={sigma}")
        with self._transaction("store ratings") as conn:
            if kind == CARD_GAME:
                conn.executemany(
                    "INSERT INTO ratings (player_id, mu, sigma) VALUES (?, ?, ?) "
                    "ON CONFLICT (player_id) DO UPDATE SET "
                    "mu = excluded.mu, sigma = excluded.sigma",
                    [(player_id, mu, sigma) for player_id, (mu, sigma) in ratings.items()],
                )
            else:
                conn.executemany(
                    "INSERT INTO game_ratings (kind, player_id, mu, sigma) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT (kind, player_id) DO UPDATE SET "
                    "mu = excluded.mu, sigma = excluded.sigma",
                    [(kind, player_id, mu, sigma) for player_id, (mu, sigma) in ratings.items()],
                )

    def leaderboard(self, limit: int = 20, kind: str = CARD_GAME) -> list[LeaderboardEntry]:
        """Players rated at game `kind`, best first by ``mu - 3 * sigma`` (openskill's ordinal);
        `games` counts their finished games of that kind."""
        with self._using("read the leaderboard") as conn:
            if kind == CARD_GAME:
                # Every game but those of kinds with a ladder of their own is a card game (older
                # databases may name the card game differently).
                marks = ", ".join("?" * len(OWN_LADDERS))
                rows = conn.execute(
                    "SELECT r.player_id, i.name, r.mu, r.sigma, "
                    "(SELECT count(*) FROM results s JOIN records g USING (game_id) "
                    f"WHERE s.player_id = r.player_id AND g.kind NOT IN ({marks})) "
                    "FROM ratings r JOIN identities i USING (player_id) "
                    "ORDER BY r.mu - 3 * r.sigma DESC, r.player_id LIMIT ?",
                    (*OWN_LADDERS, limit),
                ).fetchall()
            else:
                rows = conn.execute(
                    "SELECT r.player_id, i.name, r.mu, r.sigma, "
                    "(SELECT count(*) FROM results s JOIN records g USING (game_id) "
                    "WHERE s.player_id = r.player_id AND g.kind = r.kind) "
                    "FROM game_ratings r JOIN identities i USING (player_id) WHERE r.kind = ? "
                    "ORDER BY r.mu - 3 * r.sigma DESC, r.player_id LIMIT ?",
                    (kind, limit),
                ).fetchall()
        return [LeaderboardEntry(*row) for row in rows]

    # --- reconnect tokens ----------------------------------------------------------------------

    def save_token(self, token_hash: bytes, table_id: str, seat: int, expires_ms: int) -> None:
        """Store a token's SHA-256 hash for a seat, revoking any earlier token of that seat
        (held until `flush` with write-behind)."""
        params = (token_hash, table_id, seat, expires_ms)
        if self.write_behind:
            self._hold(next(self._keys), (_SAVE_TOKEN, params))
            return
        with self._transaction(f"save token for {table_id!r} seat {seat}") as conn:
            conn.execute(_SAVE_TOKEN, params)

    def find_token(self, token_hash: bytes) -> TokenEntry | None:
        """Where the token with this hash leads, or None. Expiry is the caller's to check."""
        with self._using("find token") as conn:
            row = conn.execute(
                "SELECT table_id, seat, expires_ms FROM tokens WHERE token_hash = ?",
                (token_hash,),
            ).fetchone()
        return None if row is None else TokenEntry(*row)

    def rotate_token(self, old_hash: bytes, new_hash: bytes, expires_ms: int) -> TokenEntry | None:
        """Replace a token by a new one for the same seat, atomically.

        Returns the seat's entry under the new token, or None (and changes nothing) if the old
        hash is unknown, e.g. already rotated by whoever used it first.
        """
        with self._transaction("rotate token") as conn:
            row = conn.execute(
                "DELETE FROM tokens WHERE token_hash = ? RETURNING table_id, seat", (old_hash,)
            ).fetchone()
            if row is None:
                return None
            entry = TokenEntry(row[0], row[1], expires_ms)
            conn.execute(
                "INSERT INTO tokens (token_hash, table_id, seat, expires_ms) VALUES (?, ?, ?, ?)",
                (new_hash, entry.table_id, entry.seat, expires_ms),
            )
        return entry

    def delete_token(self, token_hash: bytes) -> None:
        """Forget one token (no error if unknown; held until `flush` with write-behind)."""
        if self.write_behind:
            self._hold(next(self._keys), (_DELETE_TOKEN, (token_hash,)))
            return
        with self._transaction("delete token") as conn:
            conn.execute(_DELETE_TOKEN, (token_hash,))

    def delete_tokens_for(self, table_id: str) -> None:
        """Forget every token of a table."""
        with self._transaction(f"delete tokens of {table_id!r}") as conn:
            conn.execute("DELETE FROM tokens WHERE table_id = ?", (table_id,))

    def delete_expired_tokens(self, now_ms: int) -> int:
        """Forget tokens that expired before `now_ms`; returns how many."""
        with self._transaction("delete expired tokens") as conn:
            return conn.execute("DELETE FROM tokens WHERE expires_ms < ?", (now_ms,)).rowcount


def _prepare_file(path: str) -> None:
    """Create the parent directory, and the file itself owner-only (it holds token hashes and
    identities; SQLite gives the -wal and -shm files the database file's permissions)."""
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageError(
            path, f"cannot create directory {target.parent}: {exc.strerror}"
        ) from None
    if target.is_dir():
        raise StorageError(path, "is a directory, not a database file")
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StorageError(path, f"cannot create the database file: {exc.strerror}") from None
    os.close(fd)
