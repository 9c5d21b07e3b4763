"""The server's core, sans-IO: connections, sessions, the lobby and every table.

The asyncio adapter (`server.app`) only feeds it: `open` for a new connection, `data` for bytes,
`lost` when a connection ends, `on_timer` when `next_deadline` passes. Every input takes `now`
(monotonic seconds), so tests drive the whole server, timers included, without sockets or sleeps.

Checking happens at the edge: the protocol's connection state machine validates every frame and
its phase; the table checks the game. Anything wrong gets an ERROR reply naming it, and only the
protocol's fatal codes close a connection. Nothing a client sends reaches another table.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import logging
import secrets
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, NamedTuple

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.protocol import (
    Act,
    Chat,
    ChatMessage,
    Commit,
    ConnectionClosed,
    CreateTable,
    Error,
    ErrorCode,
    FairRecord,
    Hello,
    JoinTable,
    ListTables,
    LoginGuest,
    LoginKey,
    LoginTicket,
    Message,
    Phase,
    Ping,
    Pong,
    ProtocolError,
    QuickMatch,
    Redirect,
    RemoteProtocolError,
    Restarting,
    Resume,
    Reveal,
    Seed,
    ServerConnection,
    ServerPing,
    ServerPong,
    SignedRecord,
    Spectate,
    TableSettings,
    TableUpdate,
    Version,
    error_for,
    handshake_reply,
    new_challenge,
    sign_record,
)
from sushigo.protocol.errors import FATAL_CODES

from .admin import Admin
from .config import HubConfig
from .desk import TournamentDesk
from .errors import TableError
from .history import History
from .limits import Limits
from .listing import list_across
from .lobby import Lobby
from .moderation import Moderation, sanction_message
from .names import Names
from .persist import StateError, changes, forget, load, saved
from .placement import create_elsewhere, quick_elsewhere
from .redirect import (
    CutOff,
    Directory,
    login_ticket,
    resume_elsewhere,
    send_off,
    table_elsewhere,
    take_away,
)
from .results import game_results, rate
from .resume import resume_session
from .session import AWAY_WATCHER_BYTES, Bucket, Conn, Session, Transport, broadcast
from .stats import Stats
from .storage import Storage, StorageError
from .table import Table
from .tournament_cluster import tournament_elsewhere

log = logging.getLogger("sushigo.server")

RESTART_VERSION = Version(2, 4)
"""The first protocol version with RESTARTING (`Hub.shutdown`)."""
RESTART_RETRY_MS = 1000
"""How long a client told RESTARTING waits before it connects again: a restart under systemd
takes a second or two, and trying sooner only costs the refused attempts."""


class Read(NamedTuple):
    """A database read a request asked for (`Hub.read`)."""

    job: Callable[[], Any]
    """Runs in a worker thread: the read itself."""
    then: Callable[[Any, float], None]
    """Runs on the event loop with the job's value and the time."""
    session: Session
    """Who asked: told when the database cannot be read."""
    ref: int
    """The request's ref."""
    what: str
    """What was read, for that answer ("the leaderboard")."""


class Ask(NamedTuple):
    """A question to the cluster a request asked (`Hub.ask`)."""

    job: Callable[[], Awaitable[Any]]
    """Awaited on the event loop (the cluster's own connection)."""
    then: Callable[[Any, float], None]
    """Runs with the job's value and the time; a `TableError` it raises is the answer."""
    conn: Conn
    """Who asked: told when the question cannot be answered."""
    ref: int | None
    what: str


class Hub:
    """Every connection, session and table of one server process."""

    def __init__(
        self,
        *,
        storage: Storage,
        key: Ed25519PrivateKey,
        wall_ms: Callable[[], int],
        config: HubConfig | None = None,
        admins: Iterable[bytes] = (),
    ) -> None:
        self.storage = storage
        self.key = key
        self.server_key = key.public_key().public_bytes_raw()
        self.config = config or HubConfig()
        self.wall_ms = wall_ms
        """The wall clock, in milliseconds (the adapter's; tests pass their own)."""
        self.conns: dict[int, Conn] = {}
        self.stats = Stats()
        """What happened since the start, counted for the operator (`server.metrics`)."""
        self.draining = False
        """The server is going away (an admin drains it: `server.admin`): it takes no new table
        or game, and reports itself not ready."""
        self.moderation = Moderation(storage.load_sanctions(), wall_ms)
        """The bans and mutes, read once here and kept up to date by the admins."""
        self.limits = Limits(self.config)
        """Connections per address, players' sessions, sessions kept away (`server.limits`)."""
        self.names = Names()
        """The names the players hold (`server.names`)."""
        self.sessions: dict[bytes, Session] = {}
        """By the hash of their current resume token."""
        self.tables: dict[str, Table] = {}
        self._ids = itertools.count(1)
        self._timers: list[tuple[float, int, str, Any]] = []
        self._timer_seq = itertools.count()
        self._watched: dict[str, float] = {}
        """The deadline last scheduled per table, to push each change once."""
        self.now = 0.0
        self.desk = TournamentDesk(self)
        self.lobby = Lobby(self)
        self.history = History(self)
        """Finished games for the players who played them (MY_GAMES, GET_RECORD)."""
        self.admin = Admin(self, self.lobby, admins)
        """The admin requests (`admins`: the raw public keys of the admins)."""
        self._routes = {**self.lobby.handlers, **self.history.handlers, **self.admin.handlers}
        """The handler of each request the lobby, the history and the admins answer, by message
        class (see `data`)."""
        self._routes[Chat] = self._chat
        self._routes[JoinTable] = self._join
        self._routes[Spectate] = self._spectate
        self._routes[QuickMatch] = self._quick_match
        self._routes[CreateTable] = self._create
        self._routes[ListTables] = self._list_tables
        self.cluster: Directory | None = None
        """The cluster this server is a node of (`server.cluster`; None: a lone server)."""
        self.nodes: tuple[str, ...] = ()
        """The cluster's live nodes' addresses, this one's first (kept by the adapter)."""
        self.said: list[ChatMessage] = []
        """Lobby chat said here since the adapter last looked: a cluster's node passes it on."""
        self.opened: list[str] = []
        """Tables opened since the adapter last looked: a cluster's node leases them in its next commit."""
        self.asks: list[Ask] = []
        """Questions to the cluster that requests asked, for the adapter to await (`ask`)."""
        self.reads: list[Read] = []
        """Reads of the database that requests asked for, for the adapter to run off the event
        loop (`read`)."""

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

    def ask(
        self,
        job: Callable[[], Awaitable[Any]],
        then: Callable[[Any, float], None],
        *,
        conn: Conn,
        ref: int | None,
        what: str,
    ) -> None:
        """Ask the cluster for `conn`'s request `ref` without waiting here: the adapter awaits
        `job` on the event loop and calls ``then(result, now)`` back (`ask_done`)."""
        self.asks.append(Ask(job, then, conn, ref, what))

    def ask_done(self, ask: Ask, result: Any, now: float) -> None:
        """The adapter's call back with an answer (or the `StorageError` its job raised)."""
        self.now = now
        conn = ask.conn
        if conn.closed:
            return
        if isinstance(result, StorageError):
            log.warning("%s cannot be read: %s", ask.what, result)
            self._reply(
                conn,
                Error(
                    ref=ask.ref,
                    code=ErrorCode.INTERNAL_ERROR,
                    message=f"{ask.what} cannot be read now: try again later",
                ),
            )
            return
        try:
            ask.then(result, now)
        except TableError as exc:
            if exc.code in FATAL_CODES:
                self._fatal(conn, RemoteProtocolError(exc.code, exc.message, ref=ask.ref))
                return
            self._reply(conn, Error(ref=ask.ref, code=exc.code, message=exc.message[:500]))
        # As after any request (`_event`): a table it moved is timed, a tournament's news sent.
        session = conn.session
        if session is not None and session.table is not None and session.table.deadline:
            self._watch(session.table)
        if self.desk.pending:
            self.desk.flush(now)

    def read_done(self, read: Read, result: Any, now: float) -> None:
        """The adapter's call back with a read's result (or the `StorageError` its job raised)."""
        self.now = now
        if isinstance(result, StorageError):
            log.warning("%s cannot be read: %s", read.what, result)
            read.session.send(
                Error(
                    ref=read.ref,
                    code=ErrorCode.INTERNAL_ERROR,
                    message=f"{read.what} cannot be read now: try again later",
                )
            )
            return
        try:
            read.then(result, now)
        except TableError as exc:  # the request failed after all: the reply says why
            log.info("a read's reply failed: %s", exc)

    # -- the adapter's entry points ---------------------------------------------------------

    def restore(self, now: float, tables: list[tuple[str, bytes]] | None = None) -> int:
        """Load the tables saved by an earlier run (after a crash or a clean stop); `tables`:
        these saved states only (a cluster node's share), instead of every one stored."""
        self.now = now
        count = 0
        for table_id, blob in self.storage.load_tables() if tables is None else tables:
            if table_id in self.tables:  # taken up already (a node's look and a resume at once)
                continue
            try:
                table = load(blob, self, now)
            except (StateError, TableError) as exc:
                log.error("table %s could not be restored: %s", table_id, exc)
                continue
            self.tables[table_id] = table
            self.lobby.restored(table)
            self._watch(table)
            # Its players had no chance to come back yet: a table they left closes only after
            # the resume window (then as any table nobody is connected to).
            table.abandon_at = now + self.config.resume_seconds
            self._at(table.abandon_at, "abandon", table_id)
            count += 1
        return count

    def open(self, transport: Transport, address: str, port: int, now: float) -> Conn | None:
        """A new connection; None when a cap refuses it (the adapter closes it)."""
        self.now = now
        cfg = self.config
        banned = self.moderation.address_ban(address)
        if banned is not None:
            self.stats.count(self.stats.rejected, "banned")
            why = sanction_message(banned, self.wall_ms())
            self.limits.refuse(transport, f"{address}:{port}", why, now, ErrorCode.BANNED)
            return None
        refusal = self.limits.admit(address, len(self.conns), now)
        if refusal is not None:
            reason, why = refusal
            self.stats.count(self.stats.rejected, reason)
            self.limits.refuse(transport, f"{address}:{port}", why, now)
            return None
        self.stats.connections_opened += 1
        conn = Conn(
            id=next(self._ids),
            transport=transport,
            address=address,
            peer=f"{address}:{port}",
            proto=ServerConnection(),
            challenge=new_challenge(),
            opened=now,
            last_received=now,
            messages=Bucket(cfg.messages_per_second, cfg.message_burst, now),
            volume=Bucket(cfg.bytes_per_second, cfg.bytes_per_second, now),
            chat=Bucket(cfg.chat_per_second, cfg.chat_burst, now),
        )
        self.conns[conn.id] = conn
        self.limits.opened(conn)
        self._at(now + cfg.handshake_seconds, "handshake", conn.id)
        self._at(now + cfg.heartbeat_seconds, "heartbeat", conn.id)
        log.debug("connect %s", conn.peer)
        return conn

    def data(self, conn: Conn, data: bytes, now: float) -> None:
        """Bytes from a connection."""
        self.now = now
        if conn.closed:
            return
        conn.last_received = now
        if not conn.volume.take(len(data), now) and not self._strike(conn, now):
            return
        proto = conn.proto
        try:
            # One whole frame, the usual input, is read in one step; anything else is buffered
            # and drained below.
            event = proto.receive_frame(data)
        except RemoteProtocolError as exc:
            self._refused(conn, exc, now)
            return
        if event is not None:
            self._event(conn, event, now)
            return
        try:
            proto.receive_data(data)
        except ProtocolError as exc:
            self._fatal(conn, exc)
            return
        self._frame_clock(conn, self._drain(conn, now), now)

    def _frame_clock(self, conn: Conn, whole: bool, now: float) -> None:
        """A frame begun and not finished (`whole`: another one was, just now): its last byte is
        due `frame_seconds` after its first. A client trickling a frame in would otherwise hold
        its connection for ever, a byte now and then keeping the dead-peer timeout away."""
        if conn.closed:
            return
        if not conn.proto.unread:
            conn.frame_since = None
        elif whole or conn.frame_since is None:
            conn.frame_since = now
            if not conn.frame_timer:
                conn.frame_timer = True
                self._at(now + self.config.frame_seconds, "frame", conn.id)

    def _drain(self, conn: Conn, now: float) -> bool:
        """Handle every whole frame buffered; True if there was one."""
        proto = conn.proto
        unread = proto.unread
        whole = False
        while not conn.closed:
            try:
                got = proto.next_event()
            except RemoteProtocolError as exc:
                if self._refused(conn, exc, now):
                    return whole
                whole = True
                continue
            if got is None:
                return whole
            whole = True
            if isinstance(got, ConnectionClosed):
                self.lost(conn, now)
                return whole
            self._event(conn, got, now)
            if not unread:  # no more frames: the next event would be None (the common case)
                return whole
        return whole

    def _refused(self, conn: Conn, exc: RemoteProtocolError, now: float) -> bool:
        """A frame the protocol refused: close for a fatal error (True), else answer it."""
        self.stats.frames_in += 1
        if exc.fatal:
            self._fatal(conn, exc)
            return True
        if self._spend(conn, now, exc.ref):
            self._reply(conn, error_for(exc))
        return False

    def _event(self, conn: Conn, event: Message, now: float) -> None:
        """Handle one message the protocol let through."""
        # A game move the phase check let through comes once per turn at most (a Sushi Roll
        # mover's few, bounded by its tokens): it costs nothing, so fast bots are never slowed.
        # Everything else spends from the bucket.
        self.stats.frames_in += 1
        kind = type(event)
        free = kind in _FREE
        if not free and not self._spend(conn, now, _ref(event)):
            return
        session = conn.session
        try:
            # A lobby or table request (game moves included, the common case) goes straight to
            # its handler; the handshake, heartbeats, logins and the rest through `_handle`.
            if session is not None and (route := self._routes.get(kind)) is not None:
                route(conn, session, event, now)
            else:
                self._handle(conn, event, now)
        except TableError as exc:
            # A move the table refuses costs after all, so a mover cannot spam illegal ones.
            if free and not self._spend(conn, now, _ref(event)):
                return
            if exc.code in FATAL_CODES:  # a banned identity's login: said, then closed
                self._fatal(conn, RemoteProtocolError(exc.code, exc.message, ref=_ref(event)))
                return
            self._reply(conn, Error(ref=_ref(event), code=exc.code, message=exc.message[:500]))
        except Exception:  # a server bug: log it, tell the client, keep everyone else going
            log.exception("internal error handling %s from %s", event.TYPE, conn.peer)
            self._reply(
                conn,
                Error(ref=_ref(event), code=ErrorCode.INTERNAL_ERROR, message="internal error"),
            )
        session = conn.session
        if session is not None:
            table = session.table
            if table is not None and table.deadline is not None:
                self._watch(table)
        if self.desk.pending:
            self.desk.flush(now)

    def lost(self, conn: Conn, now: float) -> None:
        """The connection ended (closed by the peer, by us, or broken)."""
        self.now = now
        if conn.id not in self.conns:
            return
        conn.closed = True
        del self.conns[conn.id]
        self.limits.closed(conn)
        conn.proto.unread.clear()  # a frame cut short: the session keeps the protocol state
        session = conn.session
        if session is not None and session.transport is conn.transport:
            session.transport = None
            session.detached_at = now
            table = session.table
            # What waits for a resume is bounded by what it is for: a seat's game is replayed
            # whole; a spectator's is kept for a short absence; at no table a resume gets the
            # lobby's snapshot, which misses nothing (so a flood of logins that ask for long
            # replies and leave holds no more than their sessions).
            if table is None:
                session.trim_log(0)
            elif session.seat is None:
                session.trim_log(AWAY_WATCHER_BYTES)
            self.names.update(session)
            self._at(now + self.config.resume_seconds, "expire", session.token_hash)
            crowded = self.limits.disconnected(session)
            if table is not None:
                self.table_changed(table)
                self.lobby.check_abandoned(table, now)
            self.forget(crowded, now)
            if table is None and session.player_id in self.admin.admins:
                self._expire(session, now)  # sushigo-admin never resumes: no session left over
        log.debug("disconnect %s", conn.peer)

    def next_deadline(self) -> float | None:
        """When `on_timer` must next be called."""
        return self._timers[0][0] if self._timers else None

    def on_timer(self, now: float) -> None:
        """Fire every timer that is due."""
        self.now = now
        while self._timers and self._timers[0][0] <= now:
            when, _, kind, target = heapq.heappop(self._timers)
            if kind == "table":
                table: Table = target
                # Only the table's scheduled timer counts (see `_watch`); older ones are spent.
                if self._watched.get(table.table_id) == when and (
                    self.tables.get(table.table_id) is table
                ):
                    del self._watched[table.table_id]
                    table.on_timer(now)  # early (the deadline moved on): does nothing
                    self._watch(table)
            # The other timers name their target by its key (a connection's id, a session's
            # token hash, a table's id), not the object: a connection closed, a session ended
            # or a table closed before its timer fires is freed at once, not when it fires (a
            # flood of short connections would otherwise keep thousands of them for minutes).
            elif kind in _CONN_TIMERS:
                conn = self.conns.get(target)
                if conn is not None:
                    if kind == "heartbeat":
                        self._heartbeat(conn, now)
                    elif kind == "frame":
                        self._frame_deadline(conn, now)
                    else:
                        self._handshake_deadline(conn, now)
            elif kind == "abandon":
                abandoned = self.tables.get(target)
                if abandoned is not None:
                    self.lobby.abandoned(abandoned, now)
            elif kind == "expire":
                session = self.sessions.get(target)
                if session is not None:
                    self._expire(session, now)
        if self.desk.pending:
            self.desk.flush(now)

    def release(self, moved: dict[str, str | None]) -> None:
        """Tables another node holds now (`moved`: table id -> its node's address, if known):
        this node was away past its lease (paused, cut off) and they were taken over. They are
        dropped here, unsaved (the other node's state is the table's now), and their people are
        sent there: an unasked REDIRECT, then SHUTTING_DOWN; they resume on that node."""
        for cut in self.cut_off(moved):
            send_off(self, cut, moved[cut.table_id])
            log.warning(
                "table %s: another node holds it now; its players are sent there", cut.table_id
            )

    def cut_off(self, table_ids: Iterable[str]) -> list[CutOff]:
        """Drop these tables here, unsaved, their people at no table (`redirect.take_away`),
        to be sent on (`redirect.send_off`)."""
        cut = []
        for table_id in table_ids:
            table = self.tables.pop(table_id, None)
            if table is not None:
                self._watched.pop(table_id, None)
                cut.append(take_away(self, table))
        return cut

    def save_all(self) -> None:
        """Save every table in play (a stopping server, before its tables go elsewhere)."""
        for table in self.tables.values():
            if table.playing:
                self.save_table(table)

    def shutdown(
        self, retry_ms: int = RESTART_RETRY_MS, moved: dict[str, str] | None = None
    ) -> None:
        """Save every table and tell every connection the server is going away: RESTARTING
        (protocol 2.4: come back after `retry_ms` and resume), or, for the people of a table
        handed to another node of the cluster (`moved`: table id -> that node's address),
        REDIRECT there; then SHUTTING_DOWN, which is all an older client gets. The adapter sends
        them only once the saves are durable."""
        self.save_all()
        moved = moved or {}
        restarting = Restarting(message="the server is restarting", retry_ms=retry_ms)
        for conn in list(self.conns.values()):
            proto = conn.proto
            if proto.phase is Phase.CLOSED:
                continue
            version = proto.version
            if (
                proto.phase not in _NOT_LOGGED_IN
                and version is not None
                and version >= RESTART_VERSION
            ):
                table = conn.session.table if conn.session is not None else None
                address = moved.get(table.table_id) if table is not None else None
                if table is not None and address is not None:
                    self._send(conn, Redirect(address=address, table_id=table.table_id))
                else:
                    self._send(conn, restarting)
            self._fatal(
                conn, RemoteProtocolError(ErrorCode.SHUTTING_DOWN, "the server is shutting down")
            )

    # -- timers ------------------------------------------------------------------------------

    def _at(self, when: float, kind: str, target: object) -> None:
        heapq.heappush(self._timers, (when, next(self._timer_seq), kind, target))

    def at(self, when: float, kind: str, target: object) -> None:
        """A timer for the lobby ("abandon", with a table's id: a table nobody is connected
        to)."""
        self._at(when, kind, target)

    def _watch(self, table: Table) -> None:
        """Schedule the table's deadline, unless its timer is due by then anyway.

        Deadlines mostly move later (each turn's phase sets its own), so a table keeps one timer
        until it fires, and only then is the current deadline scheduled: a few timers per table
        per turn time, instead of two heap entries per turn that outlive it (in the heap, which
        the garbage collector walks, for a whole turn time)."""
        deadline = table.deadline
        if deadline is None:
            return
        scheduled = self._watched.get(table.table_id)
        if scheduled is None or deadline < scheduled:
            self._watched[table.table_id] = deadline
            self._at(deadline, "table", table)

    def _handshake_deadline(self, conn: Conn, now: float) -> None:
        if not conn.closed and conn.session is None:
            self._fatal(
                conn,
                RemoteProtocolError(ErrorCode.TIMEOUT, "no login before the handshake deadline"),
            )

    def _frame_deadline(self, conn: Conn, now: float) -> None:
        conn.frame_timer = False
        since = conn.frame_since
        if conn.closed or since is None:
            return
        due = since + self.config.frame_seconds
        if now < due:  # a later frame began since the timer was set
            conn.frame_timer = True
            self._at(due, "frame", conn.id)
            return
        log.info("dropping %s: a frame took over %.0f s to arrive", conn.peer, now - since)
        self._fatal(
            conn,
            RemoteProtocolError(
                ErrorCode.TIMEOUT,
                f"a frame's bytes must arrive within {self.config.frame_seconds:g} s of its first",
            ),
        )

    def _heartbeat(self, conn: Conn, now: float) -> None:
        if conn.closed:
            return
        cfg = self.config
        quiet = now - conn.last_received
        if quiet >= cfg.dead_after_seconds:
            log.info("dropping %s: nothing received for %.0f s", conn.peer, quiet)
            self._fatal(conn, RemoteProtocolError(ErrorCode.TIMEOUT, "no reply to heartbeats"))
            return
        if quiet >= cfg.heartbeat_seconds and conn.proto.phase is not Phase.HANDSHAKE:
            self._send(conn, ServerPing(nonce=secrets.randbits(32)))
        self._at(now + cfg.heartbeat_seconds, "heartbeat", conn.id)

    def end_session(self, session: Session, exc: RemoteProtocolError, now: float) -> None:
        """End a session now (an admin's kick or ban): its connection, if it has one, is told
        why and closed, and the session goes as if its resume window had passed (its seat,
        during a game, to a bot; its token with it)."""
        for conn in [c for c in self.conns.values() if c.session is session]:
            self._fatal(conn, exc)
        self._expire(session, now)

    def forget(self, sessions: list[Session], now: float) -> None:
        """End sessions kept away before their time, to stay within the caps."""
        for session in sessions:
            log.info("too many sessions away: forgetting %s's", session.player_id)
            self._expire(session, now)

    def _expire(self, session: Session, now: float) -> None:
        if session.attached or self.sessions.get(session.token_hash) is not session:
            return
        del self.sessions[session.token_hash]
        self.limits.gone(session)
        self.names.update(session, ended=True)
        self.desk.gone(session)
        self.history.gone(session.player_id)
        self.storage.delete_token(session.token_hash)
        table = session.table
        if table is not None:
            log.info("session of %s expired; leaving table %s", session.player_id, table.table_id)
            self._leave(session, table)

    # -- sending -----------------------------------------------------------------------------

    def _send(self, conn: Conn, message: Message) -> None:
        """Send on a connection (to its session, when it has one, so the message is logged)."""
        if conn.closed:
            return
        if conn.session is not None and conn.session.transport is conn.transport:
            conn.session.send(message)
            return
        try:
            conn.transport.write(conn.proto.send(message))
        except ProtocolError as exc:
            log.error("not sending %s to %s: %s", message.TYPE, conn.peer, exc)

    def _reply(self, conn: Conn, error: Error) -> None:
        self.stats.error(error.code)
        self._send(conn, error)

    @property
    def token_lifetime_ms(self) -> int:
        """How long a stored resume token stays valid (`HubConfig.token_lifetime_ms`)."""
        return self.config.token_lifetime_ms

    def close(self, conn: Conn, exc: ProtocolError) -> None:
        """Say why once (when the protocol still allows it), then close the connection."""
        self._fatal(conn, exc)

    def _fatal(self, conn: Conn, exc: ProtocolError) -> None:
        """Say why once (when the protocol still allows it), then close."""
        if conn.closed:
            return
        self.stats.error(exc.code)
        log.info("closing %s: %s %s", conn.peer, exc.code.name, exc.message)
        with contextlib.suppress(ProtocolError):  # the state machine may allow no more
            conn.transport.write(conn.proto.send(error_for(exc)))
        conn.transport.close()
        self.lost(conn, self.now)

    def charge(self, conn: Conn, tokens: float, now: float, ref: int | None) -> bool:
        """Spend `tokens` more of `conn`'s rate limit for a costly request (a page of tables);
        over it, answer RATE_LIMITED (and close after too many)."""
        if tokens <= 0 or conn.messages.take(tokens, now):
            return True
        if self._strike(conn, now):
            self._reply(
                conn, Error(ref=ref, code=ErrorCode.RATE_LIMITED, message="slow down: a long list")
            )
        return False

    def _spend(self, conn: Conn, now: float, ref: int | None) -> bool:
        """Charge one message; over the rate, answer RATE_LIMITED (and close after too many)."""
        if conn.messages.take(1, now):
            return True
        if self._strike(conn, now):
            self._reply(conn, Error(ref=ref, code=ErrorCode.RATE_LIMITED, message="slow down"))
        return False

    def _strike(self, conn: Conn, now: float) -> bool:
        """Count a rate-limit strike; False (and the connection closed) after too many."""
        conn.strikes.append(now)
        while conn.strikes and conn.strikes[0] < now - 60:
            conn.strikes.popleft()
        if len(conn.strikes) >= self.config.strikes_before_close:
            self._fatal(conn, RemoteProtocolError(ErrorCode.RATE_LIMITED, "too many messages"))
            return False
        return True

    # -- the TableHost interface ---------------------------------------------------------------

    def save_table(self, table: Table) -> None:
        """Persist a table after a step: the steps since its last save, appended, and its header
        if that changed; the whole state at a game's first save."""
        save = changes(table)
        if save.whole:
            self.storage.save_table(table.table_id, save.head, save.steps)
        elif save.steps or save.head_changed:
            head = save.head if save.head_changed else None
            self.storage.append_turns(table.table_id, save.first, save.steps, head)
        saved(table, save)

    def sign(self, record: FairRecord, steps: Sequence[bytes] | None = None) -> SignedRecord:
        """Sign a record with the server key (`steps`: its steps already packed, if known)."""
        return sign_record(record, self.key, steps)

    def game_finished(self, table: Table, signed: SignedRecord) -> None:
        """Store the record and results; update ratings of identified players."""
        game_id, results = game_results(table, signed)
        kind = table.settings.kind
        self.stats.count(self.stats.games_finished, kind)
        self.storage.finish_game(
            table.table_id,
            game_id,
            kind,
            signed.record,
            signed.signature,
            results,
            finished_ms=self.wall_ms(),
        )
        forget(table)  # the storage retired the table's state with the record
        self.history.finished(game_id, [(seat.player_id, seat.index) for seat in table.seats])
        rate(self.storage, results, kind, table.table_id)
        self.desk.game_over(table)
        log.info(
            "game over at table %s (%s): %s",
            table.table_id,
            kind,
            ", ".join(f"{r.name} {r.score}" for r in results),
        )
        self.seat_tokens(table)
        self.lobby.check_abandoned(table, self.now)

    def table_changed(self, table: Table) -> None:
        """Tell the table's people what it looks like now."""
        update = TableUpdate(table=table.info())
        broadcast(table.people(), update)
        self._watch(table)

    # -- requests ------------------------------------------------------------------------------

    def _handle(self, conn: Conn, msg: Message, now: float) -> None:
        session = conn.session
        if isinstance(msg, Hello):
            reply = handshake_reply(
                msg,
                server_key=self.server_key,
                challenge=conn.challenge,
                server_name=self.config.server_name,
                heartbeat_ms=int(self.config.heartbeat_seconds * 1000),
            )
            self._send(conn, reply)
            if isinstance(reply, Error):
                conn.transport.close()
                self.lost(conn, now)
            return
        if isinstance(msg, Ping):
            self._send(conn, ServerPong(ref=msg.ref, nonce=msg.nonce))
            return
        if isinstance(msg, Pong):
            return
        if isinstance(msg, LoginGuest | LoginKey):
            self.lobby.login(conn, msg, now)
            self.limits.identified(conn)
            return
        if isinstance(msg, Resume):
            self.limits.identified(conn)
            if not resume_elsewhere(
                self, conn, msg, lambda at: resume_session(self, conn, msg, at)
            ):
                resume_session(self, conn, msg, now)
            return
        if isinstance(msg, LoginTicket):
            login_ticket(self, conn, msg)
            self.limits.identified(conn)
            return
        assert session is not None  # the protocol allows nothing else before login
        if not (
            tournament_elsewhere(self, conn, session, msg) or self.desk.handle(session, msg, now)
        ):
            raise TableError(ErrorCode.UNKNOWN_MESSAGE_TYPE, f"{msg.TYPE!r} is not handled here")

    # -- what other parts of the server call ---------------------------------------------------

    def open_table(self, settings: TableSettings, host: str | None) -> Table:
        """A new table (TableError BAD_SETTINGS or UNSUPPORTED_GAME_KIND for bad settings)."""
        return self.lobby.open_table(settings, host)

    def lobby_said(self, message: ChatMessage) -> None:
        """Lobby chat said here: a cluster's node passes it on to the others (see `said`)."""
        if self.cluster is not None:
            self.said.append(message)

    def table_opened(self, table: Table) -> None:
        """A new table: a cluster's node leases it in the commit of its first writes (see `opened`)."""
        if self.cluster is not None:
            self.opened.append(table.table_id)

    def seat_tokens(self, table: Table) -> None:
        """Store the seated players' resume tokens (bound to the table and seat)."""
        self.lobby.seat_tokens(table)

    def session_back(self, session: Session) -> None:
        """A session that was away (or one made from a stored token after a restart) is
        connected again after a RESUME."""
        self.stats.resumes += 1
        self.names.update(session)
        self.limits.connected(session)
        table = session.table
        log.info("resume %s%s", session.player_id, f" at table {table.table_id}" if table else "")
        if table is not None:
            table.abandon_at = None

    def _join(self, conn: Conn, session: Session, msg: JoinTable, now: float) -> None:
        """JOIN_TABLE: here, or on the node that holds the table (`server.redirect`)."""
        if not table_elsewhere(self, conn, session, msg):
            self.lobby.handlers[JoinTable](conn, session, msg, now)

    def _create(self, conn: Conn, session: Session, msg: CreateTable, now: float) -> None:
        """CREATE_TABLE: here, or on the least-loaded node (`server.placement`)."""
        if not create_elsewhere(self, conn, session, msg):
            self.lobby.handlers[CreateTable](conn, session, msg, now)

    def _quick_match(self, conn: Conn, session: Session, msg: QuickMatch, now: float) -> None:
        """QUICK_MATCH: a table here, or one waiting on another node (`server.redirect`)."""

        def here(at: float) -> None:
            self.lobby.handlers[QuickMatch](conn, session, msg, at)

        if not quick_elsewhere(self, conn, session, msg, here):
            here(now)

    def _list_tables(self, conn: Conn, session: Session, msg: ListTables, now: float) -> None:
        """LIST_TABLES: every node's tables on a cluster's node (`server.listing`)."""
        if not list_across(self, conn, session, msg, now):
            self.lobby.handlers[ListTables](conn, session, msg, now)

    def _spectate(self, conn: Conn, session: Session, msg: Spectate, now: float) -> None:
        """SPECTATE: here, or on the node that holds the table (`server.redirect`)."""
        if not table_elsewhere(self, conn, session, msg):
            self.lobby.handlers[Spectate](conn, session, msg, now)

    def _chat(self, conn: Conn, session: Session, msg: Chat, now: float) -> None:
        """The lobby's chat handler, counting what it passes on (a refusal raises)."""
        self.lobby.handlers[Chat](conn, session, msg, now)
        self.stats.chat_messages += 1

    def _leave(self, session: Session, table: Table, ref: int | None = None) -> None:
        self.lobby.leave(session, table, ref)


_NOT_LOGGED_IN = frozenset((Phase.HANDSHAKE, Phase.HELLO_SENT, Phase.IDENTIFY))
"""The phases before a login, where only ERROR may say the server is going."""
_CONN_TIMERS = frozenset(("handshake", "frame", "heartbeat"))
"""The timers of a connection (named by its id)."""
_FREE = frozenset((Commit, Reveal, Seed, Act, Pong))
"""The game moves (and heartbeat answers) that cost nothing from the rate limit (see `data`)."""


def _ref(message: Message) -> int | None:
    ref = getattr(message, "ref", None)
    return ref if isinstance(ref, int) else None
