"""The PostgreSQL backend's schema, its numbered migrations, and one-line reasons for its errors.

The schema version lives in the one-row table ``sushigo_schema``; `MIGRATIONS` lists, in order,
the version each step brings a database to and its statements. All pending steps run in one
transaction at open, under an advisory lock (two servers opening a new database at once cannot
both migrate it), and a database from a newer version is refused rather than guessed at. A
database that has tables but no ``sushigo_schema`` is some other program's, and is refused
untouched.

The numbers are the SQLite backend's (`sqlite_schema.SCHEMA_VERSION`): a version holds the same
things on both, so the next step of the contract is one number on both. PostgreSQL starts at 4,
the first version it has: one step makes the whole schema. The layout is PostgreSQL's own where
that serves it better: a table's turns are keyed by ``(table_id, n)`` (an index is cheap here,
and a finished game's turns go with one indexed delete, so no generations are needed), every
rating is in one table keyed by game kind, and ids sort by bytes (``COLLATE "C"``) as SQLite's
do, so listings come in the same order on both.
"""

from __future__ import annotations

import asyncio
import socket
from typing import Final
from urllib.parse import urlsplit, urlunsplit

import asyncpg

SCHEMA_VERSION: Final = 4
"""The schema version this code writes (the same number as the SQLite backend's)."""

LOCK_KEY: Final = 0x5355_5348_0000_0001
"""The session advisory lock an exclusive server holds for as long as it is connected."""
MIGRATE_KEY: Final = 0x5355_5348_0000_0002
"""The transaction advisory lock taken while checking and migrating the schema."""

_ID: Final = 'text COLLATE "C"'

_V4: Final = (
    """CREATE TABLE sushigo_schema (
        one boolean PRIMARY KEY DEFAULT true CHECK (one),
        version integer NOT NULL
    )""",
    f"""CREATE TABLE tables_in_progress (
        table_id {_ID} PRIMARY KEY,
        state bytea NOT NULL
    )""",
    f"""CREATE TABLE table_turns (
        table_id {_ID} NOT NULL,
        n integer NOT NULL,
        value bytea NOT NULL,
        PRIMARY KEY (table_id, n)
    )""",
    f"""CREATE TABLE records (
        game_id {_ID} PRIMARY KEY,
        table_id {_ID} NOT NULL,
        kind text NOT NULL,
        finished_ms bigint NOT NULL,
        record bytea NOT NULL,
        signature bytea NOT NULL
    )""",
    "CREATE INDEX records_by_time ON records (finished_ms DESC, game_id)",
    # No foreign key to identities: a finished game is never refused because of a player row.
    f"""CREATE TABLE results (
        game_id {_ID} NOT NULL REFERENCES records (game_id) ON DELETE CASCADE,
        seat integer NOT NULL,
        player_id {_ID},
        name text NOT NULL,
        score integer NOT NULL,
        place integer NOT NULL,
        PRIMARY KEY (game_id, seat)
    )""",
    "CREATE INDEX results_by_player ON results (player_id) WHERE player_id IS NOT NULL",
    f"""CREATE TABLE identities (
        player_id {_ID} PRIMARY KEY,
        public_key bytea NOT NULL UNIQUE,
        name text NOT NULL,
        first_seen_ms bigint NOT NULL,
        last_seen_ms bigint NOT NULL
    )""",
    # Ratings reference identities: rating a guest is a bug worth failing loudly on.
    f"""CREATE TABLE ratings (
        kind text NOT NULL,
        player_id {_ID} NOT NULL REFERENCES identities (player_id),
        mu double precision NOT NULL,
        sigma double precision NOT NULL,
        PRIMARY KEY (kind, player_id)
    )""",
    # One live token per seat (UNIQUE): a seat handed on cannot be resumed by its old owner.
    f"""CREATE TABLE tokens (
        token_hash bytea PRIMARY KEY,
        table_id {_ID} NOT NULL,
        seat integer NOT NULL,
        expires_ms bigint NOT NULL,
        UNIQUE (table_id, seat)
    )""",
)

MIGRATIONS: list[tuple[int, tuple[str, ...]]] = [(4, _V4)]
"""``(version, statements)``: the statements bring a database below `version` to it. Append,
never edit."""


def redact(url: str) -> str:
    """The URL without its password, for messages and logs."""
    try:
        parts = urlsplit(url)
        if parts.password is None:
            return url
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        where = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    except ValueError:
        return url.rsplit("@", maxsplit=1)[-1]
    return urlunsplit((parts.scheme, where, parts.path, parts.query, parts.fragment))


TRANSIENT: Final = (
    OSError,
    asyncio.TimeoutError,
    asyncpg.InterfaceError,
    asyncpg.PostgresConnectionError,
    asyncpg.exceptions.OperatorInterventionError,
    asyncpg.exceptions.InsufficientResourcesError,
)
"""Errors that mean the server (or the way to it) is away or overloaded, not that the request
was wrong: the connection is dropped, and the work tried again on a new one."""


def reason(exc: BaseException) -> str:
    """One line saying what went wrong, for a person."""
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (is PostgreSQL running there, and listening on that port?)"
    if isinstance(exc, socket.gaierror):
        return f"unknown host ({exc.strerror})"
    if isinstance(exc, asyncio.TimeoutError | TimeoutError):
        return "no answer in time (is the host reachable?)"
    if isinstance(
        exc, asyncpg.InvalidPasswordError | asyncpg.InvalidAuthorizationSpecificationError
    ):
        return f"{exc} (check the user and password in the URL)"
    if isinstance(exc, asyncpg.InvalidCatalogNameError):
        return f"{exc} (create it first: createdb NAME)"
    return " ".join(str(exc).split()) or type(exc).__name__
