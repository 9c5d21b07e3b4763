"""Two edges of the hub (`server.hub.core.Hub`), apart from its core: a new connection admitted or
refused (`admit`), and a timer that is not a table's going off (`fire`: a connection's, a table
nobody is at, a session away too long, a restored tournament done waiting for its entrants)."""

from __future__ import annotations

import itertools
import logging
from typing import Protocol

from sushigo.protocol import ErrorCode, ServerConnection, new_challenge
from sushigo.server.config import HubConfig
from sushigo.server.lobby.lobby import Lobby
from sushigo.server.sessions.limits import Limits
from sushigo.server.sessions.moderation import Moderation, sanction_message
from sushigo.server.sessions.requests import ServerState
from sushigo.server.sessions.session import Bucket, Conn, Session, Transport
from sushigo.server.stats import Stats
from sushigo.server.tournaments.desk import TournamentDesk

from . import deadlines

log = logging.getLogger("sushigo.server")

CONN_TIMERS = frozenset(("handshake", "frame", "heartbeat"))
"""The timers of a connection (named by its id)."""


class Host(ServerState, deadlines.Host, Protocol):
    """What this needs of the server (the hub)."""

    config: HubConfig
    stats: Stats
    limits: Limits
    moderation: Moderation
    lobby: Lobby
    desk: TournamentDesk
    conn_ids: itertools.count[int]

    def wall_ms(self) -> int:
        """The wall clock, in milliseconds."""

    def expire(self, session: Session, now: float) -> None:
        """End a session away past its resume window."""


def admit(hub: Host, transport: Transport, address: str, port: int, now: float) -> Conn | None:
    """A new connection; None when a ban or a cap refuses it (the adapter closes it)."""
    cfg = hub.config
    banned = hub.moderation.address_ban(address)
    if banned is not None:
        hub.stats.count(hub.stats.rejected, "banned")
        why = sanction_message(banned, hub.wall_ms())
        hub.limits.refuse(transport, f"{address}:{port}", why, now, ErrorCode.BANNED)
        return None
    refusal = hub.limits.admit(address, len(hub.conns), now)
    if refusal is not None:
        reason, why = refusal
        hub.stats.count(hub.stats.rejected, reason)
        hub.limits.refuse(transport, f"{address}:{port}", why, now)
        return None
    hub.stats.connections_opened += 1
    conn = Conn(
        id=next(hub.conn_ids),
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
    hub.conns[conn.id] = conn
    hub.limits.opened(conn)
    hub.at(now + cfg.handshake_seconds, "handshake", conn.id)
    hub.at(now + cfg.heartbeat_seconds, "heartbeat", conn.id)
    log.debug("connect %s", conn.peer)
    return conn


def fire(hub: Host, kind: str, target: object, now: float) -> None:
    """A timer other than a table's is due. They name their target by its key (a connection's
    id, a session's token hash, a table's id, a tournament's name), not the object: a connection
    closed, a session ended or a table closed before its timer fires is freed at once, not when
    it fires (a flood of short connections would otherwise keep thousands of them for minutes)."""
    if kind in CONN_TIMERS:
        conn = hub.conns.get(target)  # type: ignore[call-overload]
        if conn is not None:
            if kind == "heartbeat":
                deadlines.heartbeat_due(hub, conn, now)
            elif kind == "frame":
                deadlines.frame_due(hub, conn, now)
            else:
                deadlines.handshake_due(hub, conn, now)
    elif kind == "abandon":
        abandoned = hub.tables.get(str(target))
        if abandoned is not None:
            hub.lobby.abandoned(abandoned, now)
    elif kind == "expire":
        session = hub.sessions.get(target)  # type: ignore[call-overload]
        # (Not one away since later: a resume undone, `unsent_resume`, gave its token back.)
        away = session.detached_at if session is not None else None
        if session is not None and (away is None or away + hub.config.resume_seconds <= now):
            hub.expire(session, now)
    elif kind == "tournaments":
        hub.desk.wake(str(target))
