"""The server's core, sans-IO: connections, sessions, the lobby and every table.

The asyncio adapter (`server.net.app`) only feeds it: `open` for a new connection, `data` for bytes,
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
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sushigo.protocol import (
    Act,
    AdminAudit,
    AdminNodes,
    AdminSanctions,
    AdminSessions,
    AdminShow,
    ChatMessage,
    Commit,
    ConnectionClosed,
    Error,
    ErrorCode,
    FairRecord,
    GetLeaderboard,
    GetRecord,
    ListTables,
    ListTournaments,
    Message,
    MyGames,
    Phase,
    Pong,
    ProtocolError,
    RemoteProtocolError,
    Reveal,
    Seed,
    SignedRecord,
    TableUpdate,
    WatchTournament,
    error_for,
    sign_record,
)
from sushigo.protocol.errors import FATAL_CODES
from sushigo.server.config import HubConfig
from sushigo.server.errors import TableError
from sushigo.server.lobby.history import History
from sushigo.server.lobby.lobby import Lobby
from sushigo.server.lobby.resume import unsent_resume
from sushigo.server.operations.admin import Admin
from sushigo.server.routing import matching
from sushigo.server.routing import tournaments as tournament_cluster
from sushigo.server.routing.redirect import CutOff, Directory, send_off, take_away
from sushigo.server.routing.spread import Spread
from sushigo.server.sessions.limits import Limits
from sushigo.server.sessions.moderation import Moderation
from sushigo.server.sessions.names import Names
from sushigo.server.sessions.requests import Ask, Asker, Read, Reader
from sushigo.server.sessions.session import AWAY_WATCHER_BYTES, Conn, Session, Transport, broadcast
from sushigo.server.stats import Stats
from sushigo.server.storage.contract import Storage
from sushigo.server.tables.index import Tables
from sushigo.server.tables.persist import changes, saved
from sushigo.server.tables.table import Table
from sushigo.server.tournaments.desk import TournamentDesk

from . import deadlines, deferred, lifecycle, requests
from . import edges as hub_edges

log = logging.getLogger("sushigo.server")


class Hub(Reader, Asker):
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
        """What happened since the start, counted for the operator (`server.net.metrics`)."""
        self.draining = False
        self.lease_until = math.inf
        """A cluster's node: until when (this hub's clock) its lease surely holds (kept by the
        adapter at each renewal); past it the lobby starts nothing. inf: a lone server."""
        """The server is going away (an admin drains it: `server.operations.admin`): it takes no new
        table or game, and reports itself not ready."""
        self.moderation = Moderation(storage.load_sanctions(), wall_ms)
        """The bans and mutes, read once here and kept up to date by the admins."""
        self.limits = Limits(self.config)
        """Connections per address, players' sessions, sessions kept away
        (`server.sessions.limits`)."""
        self.names = Names()
        """The names the players hold (`server.sessions.names`)."""
        self.sessions: dict[bytes, Session] = {}
        """By the hash of their current resume token."""
        self.tables = Tables()
        """Every table here, counting what changes in their lobby view (`server.lobby.pages`)."""
        self.conn_ids = itertools.count(1)
        self._timers: list[tuple[float, int, str, Any]] = []
        self._timer_seq = itertools.count()
        self._watched: dict[str, float] = {}
        """The deadline last scheduled per table, to push each change once."""
        self.now = 0.0
        self._started = False
        self.desk = TournamentDesk(self)
        self.lobby = Lobby(self)
        self.spread = Spread(self)
        """A cluster's node's part in tournaments' games across nodes (`server.routing.spread`)."""
        self.history = History(self)
        """Finished games for the players who played them (MY_GAMES, GET_RECORD)."""
        self.admin = Admin(self, self.lobby, admins)
        """The admin requests (`admins`: the raw public keys of the admins)."""
        self._routes = {**self.lobby.handlers, **self.history.handlers, **self.admin.handlers}
        """The handler of each request the lobby, the history and the admins answer, by message
        class (see `data`)."""
        self._routes.update(requests.routes(self))
        self.cluster: Directory | None = None
        """The cluster this server is a node of (`server.cluster.node`; None: a lone server)."""
        self.nodes: tuple[str, ...] = ()
        """The cluster's live nodes' addresses, this one's first (kept by the adapter)."""
        self.web_nodes: dict[str, str] = {}
        """The cluster's live nodes' web addresses, by their addresses (kept by the adapter, in
        place: the connections over WebSocket share it, `server.sessions.web_routes`)."""
        self.said: list[ChatMessage] = []
        """Lobby chat said here since the adapter last looked: a cluster's node passes it on."""
        self.opened: list[str] = []
        """Tables opened since the adapter last looked: a cluster's node leases them in its next commit."""
        self.asks: list[Ask] = []
        self.reads: list[Read] = []

    def ask_done(self, ask: Ask, result: Any, now: float) -> None:
        """The adapter's call back with an answer (or the `StorageError` its job raised)."""
        deferred.ask_done(self, ask, result, now)

    def read_done(self, read: Read, result: Any, now: float) -> None:
        """The adapter's call back with a read's result (or the `StorageError` its job raised)."""
        deferred.read_done(self, read, result, now)
        conn = read.conn
        if conn is not None and not conn.closed and not conn.logging_in and conn.proto.unread:
            # What came after its login, now that it is answered (see `data`).
            deadlines.frame_clock(self, conn, self._drain(conn, now), now)

    # -- the adapter's entry points ---------------------------------------------------------

    def restore(self, now: float, tables: list[tuple[str, bytes]] | None = None) -> int:
        """Load the tables saved by an earlier run (`server.hub.lifecycle.restore`); at the first
        call (the server's start), then the tournaments stored (a cluster's node: its own)."""
        count = lifecycle.restore(self, now, tables)
        if not self._started:
            self._started = True
            tournament_cluster.restore(self, self.storage.load_tournaments(), now)
        return count

    def open(
        self, transport: Transport, address: str, port: int, now: float, *, web: bool = False
    ) -> Conn | None:
        """A new connection (`web`: over WebSocket, `server.net.web`); None when a cap refuses it
        (the adapter closes it)."""
        self.now = now
        conn = hub_edges.admit(self, transport, address, port, now)
        if conn is not None and web:
            conn.routes = self.web_nodes
        return conn

    def data(self, conn: Conn, data: bytes, now: float) -> None:
        """Bytes from a connection."""
        self.now = now
        if conn.closed:
            return
        conn.last_received = now
        if not conn.volume.take(len(data), now):
            # Too many bytes: said, and counted toward the close, like too many messages (the
            # bytes are handled all the same: they are in).
            if not self._strike(conn, now):
                return
            if conn.proto.phase not in _UNWELCOMED:  # before WELCOME every error is fatal
                self.reply(
                    conn, Error(code=ErrorCode.RATE_LIMITED, message="slow down: too many bytes")
                )
        proto = conn.proto
        if conn.logging_in:
            # What follows a login waits for it (it reads the names stored): a client may send
            # its first requests with its login, and they are handled once it is logged in.
            try:
                proto.receive_data(data)
            except ProtocolError as exc:
                self._fatal(conn, exc)
            return
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
        deadlines.frame_clock(self, conn, self._drain(conn, now), now)

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
            if conn.logging_in:  # the rest waits for the login (see `data`)
                return whole
        return whole

    def _refused(self, conn: Conn, exc: RemoteProtocolError, now: float) -> bool:
        """A frame the protocol refused: close for a fatal error (True), else answer it."""
        self.stats.frames_in += 1
        if exc.fatal:
            self._fatal(conn, exc)
            return True
        if self._spend(conn, now, exc.ref):
            self.reply(conn, error_for(exc))
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
        if kind in ASKED_AGAIN and (conn.behind or _unread(conn) >= UNREAD_BYTES):
            # Its last replies wait in our memory: another page is not even built.
            if self._strike(conn, now):
                self.reply(
                    conn,
                    Error(
                        ref=_ref(event),
                        code=ErrorCode.RATE_LIMITED,
                        message="read what was sent first: it is still waiting for you",
                    ),
                )
            return
        session = conn.session
        try:
            # A lobby or table request (game moves included, the common case) goes straight to
            # its handler; the handshake, heartbeats, logins and the rest through `requests.handle`.
            if session is not None and (route := self._routes.get(kind)) is not None:
                route(conn, session, event, now)
            else:
                requests.handle(self, conn, event, now)
        except TableError as exc:
            # A move the table refuses costs after all, so a mover cannot spam illegal ones.
            if free and not self._spend(conn, now, _ref(event)):
                return
            # Every RATE_LIMITED counts toward the close (PROTOCOL.md section 5), a chat's too.
            if exc.code is ErrorCode.RATE_LIMITED and not self._strike(conn, now):
                return
            if exc.code in FATAL_CODES:  # a banned identity's login: said, then closed
                self._fatal(conn, RemoteProtocolError(exc.code, exc.message, ref=_ref(event)))
                return
            self.reply(conn, Error(ref=_ref(event), code=exc.code, message=exc.message[:500]))
        except Exception:  # a server bug: log it, tell the client, keep everyone else going
            log.exception("internal error handling %s from %s", event.TYPE, conn.peer)
            self.reply(
                conn,
                Error(ref=_ref(event), code=ErrorCode.INTERNAL_ERROR, message="internal error"),
            )
        session = conn.session
        if session is not None:
            table = session.table
            if table is not None and table.deadline is not None:
                self.watch(table)
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
            unsent_resume(self, session)
            table = session.table
            if table is not None and self.lobby.gone_from_queue(session, table):
                table = None  # out of the quick match: no game starts with its seat
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
                self.expire(session, now)  # sushigo-admin never resumes: no session left over
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
                # Only the table's scheduled timer counts (see `watch`); older ones are spent.
                if self._watched.get(table.table_id) == when and (
                    self.tables.get(table.table_id) is table
                ):
                    del self._watched[table.table_id]
                    table.on_timer(now)  # early (the deadline moved on): does nothing
                    self.watch(table)
            else:
                hub_edges.fire(self, kind, target, now)
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

    def cut_off(self, table_ids: Iterable[str], unsent: bool = False) -> list[CutOff]:
        """Drop these tables here, unsaved, their people at no table (`redirect.take_away`),
        to be sent on (`redirect.send_off`). `unsent`: what they were not sent yet is taken
        back (`App._fenced`), a RESUMED among it, so such a resume is undone first
        (`unsent_resume`): the token its player holds is stored for its seat again."""
        cut = []
        for table_id in table_ids:
            table = self.tables.pop(table_id, None)
            if table is not None:
                if unsent:
                    for person in table.seating.people():
                        if isinstance(person, Session):
                            unsent_resume(self, person)
                self._watched.pop(table_id, None)
                tournament_cluster.table_lost(self, table)
                cut.append(take_away(self, table))
        return cut

    def save_all(self) -> None:
        """Save every table in play (a stopping server, before its tables go elsewhere)."""
        lifecycle.save_all(self)

    def shutdown(
        self, retry_ms: int = lifecycle.RESTART_RETRY_MS, moved: dict[str, str] | None = None
    ) -> None:
        """Save every table and tell every connection the server is going away
        (`server.hub.lifecycle.shutdown`)."""
        lifecycle.shutdown(self, retry_ms, moved)

    # -- timers ------------------------------------------------------------------------------

    def _at(self, when: float, kind: str, target: object) -> None:
        heapq.heappush(self._timers, (when, next(self._timer_seq), kind, target))

    def at(self, when: float, kind: str, target: object) -> None:
        """A timer for the lobby ("abandon", with a table's id: a table nobody is connected
        to)."""
        self._at(when, kind, target)

    def watch(self, table: Table) -> None:
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

    def end_session(self, session: Session, exc: RemoteProtocolError, now: float) -> None:
        """End a session now (an admin's kick or ban): its connection, if it has one, is told
        why and closed, and the session goes as if its resume window had passed (its seat,
        during a game, to a bot; its token with it)."""
        for conn in [c for c in self.conns.values() if c.session is session]:
            self._fatal(conn, exc)
        self.expire(session, now)

    def forget(self, sessions: list[Session], now: float) -> None:
        """End sessions kept away before their time, to stay within the caps."""
        for session in sessions:
            log.info("too many sessions away: forgetting %s's", session.player_id)
            self.expire(session, now)

    def expire(self, session: Session, now: float) -> None:
        """End a session away past its resume window (its seat, in a game, to a bot)."""
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
            self.lobby.leave(session, table)

    # -- sending -----------------------------------------------------------------------------

    def send(self, conn: Conn, message: Message) -> None:
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

    def reply(self, conn: Conn, error: Error) -> None:
        self.stats.error(error.code)
        self.send(conn, error)

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
            self.reply(
                conn, Error(ref=ref, code=ErrorCode.RATE_LIMITED, message="slow down: a long list")
            )
        return False

    def _spend(self, conn: Conn, now: float, ref: int | None) -> bool:
        """Charge one message; over the rate, answer RATE_LIMITED (and close after too many)."""
        if conn.messages.take(1, now):
            return True
        if self._strike(conn, now):
            self.reply(conn, Error(ref=ref, code=ErrorCode.RATE_LIMITED, message="slow down"))
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
        lifecycle.game_over(self, table, signed)

    def table_changed(self, table: Table) -> None:
        """Tell the table's people what it looks like now."""
        update = TableUpdate(table=table.info())
        self.tables.changed()
        broadcast(table.seating.people(), update)
        self.watch(table)

    # -- what other parts of the server call ---------------------------------------------------

    def lobby_said(self, message: ChatMessage) -> None:
        """Lobby chat said here: a cluster's node passes it on to the others (see `said`)."""
        if self.cluster is not None:
            self.said.append(message)

    def table_opened(self, table: Table) -> None:
        """A new table: a cluster's node leases it in the commit of its first writes (see `opened`)."""
        if self.cluster is not None:
            self.opened.append(table.table_id)

    def move_quick(self, moves: list[matching.Move], now: float) -> None:
        """The cluster's matcher moves players of this node's waiting tables to others
        (`server.routing.matching.move_out`)."""
        self.now = now
        matching.move_out(self, moves)

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
        self.desk.arrived(session)


_UNWELCOMED = frozenset((Phase.HANDSHAKE, Phase.HELLO_SENT))
_FREE = frozenset((Commit, Reveal, Seed, Act, Pong))
"""The game moves (and heartbeat answers) that cost nothing from the rate limit (see `data`)."""
ASKED_AGAIN: frozenset[type[Message]] = frozenset(
    (
        ListTables,
        GetLeaderboard,
        MyGames,
        GetRecord,
        ListTournaments,
        WatchTournament,
        AdminSessions,
        AdminNodes,
        AdminShow,
        AdminSanctions,
        AdminAudit,
    )
)
"""Requests a client may send again and again whose replies are long (a list, a record): to a
connection that has not taken what it was sent (`Conn.behind`) they are refused unbuilt
(RATE_LIMITED, a strike)."""


UNREAD_BYTES = 64 * 1024
"""Bytes sent and not yet taken by a client (its socket's, on Linux) from which it is deemed not
to have read the last reply: a reply it may ask for again and again is then refused unbuilt. A
client that reads takes a reply before it asks again (its request carries the acknowledgement),
and what the server sent meanwhile (a step of its game) is a few KiB."""


def _unread(conn: Conn) -> int:
    """What `conn`'s client has not taken yet, as its transport can tell (0: it cannot)."""
    measure = getattr(conn.transport, "unread", None)
    return 0 if measure is None else int(measure())


def _ref(message: Message) -> int | None:
    ref = getattr(message, "ref", None)
    return ref if isinstance(ref, int) else None
