"""The requests the hub answers itself: the handshake, heartbeats, logins and resumes
(`handle`), and the lobby's requests that a cluster's node may send elsewhere (`routes`: a
table or quick match on another node, every node's table list), before the lobby's own handler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from sushigo.protocol import (
    Chat,
    CreateTable,
    Error,
    ErrorCode,
    Hello,
    JoinTable,
    ListTables,
    LoginGuest,
    LoginKey,
    LoginTicket,
    Message,
    Ping,
    Pong,
    QuickMatch,
    Resume,
    ServerPong,
    Spectate,
    handshake_reply,
)
from sushigo.server.config import HubConfig
from sushigo.server.errors import TableError
from sushigo.server.lobby.resume import ResumeHost, resume_session
from sushigo.server.routing.listing import list_across
from sushigo.server.routing.placement import create_elsewhere, quick_elsewhere
from sushigo.server.routing.redirect import (
    RedirectHost,
    login_ticket,
    resume_elsewhere,
    table_elsewhere,
)
from sushigo.server.routing.tournaments import tournament_elsewhere
from sushigo.server.sessions.limits import Limits
from sushigo.server.sessions.session import Conn, Session
from sushigo.server.stats import Stats
from sushigo.server.tournaments.desk import TournamentDesk


class Host(RedirectHost, ResumeHost, Protocol):
    """What the requests need of the server (the hub): routing's and a resume's, and more."""

    config: HubConfig
    limits: Limits
    desk: TournamentDesk
    stats: Stats

    def send(self, conn: Conn, message: Message) -> None:
        """Send on a connection."""

    def lost(self, conn: Conn, now: float) -> None:
        """The connection ended."""


def handle(hub: Host, conn: Conn, msg: Message, now: float) -> None:
    """Everything that has no route (`routes`, the lobby's, the history's and the admins'):
    before a login, the handshake, heartbeats and logins; after it, the tournament desk's."""
    session = conn.session
    if isinstance(msg, Hello):
        reply = handshake_reply(
            msg,
            server_key=hub.server_key,
            challenge=conn.challenge,
            server_name=hub.config.server_name,
            heartbeat_ms=int(hub.config.heartbeat_seconds * 1000),
        )
        hub.send(conn, reply)
        if isinstance(reply, Error):
            conn.transport.close()
            hub.lost(conn, now)
        return
    if isinstance(msg, Ping):
        hub.send(conn, ServerPong(ref=msg.ref, nonce=msg.nonce))
        return
    if isinstance(msg, Pong):
        return
    if isinstance(msg, LoginGuest | LoginKey):
        hub.lobby.login(conn, msg, now)
        hub.limits.identified(conn)
        return
    if isinstance(msg, Resume):
        hub.limits.identified(conn)
        if not resume_elsewhere(hub, conn, msg, lambda at: resume_session(hub, conn, msg, at)):
            resume_session(hub, conn, msg, now)
        return
    if isinstance(msg, LoginTicket):
        login_ticket(hub, conn, msg)
        hub.limits.identified(conn)
        return
    assert session is not None  # the protocol allows nothing else before login
    if not (tournament_elsewhere(hub, conn, session, msg) or hub.desk.handle(session, msg, now)):
        raise TableError(ErrorCode.UNKNOWN_MESSAGE_TYPE, f"{msg.TYPE!r} is not handled here")


Route = Callable[[Conn, Session, Any, float], None]


def routes(hub: Host) -> dict[type[Message], Route]:
    """The hub's own handlers of lobby requests, by message class: each asks the cluster first
    (when there is one) and falls back on the lobby's handler."""
    lobby = hub.lobby.handlers

    def join(conn: Conn, session: Session, msg: JoinTable, now: float) -> None:
        """JOIN_TABLE: here, or on the node that holds the table (`server.routing.redirect`)."""
        if not table_elsewhere(hub, conn, session, msg):
            lobby[JoinTable](conn, session, msg, now)

    def spectate(conn: Conn, session: Session, msg: Spectate, now: float) -> None:
        """SPECTATE: here, or on the node that holds the table (`server.routing.redirect`)."""
        if not table_elsewhere(hub, conn, session, msg):
            lobby[Spectate](conn, session, msg, now)

    def create(conn: Conn, session: Session, msg: CreateTable, now: float) -> None:
        """CREATE_TABLE: here, or on the least-loaded node (`server.routing.placement`)."""
        if not create_elsewhere(hub, conn, session, msg):
            lobby[CreateTable](conn, session, msg, now)

    def quick_match(conn: Conn, session: Session, msg: QuickMatch, now: float) -> None:
        """QUICK_MATCH: a table here (the cluster's matcher merges the nodes' waiting tables:
        `server.routing.matching`), or, from a draining node, on another node
        (`server.routing.placement`)."""
        if not quick_elsewhere(hub, conn, session, msg):
            lobby[QuickMatch](conn, session, msg, now)

    def list_tables(conn: Conn, session: Session, msg: ListTables, now: float) -> None:
        """LIST_TABLES: every node's tables on a cluster's node (`server.routing.listing`)."""
        if not list_across(hub, conn, session, msg, now):
            lobby[ListTables](conn, session, msg, now)

    def chat(conn: Conn, session: Session, msg: Chat, now: float) -> None:
        """The lobby's chat handler, counting what it passes on (a refusal raises)."""
        lobby[Chat](conn, session, msg, now)
        hub.stats.chat_messages += 1

    return {
        JoinTable: join,
        Spectate: spectate,
        QuickMatch: quick_match,
        CreateTable: create,
        ListTables: list_tables,
        Chat: chat,
    }
