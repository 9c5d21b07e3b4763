"""What answering a session's request may ask of the server beside the request itself: a database
read off the event loop (`Read`), a question to the cluster (`Ask`), and a costly request's charge
on its connection's rate limit. The lobby, the history, logging in, routing and the admins'
requests each ask it of the hub through these Protocols; the hub subclasses `Reader` and `Asker`,
whose methods queue the work for its adapter (`server.hub.deferred` hands the answers back)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, NamedTuple, Protocol

from sushigo.server.storage.contract import Storage
from sushigo.server.tables.index import Tables

from .session import Conn, Session


class Read(NamedTuple):
    """A database read a request asked for (`Reader.read`)."""

    job: Callable[[], Any]
    """Runs in a worker thread: the read itself."""
    then: Callable[[Any, float], None]
    """Runs on the event loop with the job's value and the time."""
    session: Session | None
    """Who asked: told when the database cannot be read (None: a connection not logged in yet,
    `conn`)."""
    ref: int
    """The request's ref."""
    what: str
    """What was read, for that answer ("the leaderboard")."""
    conn: Conn | None = None
    """Who asked, before a session is theirs (a login): a `TableError` from `then` answers it."""


class Ask(NamedTuple):
    """A question to the cluster a request asked (`Asker.ask`)."""

    job: Callable[[], Awaitable[Any]]
    """Awaited on the event loop (the cluster's own connection)."""
    then: Callable[[Any, float], None]
    """Runs with the job's value and the time; a `TableError` it raises is the answer."""
    conn: Conn | None
    """Who asked: told when the question cannot be answered (None: the server itself asked,
    `server.routing.spread`)."""
    ref: int | None
    what: str


class ServerState(Protocol):
    """What the server holds that most of its parts reach (through the hub): its connections,
    its sessions, its tables and its database."""

    conns: dict[int, Conn]
    sessions: dict[bytes, Session]
    """By session id."""
    tables: Tables
    storage: Storage


class Reader(Protocol):
    """Reads the database for a request without the event loop waiting."""

    reads: list[Read]
    """Reads of the database that requests asked for, for the adapter to run off the event
    loop."""

    def read(
        self,
        job: Callable[[], Any],
        then: Callable[[Any, float], None],
        *,
        session: Session,
        ref: int,
        what: str,
    ) -> None:
        """Read the database for `session`'s request `ref` without waiting for it here: the
        adapter runs `job` away from the event loop (a worker thread) and calls
        ``then(result, now)`` back on it with `job`'s value. When the job raises `StorageError`
        the session is told that `what` cannot be read now (INTERNAL_ERROR) instead. A server
        that serves never waits on a database read (PostgreSQL may be slow, or away)."""
        self.reads.append(Read(job, then, session, ref, what))

    def read_for(
        self,
        conn: Conn,
        job: Callable[[], Any],
        then: Callable[[Any, float], None],
        *,
        ref: int,
        what: str,
    ) -> None:
        """`read` for a connection that has no session yet (a login): a `TableError` that
        ``then`` raises answers the request (a fatal one closes the connection)."""
        self.reads.append(Read(job, then, None, ref, what, conn))


class Asker(Protocol):
    """Asks the cluster for a request without the event loop waiting."""

    asks: list[Ask]
    """Questions to the cluster that requests asked, for the adapter to await."""

    def ask(
        self,
        job: Callable[[], Awaitable[Any]],
        then: Callable[[Any, float], None],
        *,
        conn: Conn | None,
        ref: int | None,
        what: str,
    ) -> None:
        """Ask the cluster for `conn`'s request `ref` without waiting here: the adapter awaits
        `job` on the event loop and calls ``then(result, now)`` back (`Hub.ask_done`). No
        `conn`: the server asks for itself."""
        self.asks.append(Ask(job, then, conn, ref, what))


class Charger(Protocol):
    """Charges a costly request on its connection's rate limit (`server.hub.core.Hub.charge`)."""

    def charge(self, conn: Conn, tokens: float, now: float, ref: int | None) -> bool:
        """Spend `tokens` more of the connection's rate limit; False (RATE_LIMITED said, a
        strike counted) when it has not that many."""
