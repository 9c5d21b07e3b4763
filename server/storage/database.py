"""``--db``: which backend of `storage.Storage` a command opens (every command that takes it)."""

from __future__ import annotations

from .contract import Storage
from .postgres.storage import PgStorage
from .sqlite.storage import SqliteStorage

__all__ = ["is_url", "open_storage"]


def is_url(db: str) -> bool:
    """``--db`` names a PostgreSQL server (a ``postgresql://`` or ``postgres://`` URL), not a
    file."""
    return db.startswith(("postgresql://", "postgres://"))


def open_storage(
    db: str, *, exclusive: bool = False, write_behind: bool = False, read_only: bool = False
) -> Storage:
    """The storage ``--db`` names: PostgreSQL for a URL, else the SQLite file at that path.
    `StorageError` (one line) when it cannot be opened. ``read_only``: a reader beside a server
    that may be running on it (SQLite opens the file read-only, never taking its write lock;
    PostgreSQL readers never stand in a server's way)."""
    if is_url(db):
        return PgStorage(db, exclusive=exclusive, write_behind=write_behind)
    return SqliteStorage(db, exclusive=exclusive, write_behind=write_behind, read_only=read_only)
