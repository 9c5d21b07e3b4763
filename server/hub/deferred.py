"""What a request waits for without holding the server up: a read of the database (`Read`, run
in a worker thread) or a question to the cluster (`Ask`, awaited on the event loop).

The hub queues them (`Hub.read`, `Hub.ask`: `server.sessions.requests`); the adapter runs them and hands each answer back
(`Hub.read_done`, `Hub.ask_done`, which land here): the request is answered then, or told the
database cannot be read now.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from sushigo.protocol import Error, ErrorCode, ProtocolError, RemoteProtocolError
from sushigo.protocol.errors import FATAL_CODES
from sushigo.server.errors import TableError
from sushigo.server.sessions.requests import Ask, Read
from sushigo.server.sessions.session import Conn
from sushigo.server.storage.contract import StorageError
from sushigo.server.tables.table import Table
from sushigo.server.tournaments.desk import TournamentDesk

log = logging.getLogger("sushigo.server")


class Host(Protocol):
    """What an answer needs of the server (the hub)."""

    desk: TournamentDesk
    now: float

    def reply(self, conn: Conn, error: Error) -> None:
        """Answer a request with an error (counted)."""

    def close(self, conn: Conn, exc: ProtocolError) -> None:
        """Say why once, then close the connection."""

    def watch(self, table: Table) -> None:
        """Time the table's deadline."""


def _cannot(what: str, ref: int | None) -> Error:
    return Error(
        ref=ref,
        code=ErrorCode.INTERNAL_ERROR,
        message=f"{what} cannot be read now: try again later",
    )


def ask_done(hub: Host, ask: Ask, result: Any, now: float) -> None:
    """An answer to `ask` (or the `StorageError` its job raised)."""
    hub.now = now
    conn = ask.conn
    if conn is None:
        _asked_alone(hub, ask, result, now)
        return
    if conn.closed:
        return
    _answer(hub, conn, ask.ref, ask.what, ask.then, result, now)


def _answer(
    hub: Host,
    conn: Conn,
    ref: int | None,
    what: str,
    then: Callable[[Any, float], None],
    result: Any,
    now: float,
) -> None:
    """Answer `conn`'s request `ref` with `result` (`then`), or with why it could not be."""
    if isinstance(result, StorageError):
        log.warning("%s cannot be read: %s", what, result)
        hub.reply(conn, _cannot(what, ref))
        return
    try:
        then(result, now)
    except TableError as exc:
        if exc.code in FATAL_CODES:
            hub.close(conn, RemoteProtocolError(exc.code, exc.message, ref=ref))
            return
        hub.reply(conn, Error(ref=ref, code=exc.code, message=exc.message[:500]))
    # As after any request (`Hub.data`): a table it moved is timed, a tournament's news sent.
    session = conn.session
    if session is not None and session.table is not None and session.table.deadline:
        hub.watch(session.table)
    if hub.desk.pending:
        hub.desk.flush(now)


def _asked_alone(hub: Host, ask: Ask, result: Any, now: float) -> None:
    """An answer to a question the server asked itself: nobody to tell when it fails."""
    if isinstance(result, StorageError):
        log.warning("%s cannot be read: %s", ask.what, result)
        return
    try:
        ask.then(result, now)
    except TableError as exc:
        log.warning("%s: %s", ask.what, exc.message)
    if hub.desk.pending:
        hub.desk.flush(now)


def read_done(hub: Host, read: Read, result: Any, now: float) -> None:
    """A read's result (or the `StorageError` its job raised)."""
    hub.now = now
    conn = read.conn
    if conn is not None:
        if not conn.closed:
            _answer(hub, conn, read.ref, read.what, read.then, result, now)
        return
    assert read.session is not None
    if isinstance(result, StorageError):
        log.warning("%s cannot be read: %s", read.what, result)
        read.session.send(_cannot(read.what, read.ref))
        return
    try:
        read.then(result, now)
    except TableError as exc:  # the request failed after all: the reply says why
        log.info("a read's reply failed: %s", exc)
