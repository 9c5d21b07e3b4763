"""The SQLite backend's schema: its numbered migrations and the checks made before opening a file.

Schema versions live in ``PRAGMA user_version``; `MIGRATIONS[i]` upgrades version ``i`` to
``i + 1``, and all pending steps run in one transaction at open. A database from a newer version
is refused rather than guessed at. ``PRAGMA application_id`` marks the file as ours.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Final

from sushigo.server.lookalike import skeleton
from sushigo.server.storage.contract import Fault, StorageError

fcntl: ModuleType | None
try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: SQLite's own exclusive locking mode instead
    fcntl = None

CAN_LOCK: Final = fcntl is not None
"""A server keeps others out with a lock file (`lock_database`); without `fcntl`, with SQLite's
exclusive locking mode, which keeps readers out too."""

APPLICATION_ID: Final = 0x5355_5348
"""``PRAGMA application_id`` of a sushigo database ("SUSH"), so `--db` pointed at some other
program's SQLite file is refused instead of being written into."""


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

# Version 5: moderation (issue 17). Bans and mutes, keyed by what they hold (a player id, or a
# range in its normal form), read once at start; the admins' audit log, in the order written;
# and games an admin aborted, kept apart from the finished ones (with their own results), so
# that nothing that lists, rates or counts finished games ever meets one.
_V5: Final = (
    """CREATE TABLE sanctions (
        kind TEXT NOT NULL,
        target TEXT NOT NULL,
        reason TEXT NOT NULL,
        admin TEXT NOT NULL,
        created_ms INTEGER NOT NULL,
        expires_ms INTEGER,
        PRIMARY KEY (kind, target)
    ) WITHOUT ROWID""",
    """CREATE TABLE audit_log (
        id INTEGER PRIMARY KEY,
        at_ms INTEGER NOT NULL,
        admin TEXT NOT NULL,
        action TEXT NOT NULL,
        target TEXT NOT NULL,
        detail TEXT NOT NULL
    )""",
    """CREATE TABLE aborted_games (
        game_id TEXT PRIMARY KEY,
        table_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        aborted_ms INTEGER NOT NULL,
        record BLOB NOT NULL,
        signature BLOB NOT NULL,
        reason TEXT NOT NULL
    )""",
    "CREATE INDEX aborted_by_time ON aborted_games (aborted_ms DESC, game_id)",
    """CREATE TABLE aborted_results (
        game_id TEXT NOT NULL REFERENCES aborted_games (game_id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        player_id TEXT,
        name TEXT NOT NULL,
        score INTEGER NOT NULL,
        place INTEGER NOT NULL,
        PRIMARY KEY (game_id, seat)
    ) WITHOUT ROWID""",
)

# Version 10: tournaments (server/tournaments/store.py), so that one outlives a restart: one row
# each, its state a blob rewritten when it changes (not at every turn). A rowid table, read in
# rowid order: the order they were made, which the tournament list keeps.
_V10: Final = (
    """CREATE TABLE tournaments (
        name TEXT NOT NULL UNIQUE,
        state BLOB NOT NULL
    )""",
)

# Version 12: every game's ladder in one table keyed by (kind, player_id), as PostgreSQL keeps
# them: version 2's `game_ratings`, which has that shape, takes Sushi Go!'s ratings (version 1's
# `ratings`) value for value, and their name.
_V12: Final = (
    "INSERT INTO game_ratings SELECT 'sushi-go', player_id, mu, sigma FROM ratings",
    "DROP TABLE ratings",
    "ALTER TABLE game_ratings RENAME TO ratings",
)


def _v13(conn: sqlite3.Connection) -> None:
    """Version 13: each identity's name's look-alike key (`server.lookalike.skeleton`), so that
    a login under a name that looks like a registered player's is refused, by an index."""
    conn.execute("ALTER TABLE identities ADD COLUMN name_key TEXT NOT NULL DEFAULT ''")
    rows = conn.execute("SELECT player_id, name FROM identities").fetchall()
    conn.executemany(
        "UPDATE identities SET name_key = ? WHERE player_id = ?",
        [(skeleton(name), player_id) for player_id, name in rows],
    )
    conn.execute("CREATE INDEX identities_by_name_key ON identities (name_key)")


# Version 14: each record keeps the public key that signed it (NULL for those stored before,
# until a server with the key they verify with fills it in: `Storage.keyless_records`), so that
# `sushigo-replay --db PATH` verifies with nothing but the database. (The nodes' rows that
# PostgreSQL's step also changes are not here.)
_V14: Final = ("ALTER TABLE records ADD COLUMN server_key BLOB",)

MIGRATIONS: list[Callable[[sqlite3.Connection], None]] = [
    _statements(_V1),
    _statements(_V2),
    _statements(_V3),
    _statements(_V4),
    _statements(_V5),
    # 6: the cluster's nodes and leases, which only PostgreSQL holds (pg_schema); nothing here,
    # so that one number still means the same contract on both.
    _statements(()),
    # 7: the cluster's table list (pg_schema), likewise.
    _statements(()),
    # 8: the cluster's tournaments (pg_schema), likewise.
    _statements(()),
    # 9: a game's record found by its table's id (pg_schema), likewise: nothing here asks.
    _statements(()),
    _statements(_V10),
    # 11: the cluster's nodes' web addresses (pg_schema), likewise.
    _statements(()),
    _statements(_V12),
    _v13,
    _statements(_V14),
]
"""``MIGRATIONS[i]`` upgrades a database at version ``i`` to ``i + 1``. Append, never edit."""

SCHEMA_VERSION: Final = len(MIGRATIONS)
"""The schema version this code writes."""


def scalar(conn: sqlite3.Connection, sql: str) -> int:
    row = conn.execute(sql).fetchone()
    return int(row[0])


def reason(exc: sqlite3.Error) -> str:
    text = str(exc)
    if "locked" in text or "busy" in text:
        return f"{text} (is another sushigo server using this database?)"
    if getattr(exc, "sqlite_errorname", "").startswith("SQLITE_READONLY"):
        return f"{text} (the file, its folder or its file system is read-only)"
    return text


def fault_of(exc: sqlite3.Error, path: str) -> Fault:
    """What an error writing the database at `path` says of it (`Storage.fault`). SQLite names
    a full disk and a read-only database itself; an I/O error (a write the kernel refused: a file
    system it made read-only after errors, the WAL index unable to grow on a full disk) is told
    apart by writing a file beside the database."""
    name = getattr(exc, "sqlite_errorname", "")
    if name == "SQLITE_FULL":
        return Fault.DISK_FULL
    if name.startswith("SQLITE_READONLY"):
        return Fault.READ_ONLY
    if not name.startswith("SQLITE_IOERR"):
        return Fault.BROKEN
    folder = Path(path).absolute().parent
    try:
        fd, probe = tempfile.mkstemp(prefix=".sushigo-probe-", dir=folder)
    except OSError as error:
        return _FAULTS.get(error.errno or 0, Fault.BROKEN)
    os.close(fd)
    with contextlib.suppress(OSError):
        os.unlink(probe)
    try:
        full = os.statvfs(folder).f_bavail == 0  # an empty file needs no block
    except OSError:
        return Fault.BROKEN
    return Fault.DISK_FULL if full else Fault.BROKEN


_FAULTS: Final = {
    errno.EROFS: Fault.READ_ONLY,
    errno.ENOSPC: Fault.DISK_FULL,
    errno.EDQUOT: Fault.DISK_FULL,
}
"""What a file that cannot be written beside the database says of the database."""


def prepare_file(path: str) -> None:
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
    doing = "open the database file to write" if target.exists() else "create the database file"
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StorageError(path, f"cannot {doing}: {exc.strerror}") from None
    os.close(fd)


def connect(path: str, busy_timeout_ms: int, *, read_only: bool) -> sqlite3.Connection:
    """A connection to the database at `path` (``read_only``: the file opened read-only, which
    must exist). `StorageError` when it cannot be opened."""
    try:
        # isolation_level=None: the sqlite3 module must not open transactions behind our back;
        # every write says BEGIN and COMMIT itself.
        return sqlite3.connect(
            Path(path).absolute().as_uri() + "?mode=ro" if read_only else path,
            timeout=busy_timeout_ms / 1000,
            isolation_level=None,
            check_same_thread=False,
            uri=read_only,
        )
    except sqlite3.Error as exc:
        raise StorageError(path, f"cannot open the database: {reason(exc)}") from None


def check_readable(conn: sqlite3.Connection, path: str) -> None:
    """A read-only opening: the file must be this program's database, at this code's schema
    version (a reader cannot migrate it). `StorageError` saying why not."""
    app_id = scalar(conn, "PRAGMA application_id")
    version = scalar(conn, "PRAGMA user_version")
    if app_id != APPLICATION_ID:
        raise StorageError(path, "not a sushigo database (another program's file)")
    if version != SCHEMA_VERSION:
        raise StorageError(
            path,
            f"database schema version {version} is "
            + (
                f"newer than this program supports ({SCHEMA_VERSION}); upgrade sushigo"
                if version > SCHEMA_VERSION
                else f"older than this program's ({SCHEMA_VERSION}); run sushigo-server on it"
                " once to upgrade it"
            ),
        )


def lock_database(path: str) -> int:
    """Take the lock file beside the database at `path` (``DB.lock``) for this process: its
    descriptor, released when closed (or when the process dies, however it dies).
    `StorageError` when another server holds it."""
    assert fcntl is not None
    lock_path = path + ".lock"
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise StorageError(path, f"cannot open its lock file {lock_path}: {exc.strerror}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise StorageError(
            path, f"another sushigo server is using this database (it holds {lock_path})"
        ) from None
    return fd
